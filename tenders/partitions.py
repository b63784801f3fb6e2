"""PostgreSQL partitions of the snapshot table: one partition per issue.

A publication creates a bare table, loads it with COPY, builds its indexes in bulk (far faster
than maintaining a trigram index row by row), and attaches it to the partitioned parent.
Readers filter on the current issue, so an attached but not yet current partition is invisible
to them. Retiring an issue drops its table instead of deleting a million rows.

Everything here runs only on PostgreSQL; other databases use one plain table.
"""

from django.db import connection
from django.db.migrations.operations import CreateModel

PARENT = "tenders_snapshotrow"
# Search indexes (tenders/search.py): trigrams of the Latin text, and the CJK characters.
SEARCH_INDEXES = {
    "latin": "USING gin (search_latin gin_trgm_ops)",
    "cjk": "USING gin (search_cjk jsonb_path_ops)",
}


def partition_name(issue_pk: int) -> str:
    return f"{PARENT}_i{int(issue_pk)}"


def is_postgres(conn=connection) -> bool:
    return conn.vendor == "postgresql"


def create_staging(cursor, issue_pk: int) -> str:
    name = partition_name(issue_pk)
    cursor.execute(f"CREATE TABLE {name} (LIKE {PARENT} INCLUDING DEFAULTS)")
    return name


def create_attached(cursor, issue_pk: int) -> str:
    """An empty partition, attached at once (for loading with plain INSERTs)."""
    name = partition_name(issue_pk)
    cursor.execute(f"CREATE TABLE {name} PARTITION OF {PARENT} FOR VALUES IN ({int(issue_pk)})")
    return name


def index_and_attach(cursor, issue_pk: int) -> None:
    """Build the partition's indexes in bulk, then attach it (matching indexes are adopted)."""
    name = partition_name(issue_pk)
    pk = int(issue_pk)
    cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
    cursor.execute(f"ALTER TABLE {name} ADD CONSTRAINT {name}_issue CHECK (issue_id = {pk})")
    for index_name, columns in model_indexes():
        cursor.execute(f"CREATE INDEX {name}_{index_name} ON {name} ({', '.join(columns)})")
    cursor.execute(f"ALTER TABLE {name} ADD PRIMARY KEY (issue_id, sort_key)")
    # A constraint (not a bare unique index) so ATTACH adopts it for the parent's constraint.
    cursor.execute(
        f"ALTER TABLE {name} ADD CONSTRAINT {name}_listing UNIQUE (issue_id, asaptic_id)"
    )
    for suffix, method in SEARCH_INDEXES.items():
        cursor.execute(f"CREATE INDEX {name}_{suffix} ON {name} {method}")
    cursor.execute(f"ALTER TABLE {PARENT} ATTACH PARTITION {name} FOR VALUES IN ({pk})")
    cursor.execute(f"ANALYZE {name}")


def model_indexes() -> list[tuple[str, list[str]]]:
    """The plain indexes of ``SnapshotRow.Meta.indexes`` as (name, columns); each partition
    builds its own copy before ATTACH, which then adopts it for the parent's index."""
    from .models import SnapshotRow

    meta = SnapshotRow._meta
    return [
        (index.name, [meta.get_field(field).column for field in index.fields])
        for index in meta.indexes
    ]


def drop(cursor, issue_pk: int) -> None:
    cursor.execute(f"DROP TABLE IF EXISTS {partition_name(issue_pk)}")


class CreatePartitionedModel(CreateModel):
    """CreateModel that makes the table ``PARTITION BY LIST (<column>)`` on PostgreSQL."""

    def __init__(self, *args, partition_column: str, **kwargs):
        self.partition_column = partition_column
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, args, kwargs = super().deconstruct()
        kwargs["partition_column"] = self.partition_column
        return name, args, kwargs

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor != "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        model = to_state.apps.get_model(app_label, self.name)
        sql, params = schema_editor.table_sql(model)
        column = schema_editor.quote_name(self.partition_column)
        schema_editor.execute(f"{sql} PARTITION BY LIST ({column})", params or None)

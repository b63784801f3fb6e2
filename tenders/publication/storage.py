"""Where snapshot rows live: the one storage interface of the feed.

Everything that depends on the database engine sits behind ``snapshot_store()``; publication,
withdrawal, the read path and search ask the store what to do, never which database they are
on.

- ``PartitionStore`` (PostgreSQL): the snapshot table is partitioned by issue. A publication
  creates a bare table, loads it with COPY, builds its indexes in bulk (far faster than
  maintaining a trigram index row by row) and attaches it. Readers filter on the current
  issue, so an attached but not yet current partition is invisible to them. Retiring an issue
  drops its table instead of deleting a million rows.
- ``TableStore`` (any other database, e.g. the embedded SQLite of ``dev.py run``): one plain
  table, rows inserted in batches and deleted with DELETE.
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction
from django.db.migrations.operations import CreateModel

from .. import search
from ..models import Issue, SnapshotRow
from .planning import ROW_VALUES, batched

PARENT = "tenders_snapshotrow"
# Snapshot columns in load order: the issue, then a planned row's values.
LOAD_COLUMNS = ("issue_id", *ROW_VALUES)
# One publication or withdrawal at a time (the PostgreSQL advisory lock's key).
PUBLISH_LOCK = 7_246_001


def snapshot_store(*, bulk: bool = True) -> "TableStore":
    """The store of the default database. ``bulk=False`` loads with INSERTs even where the
    store has a faster path (tests compare both)."""
    if connection.vendor == "postgresql":
        return PartitionStore(bulk=bulk)
    return TableStore()


class TableStore:
    """One plain snapshot table, written through the ORM."""

    # Whether the search indexes of tenders/search.py exist (else search is a plain scan).
    indexed_search = False

    @contextmanager
    def lock(self) -> Iterator[bool]:
        """Yields whether this process holds the publication lock (SQLite serializes writers)."""
        yield True

    def loader(self, issue: Issue) -> "RowLoader":
        return RowLoader(issue)

    def copy_rows_except(self, source: Issue, target: Issue, listing_id: str) -> None:
        """Fill ``target``'s snapshot with ``source``'s rows, leaving one listing out."""
        rows = (
            SnapshotRow.objects.filter(issue=source)
            .exclude(asaptic_id=listing_id)
            .order_by("sort_key")
            .values_list(*ROW_VALUES)
        )
        loader = self.loader(target)
        for chunk in batched(rows.iterator(chunk_size=2000), 2000):
            loader.write(chunk)
        loader.finish()

    def drop_rows(self, issue: Issue) -> None:
        SnapshotRow.objects.filter(issue=issue).delete()

    @contextmanager
    def planner_hints(self, hints: dict[str, str]) -> Iterator[None]:
        """Run the reads inside with these planner settings, where the database has them."""
        yield


class RowLoader:
    """Batched INSERTs of planned rows into the snapshot table."""

    def __init__(self, issue: Issue):
        self.issue = issue

    def write(self, rows: list[tuple]) -> None:
        if rows:
            SnapshotRow.objects.bulk_create(
                [
                    SnapshotRow(issue=self.issue, **dict(zip(ROW_VALUES, row, strict=True)))
                    for row in rows
                ]
            )

    def finish(self) -> None:
        pass


class PartitionStore(TableStore):
    """PostgreSQL: one partition per issue, loaded bare and indexed in bulk before ATTACH."""

    indexed_search = True

    def __init__(self, *, bulk: bool = True):
        self.bulk = bulk

    @contextmanager
    def lock(self) -> Iterator[bool]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [PUBLISH_LOCK])
            acquired = cursor.fetchone()[0]
        try:
            yield acquired
        finally:
            if acquired:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [PUBLISH_LOCK])

    def loader(self, issue: Issue) -> RowLoader:
        if self.bulk:
            return CopyLoader(issue)
        with connection.cursor() as cursor:
            cursor.execute(
                f"CREATE TABLE {partition_name(issue.pk)} PARTITION OF {PARENT} "
                f"FOR VALUES IN ({int(issue.pk)})"
            )
        return RowLoader(issue)

    def copy_rows_except(self, source: Issue, target: Issue, listing_id: str) -> None:
        if not self.bulk:
            return super().copy_rows_except(source, target, listing_id)
        columns = ", ".join(ROW_VALUES)
        with connection.cursor() as cursor:
            table = _create_bare(cursor, target.pk)
            cursor.execute(
                f"INSERT INTO {table} (issue_id, {columns}) SELECT %s, {columns} "
                f"FROM {PARENT} WHERE issue_id = %s AND asaptic_id <> %s",
                [target.pk, source.pk, listing_id],
            )
            _index_and_attach(cursor, target.pk)

    def drop_rows(self, issue: Issue) -> None:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE IF EXISTS {partition_name(issue.pk)}")

    @contextmanager
    def planner_hints(self, hints: dict[str, str]) -> Iterator[None]:
        enclosed = connection.in_atomic_block
        # The settings are local to the transaction; when it is the caller's and goes on, they
        # are restored at once. No savepoint: the reads inside write nothing.
        with transaction.atomic(savepoint=False), connection.cursor() as cursor:
            cursor.execute(
                "SELECT " + ", ".join(["set_config(%s, %s, true)"] * len(hints)),
                [item for pair in hints.items() for item in pair],
            )
            yield
            if enclosed:
                cursor.execute(
                    "SELECT set_config(name, reset_val, true) FROM pg_settings "
                    "WHERE name = ANY(%s)",
                    [list(hints)],
                )


class CopyLoader(RowLoader):
    """COPY into a bare partition; its indexes are built in bulk, then it is attached."""

    def __init__(self, issue: Issue):
        super().__init__(issue)
        self.cursor = connection.cursor()
        self.table = _create_bare(self.cursor, issue.pk)

    def write(self, rows: list[tuple]) -> None:
        columns = ", ".join(LOAD_COLUMNS)
        with self.cursor.cursor.copy(f"COPY {self.table} ({columns}) FROM STDIN") as copy:
            for row in rows:
                # search_cjk goes in as JSON text (COPY would write a list as an array).
                cjk = json.dumps(row[-1], ensure_ascii=False)
                copy.write_row((self.issue.pk, *row[:-1], cjk))

    def finish(self) -> None:
        _index_and_attach(self.cursor, self.issue.pk)
        self.cursor.close()


def partition_name(issue_pk: int) -> str:
    return f"{PARENT}_i{int(issue_pk)}"


def _create_bare(cursor, issue_pk: int) -> str:
    name = partition_name(issue_pk)
    cursor.execute(f"CREATE TABLE {name} (LIKE {PARENT} INCLUDING DEFAULTS)")
    return name


def _index_and_attach(cursor, issue_pk: int) -> None:
    """Build the partition's indexes in bulk, then attach it (matching indexes are adopted)."""
    name = partition_name(issue_pk)
    pk = int(issue_pk)
    cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
    cursor.execute(f"ALTER TABLE {name} ADD CONSTRAINT {name}_issue CHECK (issue_id = {pk})")
    for index_name, columns in _model_indexes():
        cursor.execute(f"CREATE INDEX {name}_{index_name} ON {name} ({', '.join(columns)})")
    cursor.execute(f"ALTER TABLE {name} ADD PRIMARY KEY (issue_id, sort_key)")
    # A constraint (not a bare unique index) so ATTACH adopts it for the parent's constraint.
    cursor.execute(
        f"ALTER TABLE {name} ADD CONSTRAINT {name}_listing UNIQUE (issue_id, asaptic_id)"
    )
    for suffix, method in search.INDEXES.items():
        cursor.execute(f"CREATE INDEX {name}_{suffix} ON {name} {method}")
    cursor.execute(f"ALTER TABLE {PARENT} ATTACH PARTITION {name} FOR VALUES IN ({pk})")
    cursor.execute(f"ANALYZE {name}")


def _model_indexes() -> list[tuple[str, list[str]]]:
    """The plain indexes of ``SnapshotRow.Meta.indexes`` as (name, columns); each partition
    builds its own copy before ATTACH, which then adopts it for the parent's index."""
    meta = SnapshotRow._meta
    return [
        (index.name, [meta.get_field(field).column for field in index.fields])
        for index in meta.indexes
    ]


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

"""PostgreSQL only: the trigram extension and the search index of the snapshot table.

The index is declared on the partitioned parent so that every attached partition must carry an
equivalent one (publication builds it before attaching). Other databases search by scanning.
"""

from django.db import migrations

PARENT = "tenders_snapshotrow"
TRGM_INDEX = "snapshotrow_search_trgm"


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    schema_editor.execute(
        f"CREATE INDEX {TRGM_INDEX} ON {PARENT} USING gin (search_text gin_trgm_ops)"
    )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX IF EXISTS {TRGM_INDEX}")


class Migration(migrations.Migration):
    dependencies = [("tenders", "0001_initial")]
    operations = [migrations.RunPython(forwards, backwards)]

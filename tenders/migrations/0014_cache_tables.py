"""The database caches' tables, made by migrate (before, only ``createcachetable`` made them,
which a deployment running ``migrate`` alone never did). A table ``createcachetable`` already
made is kept as it is: its columns are the ones these models declare."""

from django.db import migrations, models

TABLES = {"SharedCacheEntry": "django_cache", "AnswerCacheEntry": "tenders_answer_cache"}


def create_missing(apps, schema_editor):
    existing = set(schema_editor.connection.introspection.table_names())
    for name, table in TABLES.items():
        if table not in existing:
            schema_editor.create_model(apps.get_model("tenders", name))


def drop(apps, schema_editor):
    existing = set(schema_editor.connection.introspection.table_names())
    for name, table in TABLES.items():
        if table in existing:
            schema_editor.delete_model(apps.get_model("tenders", name))


def _model(name: str, table: str) -> migrations.CreateModel:
    return migrations.CreateModel(
        name=name,
        fields=[
            ("cache_key", models.CharField(max_length=255, primary_key=True, serialize=False)),
            ("value", models.TextField()),
            ("expires", models.DateTimeField(db_index=True)),
        ],
        options={"db_table": table, "abstract": False},
    )


class Migration(migrations.Migration):
    dependencies = [
        ("tenders", "0013_seed_public_bodies_more"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[_model(name, table) for name, table in TABLES.items()]
        ),
        migrations.RunPython(create_missing, drop),
    ]

from django.db import migrations, models


class Migration(migrations.Migration):
    """Postings built before schemes were recorded have scheme 1 (no CJK trigrams): they count
    as not built until the job builds them again."""

    dependencies = [("tenders", "0017_search_postings")]

    operations = [
        migrations.AddField(
            model_name="searchpostings",
            name="scheme",
            field=models.PositiveSmallIntegerField(default=1),
            preserve_default=False,
        ),
    ]

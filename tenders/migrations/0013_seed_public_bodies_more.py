"""The seed list's second batch: more bodies of the seven markets (Hong Kong bureaux,
hospitals and universities; Macao offices; Singapore statutory boards, polytechnics,
hospitals and town councils; UK, Australian and Canadian departments, agencies and councils;
EU directorates-general and agencies) and more tender portals, gazettes and aggregators.

Runs 0011's loader again over ``tenders/data/public_bodies.json``: names a body already has are
skipped, so a database seeded before this batch gets only the new names, and one created after
(where 0011 read the whole file) gets nothing more. Reversing removes nothing: 0011 owns the
seed entries.
"""

import importlib

from django.db import migrations

_seed = importlib.import_module("tenders.migrations.0011_seed_public_bodies")


class Migration(migrations.Migration):
    dependencies = [("tenders", "0012_plan_digest")]

    operations = [migrations.RunPython(_seed.load, migrations.RunPython.noop)]

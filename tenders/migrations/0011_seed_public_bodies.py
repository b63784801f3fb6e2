"""The seed list of the directory: main public bodies of the seven markets and the tender
portals, with official names, short forms and abbreviations (``tenders/data/public_bodies.json``).

Written with the historical models (the file is read as it is at this migration). Names a body
already has are skipped, so running it over a directory importers filled first adds only what
is missing. Reversing removes the seed entries only.
"""

import json
import unicodedata
from pathlib import Path

from django.db import migrations

DATA = Path(__file__).resolve().parent.parent / "data" / "public_bodies.json"


def _key(name: str) -> str:
    # tenders.directory.name_key as it is at this migration.
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())[:300]


def load(apps, schema_editor):
    PublicBody = apps.get_model("tenders", "PublicBody")
    PublicBodyName = apps.get_model("tenders", "PublicBodyName")
    known = {
        (market, kind, key): body_id
        for body_id, market, kind, key in PublicBodyName.objects.values_list(
            "body_id", "body__market", "body__kind", "key"
        )
    }
    names = []
    for entry in json.loads(DATA.read_text(encoding="utf-8"))["bodies"]:
        market, kind = entry["market"], entry["kind"]
        body_id = next(
            (
                known[(market, kind, _key(n[0]))]
                for n in entry["names"]
                if (market, kind, _key(n[0])) in known
            ),
            None,
        )
        if body_id is None:
            body_id = PublicBody.objects.create(
                market=market, kind=kind, origin="seed", name=entry["names"][0][0]
            ).pk
        for name, lang, form in entry["names"]:
            slot = (market, kind, _key(name))
            if slot in known:
                continue
            known[slot] = body_id
            names.append(
                PublicBodyName(body_id=body_id, name=name, key=_key(name), lang=lang, form=form)
            )
    PublicBodyName.objects.bulk_create(names)


def unload(apps, schema_editor):
    apps.get_model("tenders", "PublicBody").objects.filter(origin="seed").delete()


class Migration(migrations.Migration):
    dependencies = [("tenders", "0010_gate_allowances_and_sources")]

    operations = [migrations.RunPython(load, unload)]

"""The directory of public bodies: names go in once, spellings of one body join it."""

import pytest

from tenders.directory import (
    BodyEntry,
    BodyName,
    directory_fingerprint,
    directory_names,
    name_key,
    remember_bodies,
)
from tenders.models import PublicBody, PublicBodyName

pytestmark = pytest.mark.django_db

# A body the seed list does not have (the seed migration fills the directory first).
HA = BodyEntry(
    market="HK",
    names=[
        BodyName("Harbour  Ferry Authority", "en"),
        BodyName("海港渡輪管理局", "zh-hant"),
        BodyName("HFA", "en", PublicBodyName.Form.ABBREVIATION),
    ],
)


def _imported():
    return PublicBody.objects.exclude(origin=PublicBody.Origin.SEED)


def test_name_key_folds_case_width_and_spacing():
    assert name_key("  Hospital\tAUTHORITY ") == "hospital authority"
    assert name_key("ＨＡ") == "ha"


def test_remember_adds_each_name_once_and_joins_later_spellings():
    assert remember_bodies([HA]) == 3
    assert remember_bodies([HA]) == 0
    later = BodyEntry(
        market="HK", names=[BodyName("海港渡輪管理局"), BodyName("海港渡轮管理局", "zh-hans")]
    )
    assert remember_bodies([later]) == 1
    body = _imported().get()
    assert (body.name, body.market, body.origin) == ("Harbour Ferry Authority", "HK", "import")
    assert sorted(body.names.values_list("name", flat=True)) == [
        "HFA",
        "Harbour Ferry Authority",
        "海港渡輪管理局",
        "海港渡轮管理局",
    ]


def test_same_name_in_another_market_is_another_body():
    remember_bodies([HA, BodyEntry(market="SG", names=[BodyName("Harbour Ferry Authority")])])
    assert sorted(_imported().values_list("market", flat=True)) == ["HK", "SG"]


def test_blank_and_one_letter_names_are_ignored():
    assert remember_bodies([BodyEntry(market="GB", names=[BodyName(" "), BodyName("X")])]) == 0
    assert not _imported().exists()


def test_names_stream_for_the_gate_and_fingerprint_follows_changes():
    empty = directory_fingerprint()
    seeded = {(n.name, n.market, n.form, n.origin) for n in directory_names()}
    remember_bodies([HA])
    after_add = directory_fingerprint()
    assert after_add != empty
    imported = {(n.name, n.market, n.form, n.origin) for n in directory_names()} - seeded
    assert imported == {
        ("Harbour Ferry Authority", "HK", "full", "import"),
        ("海港渡輪管理局", "HK", "full", "import"),
        ("HFA", "HK", "abbreviation", "import"),
    }
    name = PublicBodyName.objects.get(name="HFA")
    name.name = "H.F.A."
    name.save()
    assert name.key == "h.f.a."
    assert directory_fingerprint() not in {empty, after_add}

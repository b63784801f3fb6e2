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

HA = BodyEntry(
    market="HK",
    names=[
        BodyName("Hospital  Authority", "en"),
        BodyName("醫院管理局", "zh-hant"),
        BodyName("HA", "en", PublicBodyName.Form.ABBREVIATION),
    ],
)


def test_name_key_folds_case_width_and_spacing():
    assert name_key("  Hospital\tAUTHORITY ") == "hospital authority"
    assert name_key("ＨＡ") == "ha"


def test_remember_adds_each_name_once_and_joins_later_spellings():
    assert remember_bodies([HA]) == 3
    assert remember_bodies([HA]) == 0
    later = BodyEntry(
        market="HK", names=[BodyName("醫院管理局"), BodyName("医院管理局", "zh-hans")]
    )
    assert remember_bodies([later]) == 1
    body = PublicBody.objects.get()
    assert (body.name, body.market, body.origin) == ("Hospital Authority", "HK", "import")
    assert sorted(body.names.values_list("name", flat=True)) == [
        "HA",
        "Hospital Authority",
        "医院管理局",
        "醫院管理局",
    ]


def test_same_name_in_another_market_is_another_body():
    remember_bodies([HA, BodyEntry(market="SG", names=[BodyName("Hospital Authority")])])
    assert sorted(PublicBody.objects.values_list("market", flat=True)) == ["HK", "SG"]


def test_blank_and_one_letter_names_are_ignored():
    assert remember_bodies([BodyEntry(market="GB", names=[BodyName(" "), BodyName("X")])]) == 0
    assert not PublicBody.objects.exists()


def test_names_stream_for_the_gate_and_fingerprint_follows_changes():
    empty = directory_fingerprint()
    remember_bodies([HA])
    after_add = directory_fingerprint()
    assert after_add != empty
    assert {(n.name, n.market, n.form) for n in directory_names()} == {
        ("Hospital Authority", "HK", "full"),
        ("醫院管理局", "HK", "full"),
        ("HA", "HK", "abbreviation"),
    }
    name = PublicBodyName.objects.get(name="HA")
    name.name = "H.A."
    name.save()
    assert name.key == "h.a."
    assert directory_fingerprint() not in {empty, after_add}

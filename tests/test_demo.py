from collections import Counter

import pytest
from django.core.management import CommandError, call_command

from tenders.chinese import to_traditional
from tenders.demo import demo_records
from tenders.ids import is_synthetic
from tenders.markets import MARKET_CODES
from tenders.models import Category, SourceTender
from tenders.sanitize import RecordSecrets, scan
from tenders.vocabulary.coverage import vocabulary
from tenders.vocabulary.cpv import concept
from tests.conftest import T0
from tests.factories import SourceTenderFactory


def test_same_seed_and_clock_give_the_same_records():
    assert list(demo_records(300, seed=3, at=T0)) == list(demo_records(300, seed=3, at=T0))
    assert list(demo_records(50, seed=3, at=T0)) != list(demo_records(50, seed=4, at=T0))


def test_records_cover_every_market_and_category_with_synthetic_ids():
    records = list(demo_records(3000, seed=11, at=T0))
    assert {r.market for r in records} == set(MARKET_CODES)
    assert len({r.category_slug for r in records}) == 23
    assert len({r.listing_id for r in records}) == 3000
    assert all(is_synthetic(r.listing_id) for r in records)
    statuses = Counter(r.status for r in records)
    assert statuses["approved"] > 2400 and statuses["draft"] > 200 and statuses["withheld"] > 100
    assert all(r.withheld_reason for r in records if r.status == "withheld")
    assert 0.7 < sum(r.amount is not None for r in records) / 3000 < 0.9


def test_summaries_are_built_from_the_vocabulary_in_three_languages():
    checked = vocabulary()
    for record in demo_records(200, seed=1, at=T0):
        main = concept(record.concepts[0])
        assert record.summary_zh.startswith(f"采购内容：{main.zh}")
        assert record.summary_zht == to_traditional(record.summary_zh) != record.summary_zh
        if "Enquiries to" in record.summary_en or "Contact tenders@" in record.summary_en:
            continue  # a planted slip: the gate's business
        assert record.summary_en.startswith(main.en)
        for lang in ("en", "zh", "zht"):
            assert checked.unknown(getattr(record, f"summary_{lang}"), lang) == []


def test_only_the_planted_slips_trip_the_gate():
    flagged = clean = 0
    for r in demo_records(3000, seed=5, at=T0):
        if r.status != "approved":
            continue
        secrets = RecordSecrets(
            buyer_name=r.buyer_name,
            reference=r.reference,
            source_url=r.source_url,
            deadline=r.deadline,
            amount=r.amount,
            currency=r.currency,
            market=r.market,
        )
        findings = scan({"en": r.summary_en, "zh": r.summary_zh, "zht": r.summary_zht}, secrets)
        planted = "Enquiries to" in r.summary_en or "Contact tenders@" in r.summary_en
        assert bool(findings) == planted, (r.summary_en, findings)
        flagged += planted
        clean += not planted
    assert 10 < flagged < 60 and clean > 2400


@pytest.mark.django_db
def test_load_demo_creates_records_and_replaces_only_synthetic_ones(capsys):
    real = SourceTenderFactory(listing_id="AT-0123456789")
    call_command("load_demo", "--rows", "120", "--seed", "2", "--at", "2026-11-23T06:00:00Z")
    assert "Created 120 demo records" in capsys.readouterr().out
    first = list(
        SourceTender.objects.exclude(pk=real.pk)
        .order_by("listing_id")
        .values_list("listing_id", "summary_en", "deadline", "amount")
    )
    assert len(first) == 120
    with pytest.raises(CommandError, match="--replace"):
        call_command("load_demo", "--rows", "10")
    call_command(
        "load_demo", "--rows", "120", "--seed", "2", "--at", "2026-11-23T06:00:00Z", "--replace"
    )
    again = list(
        SourceTender.objects.exclude(pk=real.pk)
        .order_by("listing_id")
        .values_list("listing_id", "summary_en", "deadline", "amount")
    )
    assert again == first
    assert SourceTender.objects.filter(pk=real.pk).exists()


@pytest.mark.django_db
def test_vocabulary_is_seeded_and_traditional_names_are_the_hong_kong_conversion():
    convert = to_traditional
    categories = list(Category.objects.all())
    assert len(categories) == 23
    assert len({c.slug for c in categories}) == 23
    for c in categories:
        assert c.name_zht == convert(c.name_zh), c.slug
        assert c.name_en and c.name_zh != c.name_en
    from tenders.models import CurrencyRate

    assert set(CurrencyRate.objects.values_list("currency", flat=True)) == {
        "USD",
        "HKD",
        "MOP",
        "SGD",
        "GBP",
        "EUR",
        "AUD",
        "CAD",
    }

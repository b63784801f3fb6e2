"""``SourceTender.plan_digest``: the digest of a record's planning inputs, kept by the database.

Publication reuses a record's row while this digest holds, so it must be current after every
way a record is written. Each test compares the stored value with the same expression computed
afresh from the row as it is now: a write path that left it stale would fail.
"""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.db.models import F, Value
from django.db.models.functions import Concat

from tenders.curation import tenders_approve, tenders_withhold
from tenders.models import SourceTender
from tenders.models.digest import PLANNING_INPUTS, RecordDigest
from tenders.publication import planning
from tests.conftest import add_vocabulary_words
from tests.factories import SourceTenderFactory, category

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _summary_words(db):
    """This module's free-text summaries are about the gate's detectors: their words join the
    public vocabulary, as a second person would add them."""
    add_vocabulary_words(
        [
            ("en", "Saved through the model."),
            ("zh", "批量更新。"),
            ("zh", "公營機構採購網絡交換器及無線接入點。（修訂）"),
        ]
    )


def stored_and_fresh(*records) -> list[tuple[str, str]]:
    rows = SourceTender.objects.filter(pk__in=[r.pk for r in records]).order_by("pk")
    return list(
        rows.annotate(fresh=RecordDigest(*PLANNING_INPUTS)).values_list("plan_digest", "fresh")
    )


def assert_current(*records) -> list[str]:
    pairs = stored_and_fresh(*records)
    assert len(pairs) == len(records)
    for stored, fresh in pairs:
        assert len(stored) == 64 and stored == fresh
    return [stored for stored, _fresh in pairs]


def digest_of(record) -> str:
    return SourceTender.objects.values_list("plan_digest", flat=True).get(pk=record.pk)


def test_the_digest_covers_exactly_the_fields_planning_reads():
    assert planning.CANDIDATE_FIELDS[1:] == PLANNING_INPUTS


# A different value for each planning input (the record starts as the factory makes it).
CHANGES = {
    "listing_id": "AT-TEST-CHANGED000",
    "status": SourceTender.Status.DRAFT,
    "withheld_reason": "Kept back",
    "market": "SG",
    "category_id": None,  # another category, set in the test
    "deadline": None,  # a second later, set in the test
    "amount": Decimal("1000000.01"),
    "currency": "HKE",
    "lead_ok": False,
    "buyer_name": "Another buyer",
    "reference": "REF/2",
    "source_url": "https://procurement.example.gov.hk/notice/2",
    "title": "Another title",
    "description": "Another description \\ with a backslash",
    "summary_en": "Supply of network switches.",
    "summary_zh": "采购网络交换器。",
    "summary_zht": "採購網絡交換器。",
}


@pytest.mark.parametrize("field", PLANNING_INPUTS)
def test_each_planning_input_changes_the_digest_and_only_its_value_counts(field):
    assert set(CHANGES) == set(PLANNING_INPUTS)
    record = SourceTenderFactory()
    before = digest_of(record)
    original = getattr(record, field)
    changed = CHANGES[field]
    if field == "category_id":
        changed = category("construction-works").pk
        assert changed != original
    if field == "deadline":
        changed = original + timedelta(seconds=1)
    SourceTender.objects.filter(pk=record.pk).update(**{field: changed})
    after = assert_current(record)[0]
    assert after != before
    SourceTender.objects.filter(pk=record.pk).update(**{field: original})
    assert assert_current(record)[0] == before


def test_fields_planning_does_not_read_leave_the_digest_alone():
    record = SourceTenderFactory()
    before = digest_of(record)
    SourceTender.objects.filter(pk=record.pk).update(created_at=record.created_at - timedelta(1))
    record.save()  # updated_at moves
    assert assert_current(record) == [before]


def test_text_moved_from_one_field_to_the_next_changes_the_digest():
    # The concatenation of the two fields stays the same; their lengths frame them apart.
    record = SourceTenderFactory(title="ab", description="c")
    before = digest_of(record)
    SourceTender.objects.filter(pk=record.pk).update(title="a", description="bc")
    assert assert_current(record) != [before]
    SourceTender.objects.filter(pk=record.pk).update(title="ab", description="c")
    assert assert_current(record) == [before]


def test_every_write_path_keeps_the_digest_current():
    records = SourceTenderFactory.create_batch(3)
    assert_current(*records)
    seen = {digest_of(records[0])}

    def changed() -> None:
        assert_current(*records)
        now = digest_of(records[0])
        assert now not in seen
        seen.add(now)

    first = records[0]
    first.summary_en = "Saved through the model."
    first.save()
    changed()
    first.deadline += timedelta(days=1)
    first.save(update_fields=["deadline"])
    changed()
    first.summary_zh = "批量更新。"
    SourceTender.objects.bulk_update([first], ["summary_zh"])
    changed()
    SourceTender.objects.filter(pk=first.pk).update(
        summary_zht=Concat(F("summary_zht"), Value("（修訂）"))
    )
    changed()
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {SourceTender._meta.db_table} SET amount = amount + 1 WHERE id = %s",
            [first.pk],
        )
    changed()
    approved = digest_of(first)
    tenders_withhold(ids=[first.pk], reason="Duplicate of another notice", user=None)
    changed()
    assert tenders_approve(ids=[first.pk], user=None).done
    # Approved again with nothing else changed: the digest it had, so its row can be reused.
    assert assert_current(*records)[0] == approved
    created = SourceTender.objects.bulk_create(
        [SourceTenderFactory.build(listing_id=f"AT-TEST-BULK{n:06d}") for n in range(2)]
    )
    assert_current(*created)

"""Curation services: drafting, checking, approving, withholding, and publication from the
admin, each bulk, atomic and logged with the acting user."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.auth import get_user_model

from tenders import curation
from tenders.curation import CurationError
from tenders.models import Issue, SourceTender
from tenders.publication import passes
from tenders.read.selectors import current_issue
from tenders.sanitize.loading import GateData, current_gate
from tenders.vocabulary.cpv import concept
from tests.factories import SourceTenderFactory, category

pytestmark = pytest.mark.django_db

DRAFT = SourceTender.Status.DRAFT
APPROVED = SourceTender.Status.APPROVED
WITHHELD = SourceTender.Status.WITHHELD


@pytest.fixture
def staff():
    return get_user_model().objects.create_user("curator", password="x", is_staff=True)


def log_of(obj):
    return list(
        LogEntry.objects.filter(object_id=str(obj.pk), content_type__model=obj._meta.model_name)
        .order_by("pk")
        .values_list("user__username", "action_flag", "change_message")
    )


# --- drafting from concepts ----------------------------------------------------------------


def test_draft_summaries_uses_each_records_own_concepts_and_sends_approved_back(staff):
    scanner = SourceTenderFactory(concepts=["33112200"], market="CA")
    chairs = SourceTenderFactory(status=DRAFT, concepts=["39112000"], market="SG")

    result = curation.tenders_draft_summaries(ids=[scanner.pk, chairs.pk], user=staff)

    assert [t.pk for t in result.done] == [scanner.pk, chairs.pk]
    assert result.refused == {} and result.notes == {}
    scanner.refresh_from_db()
    chairs.refresh_from_db()
    assert scanner.status == DRAFT and chairs.status == DRAFT
    assert scanner.summary_en == "Ultrasonic unit. Supplies for a public buyer in Canada."
    assert scanner.summary_zh == "采购内容：超声波设备。加拿大公共机构采购货物。"
    assert scanner.summary_zht == "採購內容：超聲波設備。加拿大公營機構採購貨物。"
    assert chairs.summary_en.startswith(concept("39112000").en + ". Supplies for a public")
    assert log_of(scanner) == [("curator", CHANGE, "Drafted the three summaries.")]


def test_a_record_without_concepts_names_its_categorys_broad_concept_and_says_so(staff):
    record = SourceTenderFactory(status=DRAFT, category=category("medical-supplies"), market="MO")
    result = curation.tenders_draft_summaries(ids=[record.pk], user=staff)
    assert result.notes == {
        record.listing_id: ["no concept: the summary names the category's broad concept; pick one"]
    }
    record.refresh_from_db()
    assert record.summary_zh == "采购内容：医疗设备、药品和个人护理产品。澳门公共机构采购货物。"
    assert record.summary_zht == "採購內容：醫療設備、藥品和個人護理產品。澳門公營機構採購貨物。"


def test_setting_concepts_drafts_from_them_and_refuses_unknown_codes(staff):
    record = SourceTenderFactory(status=DRAFT, market="HK")
    curation.tender_set_concepts(tender_id=record.pk, codes=["33112200", "33100000"], user=staff)
    record.refresh_from_db()
    assert record.concepts == ["33112200", "33100000"]
    assert record.summary_zh.startswith("采购内容：超声波设备（另含：医疗设备）。香港公共机构")
    assert log_of(record)[-1][2].startswith("Concepts: 33112200 Ultrasonic unit, 33100000")
    for codes, message in (
        (["12345678"], "Not CPV 2008 codes"),
        (["33112200"] * 2, "Each concept once"),
        (["03000000", "09000000", "14000000", "15000000"], "at most 3"),
    ):
        with pytest.raises(CurationError, match=message):
            curation.tender_set_concepts(tender_id=record.pk, codes=codes, user=staff)
    record.refresh_from_db()
    assert record.concepts == ["33112200", "33100000"]


def test_approval_refuses_words_outside_the_vocabulary_until_a_second_person_adds_them(staff):
    record = SourceTenderFactory(
        status=DRAFT, summary_en="Ultrasonic unit for the Kitchener clinic.", concepts=["33112200"]
    )
    result = curation.tenders_approve(ids=[record.pk], user=staff)
    assert result.refused == {
        record.listing_id: ["a word not in the public vocabulary in summary_en: Kitchener"]
    }
    from tenders import allowances

    allowances.allowance_add(
        kind="out_of_vocabulary",
        phrase="Kitchener",
        reason="a brand of ultrasound probe",
        tender=None,
        user=staff,
    )
    assert [t.pk for t in curation.tenders_approve(ids=[record.pk], user=staff).done] == [record.pk]


def test_approve_refuses_records_with_findings_and_approves_the_rest(staff):
    clean = SourceTenderFactory(status=DRAFT)
    leaking = SourceTenderFactory(status=DRAFT, summary_en="Call +852 2345 6789 for details.")
    empty = SourceTenderFactory(status=DRAFT, summary_zht="")
    no_rate = SourceTenderFactory(status=DRAFT, amount=Decimal("9000"), currency="JPY")

    result = curation.tenders_approve(ids=[clean.pk, leaking.pk, empty.pk, no_rate.pk], user=staff)

    assert [t.pk for t in result.done] == [clean.pk]
    assert result.refused == {
        leaking.listing_id: ["phone number in summary_en: Call +852 2345 6789 for details."],
        empty.listing_id: ["missing summary: summary_zht"],
        no_rate.listing_id: ["No USD rate for currency 'JPY'; add it under Currency rates."],
    }
    statuses = dict(SourceTender.objects.values_list("pk", "status"))
    assert statuses == {clean.pk: APPROVED, leaking.pk: DRAFT, empty.pk: DRAFT, no_rate.pk: DRAFT}
    assert log_of(clean) == [("curator", CHANGE, "Approved: the gate found nothing.")]
    assert log_of(leaking) == []


def test_approve_costs_the_same_queries_for_one_record_and_fifty(staff, django_assert_num_queries):
    one = [SourceTenderFactory(status=DRAFT).pk]
    fifty = [SourceTenderFactory(status=DRAFT).pk for _ in range(50)]
    current_gate(fresh=True)  # built once per process while the directory holds
    passes.check_of(GateData.read())  # the check of this gate, made by the first approval
    # rates, gate data (directory, allow-lists), lock+read, update, the gate check, the passes,
    # content type, log, savepoint
    with django_assert_num_queries(10):
        curation.tenders_approve(ids=one, user=staff)
    with django_assert_num_queries(10):
        curation.tenders_approve(ids=fifty, user=staff)
    assert SourceTender.objects.filter(status=APPROVED).count() == 51


def test_withhold_needs_a_reason_and_keeps_it(staff):
    records = [SourceTenderFactory(), SourceTenderFactory(status=DRAFT)]
    ids = [r.pk for r in records]
    with pytest.raises(CurationError, match="Give a reason"):
        curation.tenders_withhold(ids=ids, reason=" <p> </p> ", user=staff)
    assert set(SourceTender.objects.values_list("status", flat=True)) == {APPROVED, DRAFT}

    result = curation.tenders_withhold(ids=ids, reason="Buyer asked us not to list it", user=staff)

    assert len(result.done) == 2
    assert set(SourceTender.objects.values_list("status", "withheld_reason")) == {
        (WITHHELD, "Buyer asked us not to list it")
    }
    assert log_of(records[0]) == [("curator", CHANGE, "Withheld: Buyer asked us not to list it")]
    with pytest.raises(CurationError, match="Select at least one record"):
        curation.tenders_withhold(ids=[], reason="x", user=staff)


def test_check_reports_findings_and_logs_them(staff):
    clean = SourceTenderFactory()
    dirty = SourceTenderFactory(summary_zh="请联络 buyer@example.gov.hk")
    results = curation.tender_check(ids=[clean.pk, dirty.pk], user=staff)
    assert {k: [f.kind for f in v] for k, v in results.items()} == {
        clean.listing_id: [],
        dirty.listing_id: ["email"],
    }
    assert log_of(clean) == [("curator", CHANGE, "Checked: no findings.")]
    assert log_of(dirty) == [
        (
            "curator",
            CHANGE,
            "Checked: 1 finding(s): email in summary_zh: '请联络 buyer@example.gov.hk'",
        )
    ]


# --- publication from the admin ------------------------------------------------------------


def test_preview_publish_and_withdraw_are_logged_with_the_user(staff, t0):
    keep = SourceTenderFactory()
    leak = SourceTenderFactory()
    SourceTenderFactory(summary_en="See www.example.org")

    preview = curation.issue_preview(user=staff, now=t0)
    assert (preview.published, preview.withheld, preview.issue) == (2, 1, None)
    assert not LogEntry.objects.exists()  # nothing current to log against yet

    published = curation.issue_publish(user=staff, now=t0)
    issue = published.issue
    assert issue.published_by == staff
    assert log_of(issue) == [
        (
            "curator",
            ADDITION,
            f"Published 2026-W48: 2 rows (2 new, 0 continuing, 0 dropped), 1 withheld; "
            f"etag {issue.snapshot_etag}.",
        )
    ]

    after = curation.issue_withdraw_row(
        listing_id=f" {leak.listing_id.lower()} ",
        reason="buyer named",
        user=staff,
        now=t0 + timedelta(hours=1),
    )
    assert current_issue() == after and after.snapshot_etag != issue.snapshot_etag
    assert set(after.rows.values_list("asaptic_id", flat=True)) == {keep.listing_id}
    assert log_of(after) == [
        (
            "curator",
            ADDITION,
            f"Withdrew {leak.listing_id}: buyer named; etag {after.snapshot_etag}.",
        )
    ]
    assert log_of(leak) == [("curator", CHANGE, "Withdrawn from 2026-W48: buyer named")]


def test_withdraw_refuses_bad_input_with_a_clear_message(staff, t0):
    record = SourceTenderFactory()
    with pytest.raises(CurationError, match="Nothing is published yet"):
        curation.issue_withdraw_row(listing_id=record.listing_id, reason="x", user=staff)
    curation.issue_publish(user=staff, now=t0)
    with pytest.raises(CurationError, match="is not a listing id"):
        curation.issue_withdraw_row(listing_id="DROP TABLE", reason="x", user=staff)
    with pytest.raises(CurationError, match="not in the current snapshot"):
        curation.issue_withdraw_row(listing_id="AT-TEST-ZZZZZZZZZZ", reason="x", user=staff)
    with pytest.raises(CurationError, match="Give a reason"):
        curation.issue_withdraw_row(listing_id=record.listing_id, reason="  ", user=staff)
    assert Issue.objects.count() == 1 and current_issue().rows_total == 1


def test_publication_re_runs_the_gate_on_approved_records(staff, t0):
    """Approval is not the last word: a record approved earlier whose private facts changed
    since (here: the buyer's name now appears in its summary) is withheld at publication, with
    the reason staff see in the issue."""
    record = SourceTenderFactory(summary_en="Network switches for the Harbour Office.")
    curation.tenders_approve(ids=[record.pk], user=staff)
    SourceTender.objects.filter(pk=record.pk).update(buyer_name="Harbour Office")

    summary = curation.issue_publish(user=staff, now=t0)

    assert (summary.published, summary.withheld) == (0, 1)
    assert summary.withheld_samples == [
        (
            record.listing_id,
            ["sanitization: buyer_name in summary_en: '…rk switches for the Harbour Office.'"],
        )
    ]
    assert summary.issue.withheld_records.get().reasons == summary.withheld_samples[0][1]

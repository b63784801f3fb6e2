"""Curation services: drafting, checking, approving, withholding, and publication from the
admin, each bulk, atomic and logged with the acting user."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.auth import get_user_model

from tenders import curation
from tenders.chinese import to_traditional
from tenders.curation import CurationError
from tenders.drafting import draft_summaries
from tenders.models import Issue, SourceTender
from tenders.publication import passes
from tenders.sanitize import RecordSecrets, scan
from tenders.sanitize.loading import GateData, current_gate
from tenders.selectors import current_issue
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


# --- drafting (pure) -----------------------------------------------------------------------


def test_drafts_are_deterministic_templates_per_kind_of_category():
    goods = draft_summaries(
        category_slug="it-hardware",
        category_en="IT hardware and equipment",
        category_zh="信息技术硬件及设备",
        market="SG",
        value_band="500k_2m",
        need_en="supply of laptop computers",
        need_zh="供应手提电脑",
    )
    assert goods.en == (
        "Supply of laptop computers. A public-sector buyer in Singapore is looking for "
        "suppliers of IT hardware and equipment, a mid-sized contract."
    )
    assert (
        goods.zh
        == "新加坡公营机构采购项目——供应手提电脑。现招募信息技术硬件及设备供应商，属中等规模的合约。"
    )
    assert goods.zht == to_traditional(goods.zh)
    works = draft_summaries(
        category_slug="civil-engineering",
        category_en="Civil engineering and infrastructure",
        category_zh="土木工程及基础设施",
        market="HK",
        value_band=None,
    )
    assert works.en == (
        "Civil engineering and infrastructure. A public-sector buyer in Hong Kong is looking "
        "for contractors for civil engineering and infrastructure."
    )
    assert works.zh == "香港公营机构采购项目——土木工程及基础设施。现招募土木工程及基础设施承建商。"
    service = draft_summaries(
        category_slug="cleaning-hygiene",
        category_en="Cleaning and hygiene services",
        category_zh="清洁及卫生服务",
        market="GB",
        value_band="gt_10m",
    )
    assert service.zh.endswith("现招募清洁及卫生服务供应商，属大型合约。")


def test_every_category_market_and_band_drafts_clean_text():
    from tenders.demo import NEEDS
    from tenders.markets import MARKETS
    from tenders.models import Category

    for cat in Category.objects.all():
        for market in MARKETS:
            for band in (None, "lt_500k", "500k_2m", "2m_10m", "gt_10m"):
                need_en, need_zh = NEEDS[cat.slug][0]
                draft = draft_summaries(
                    category_slug=cat.slug,
                    category_en=cat.name_en,
                    category_zh=cat.name_zh,
                    market=market,
                    value_band=band,
                    need_en=need_en,
                    need_zh=need_zh,
                )
                assert scan(draft.as_dict(), RecordSecrets(market=market)) == [], draft


# --- record services -----------------------------------------------------------------------


def test_draft_summaries_fills_all_three_and_sends_approved_records_back_to_draft(staff):
    approved = SourceTenderFactory(amount=Decimal("8000000"), currency="HKD")
    draft = SourceTenderFactory(status=DRAFT, amount=None, currency="", market="SG")

    result = curation.tenders_draft_summaries(
        ids=[approved.pk, draft.pk],
        user=staff,
        need_en="  Supply of <b>network</b> switches ",
        need_zh="供应网络交换器",
    )

    assert [t.pk for t in result.done] == [approved.pk, draft.pk]
    assert result.refused == {} and result.notes == {}
    approved.refresh_from_db()
    draft.refresh_from_db()
    assert approved.status == DRAFT and draft.status == DRAFT
    assert approved.summary_en == (
        "Supply of network switches. A public-sector buyer in Hong Kong is looking for "
        "suppliers of IT hardware and equipment, a mid-sized contract."
    )
    assert approved.summary_zh == (
        "香港公营机构采购项目——供应网络交换器。现招募信息技术硬件及设备供应商，属中等规模的合约。"
    )
    assert approved.summary_zht == to_traditional(approved.summary_zh)
    assert draft.summary_en.endswith(
        "in Singapore is looking for suppliers of IT hardware and equipment."
    )
    assert log_of(approved) == [("curator", CHANGE, "Drafted the three summaries.")]


def test_a_need_that_names_the_buyer_is_refused_for_that_record_only(staff):
    harbour = SourceTenderFactory(status=DRAFT)  # buyer: Harbour District Works Office
    other = SourceTenderFactory(status=DRAFT, buyer_name="Leeds City Council", market="GB")
    before = harbour.summary_en

    result = curation.tenders_draft_summaries(
        ids=[harbour.pk, other.pk],
        user=staff,
        need_en="Road works for Harbour District Works Office",
    )

    assert [t.pk for t in result.done] == [other.pk]
    assert list(result.refused) == [harbour.listing_id]
    assert result.refused[harbour.listing_id][0].startswith("the need contains the buyer's name")
    harbour.refresh_from_db()
    assert harbour.summary_en == before and log_of(harbour) == []


def test_a_need_with_generic_findings_is_refused_and_nothing_is_written(staff):
    record = SourceTenderFactory(status=DRAFT)
    before = record.summary_en
    with pytest.raises(CurationError, match="e-mail address"):
        curation.tenders_draft_summaries(
            ids=[record.pk], user=staff, need_en="Ask tenders@example.org"
        )
    with pytest.raises(CurationError, match="under 160 characters"):
        curation.tenders_draft_summaries(ids=[record.pk], user=staff, need_en="x" * 161)
    record.refresh_from_db()
    assert record.summary_en == before and not LogEntry.objects.exists()


def test_draft_without_a_rate_notes_it_and_drafts_without_a_size(staff):
    record = SourceTenderFactory(status=DRAFT, amount=Decimal("5000"), currency="JPY")
    result = curation.tenders_draft_summaries(ids=[record.pk], user=staff)
    assert result.notes == {
        record.listing_id: [
            "drafted without a size: No USD rate for currency 'JPY'; add it under Currency rates."
        ]
    }
    record.refresh_from_db()
    assert record.summary_en == (
        "IT hardware and equipment. A public-sector buyer in Hong Kong is looking for "
        "suppliers of IT hardware and equipment."
    )


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


def test_a_draft_keeps_the_category_vocabulary(staff):
    record = SourceTenderFactory(status=DRAFT, category=category("medical-supplies"), market="MO")
    curation.tenders_draft_summaries(ids=[record.pk], user=staff)
    record.refresh_from_db()
    assert record.summary_zh == (
        "澳门公营机构采购项目——医疗用品及设备。现招募医疗用品及设备供应商，属规模较小的合约。"
    )
    assert record.summary_zht == (
        "澳門公營機構採購項目——醫療用品及設備。現招募醫療用品及設備供應商，屬規模較小的合約。"
    )


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

"""Passes of the gate kept with approved records: publication plans a record that passed the
gate at approval (or in ``check_gate``) without asking the gate again, while nothing the pass
depends on changed; any change that could make the gate decide otherwise sends the record
through the gate again, and a publication with passes withholds exactly what one without them
withholds, with identical rows."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from tenders import curation, publication
from tenders.allowances import allowance_add, allowance_remove
from tenders.directory import BodyEntry, BodyName, remember_bodies
from tenders.models import GateCheck, PublicBodyName, SnapshotRow, SourceTender
from tenders.publication import passes, planning, publish
from tenders.sanitize import Gate, fingerprint
from tests.conftest import add_vocabulary_words
from tests.factories import SourceTenderFactory

pytestmark = pytest.mark.django_db

DRAFT = SourceTender.Status.DRAFT
PHONE = "Call +852 2123 4567 for the documents."


@pytest.fixture(autouse=True)
def _summary_words(db):
    """This module's free-text summaries are about the gate's detectors: their words join the
    public vocabulary, as a second person would add them."""
    add_vocabulary_words(
        [
            ("en", PHONE),
            ("en", "Pier repairs for the Harbour Ferry Authority at two piers."),
            ("en", "Road works at a site managed by HyD in Kowloon."),
            ("en", "Supply of plotters for the ArchSD studios."),
        ]
    )


def rows(issue) -> list[tuple]:
    return list(
        SnapshotRow.objects.filter(issue=issue)
        .order_by("sort_key")
        .values_list(*planning.ROW_VALUES)
    )


def withheld(summary) -> dict[str, set[str]]:
    return {
        listing_id: {r.split(":")[0] for r in reasons}
        for listing_id, reasons in summary.withheld_samples
    }


def approved(*records) -> list[SourceTender]:
    """Approve draft records as a curator does (each passes the gate, and keeps its pass)."""
    result = curation.tenders_approve(ids=[r.pk for r in records], user=None)
    assert result.refused == {}
    return [SourceTender.objects.get(pk=r.pk) for r in records]


def without_passes(now, monkeypatch) -> publication.PublicationSummary:
    """The same week published again as if no record held a pass, and with no row to reuse:
    the gate asked about every record."""
    with monkeypatch.context() as patched:
        patched.setattr(publish.passes, "pass_changes", lambda eligible, data: {})
        patched.setattr(publish, "_last_issue", lambda: None)
        return publication.publish_issue(now=now)


@pytest.fixture
def asked(monkeypatch) -> set[int]:
    """The records the gate is asked about (in this process) from now on."""
    seen: set[int] = set()
    scan_record = Gate.scan_record

    def spy(self, record, summaries=None):
        seen.add(record.pk)
        return scan_record(self, record, summaries)

    monkeypatch.setattr(Gate, "scan_record", spy)
    return seen


def test_approval_records_a_pass_only_for_what_it_approves():
    clean, leaking = SourceTenderFactory(status=DRAFT), SourceTenderFactory(status=DRAFT)
    SourceTender.objects.filter(pk=leaking.pk).update(summary_en=PHONE)
    result = curation.tenders_approve(ids=[clean.pk, leaking.pk], user=None)
    assert [t.pk for t in result.done] == [clean.pk] and list(result.refused) == [
        leaking.listing_id
    ]
    clean, leaking = (SourceTender.objects.get(pk=r.pk) for r in (clean, leaking))
    assert clean.gate_passed == clean.plan_digest and len(clean.gate_passed) == 64
    assert clean.gate_check.code == passes.gate_code()
    assert clean.gate_check.data["directory_mark"] == PublicBodyName.objects.latest("pk").pk
    assert (leaking.gate_passed, leaking.gate_check) == ("", None)


def test_the_admin_check_records_a_pass_for_clean_approved_records_only(t0, asked):
    # Approved without curation (a data load), so no record holds a pass yet.
    clean, leaking = SourceTenderFactory(), SourceTenderFactory(summary_en=PHONE)
    draft = SourceTenderFactory(status=DRAFT)
    assert not SourceTender.objects.filter(gate_check__isnull=False).exists()

    results = curation.tender_check(ids=[clean.pk, leaking.pk, draft.pk], user=None)

    assert {k: [f.kind for f in v] for k, v in results.items()} == {
        clean.listing_id: [],
        leaking.listing_id: ["phone"],
        draft.listing_id: [],
    }
    held = SourceTender.objects.filter(gate_check__isnull=False)
    assert list(held.values_list("pk", flat=True)) == [clean.pk]
    clean = held.get()
    assert clean.gate_passed == clean.plan_digest and clean.gate_check.code == passes.gate_code()
    assert curation.tender_check(ids=[], user=None) == {}

    asked.clear()
    summary = publication.publish_issue(now=t0)
    assert asked == {leaking.pk}
    assert (summary.published, summary.passed, summary.withheld) == (1, 1, 1)


def test_approved_records_are_published_without_the_gate(t0, asked, monkeypatch):
    records = approved(*(SourceTenderFactory(status=DRAFT, market=m) for m in ("HK", "SG", "GB")))
    # Approved without curation (a data load): no pass, so the gate is asked, and holds it.
    loaded = SourceTenderFactory(summary_en=PHONE)
    staff_withheld = SourceTenderFactory(status=SourceTender.Status.WITHHELD, withheld_reason="x")
    asked.clear()  # approval asked the gate about the first three

    summary = publication.publish_issue(now=t0)

    assert asked == {loaded.pk}
    assert (summary.published, summary.passed, summary.withheld) == (3, 3, 2)
    assert withheld(summary) == {
        loaded.listing_id: {"sanitization"},
        staff_withheld.listing_id: {"withheld by staff"},
    }
    asked.clear()
    checked = without_passes(t0 + timedelta(hours=1), monkeypatch)
    assert asked == {r.pk for r in records} | {loaded.pk}
    assert (checked.published, checked.passed) == (3, 0)
    assert rows(summary.issue) == rows(checked.issue) and len(rows(checked.issue)) == 3


def test_planning_workers_trust_passes_too(t0, settings, monkeypatch):
    settings.TENDERS_PUBLISH_PARALLEL_FROM = 0
    settings.TENDERS_PUBLISH_WORKERS = 2
    approved(*(SourceTenderFactory(status=DRAFT) for _ in range(5)))
    named = approved(
        SourceTenderFactory(
            status=DRAFT, summary_en="Pier repairs for the Harbour Ferry Authority at two piers."
        )
    )[0]
    remember_bodies([BodyEntry(market="HK", names=[BodyName("Harbour Ferry Authority", "en")])])

    summary = publication.publish_issue(now=t0)
    checked = without_passes(t0 + timedelta(hours=1), monkeypatch)

    assert (summary.published, summary.passed, summary.withheld) == (5, 5, 1)
    assert (checked.published, checked.passed, checked.withheld) == (5, 0, 1)
    assert withheld(summary) == withheld(checked) == {named.listing_id: {"sanitization"}}
    assert rows(summary.issue) == rows(checked.issue)


# Changes after approval. Each returns the records the gate must be asked about again.


def _name_added_that_occurs(records):
    remember_bodies([BodyEntry(market="HK", names=[BodyName("Harbour Ferry Authority", "en")])])
    return {records["named"].pk}


def _unrelated_name_added(records):
    remember_bodies([BodyEntry(market="SG", names=[BodyName("Jurong Canal Board", "en")])])
    return set()


def _own_allowance_removed(records):
    allowance_remove(allowance=records["own allowance"], user=None)
    return {records["own"].pk}


def _global_allowance_removed(records):
    allowance_remove(allowance=records["global allowance"], user=None)
    return {records["shared"].pk}


def _summary_updated_behind_the_services(records):
    SourceTender.objects.filter(pk=records["plain"].pk).update(summary_en=PHONE)
    return {records["plain"].pk}


def _directory_name_edited(records):
    name = PublicBodyName.objects.order_by("pk").first()
    name.name += " (former name)"
    name.save()
    return {r.pk for key, r in records.items() if "allowance" not in key}


def _gate_rules_changed(records):
    fingerprint.GATE_VERSION += 1
    return {r.pk for key, r in records.items() if "allowance" not in key}


@pytest.mark.parametrize(
    ("change", "withheld_now"),
    [
        (_name_added_that_occurs, {"named"}),
        (_unrelated_name_added, set()),
        (_own_allowance_removed, {"own"}),
        (_global_allowance_removed, {"shared"}),
        (_summary_updated_behind_the_services, {"plain"}),
        (_directory_name_edited, set()),
        (_gate_rules_changed, set()),
    ],
)
def test_a_change_since_approval_sends_the_records_it_can_affect_through_the_gate(
    t0, asked, monkeypatch, change, withheld_now
):
    monkeypatch.setattr(fingerprint, "GATE_VERSION", fingerprint.GATE_VERSION)
    records = {
        "plain": SourceTenderFactory(status=DRAFT),
        "named": SourceTenderFactory(
            status=DRAFT, summary_en="Pier repairs for the Harbour Ferry Authority at two piers."
        ),
        "own": SourceTenderFactory(
            status=DRAFT, summary_en="Road works at a site managed by HyD in Kowloon."
        ),
        "shared": SourceTenderFactory(
            status=DRAFT, summary_en="Supply of plotters for the ArchSD studios."
        ),
    }
    records["own allowance"] = allowance_add(
        kind="public_body", phrase="HyD", reason="A depot", tender=records["own"], user=None
    )
    records["global allowance"] = allowance_add(
        kind="public_body", phrase="ArchSD studios", reason="A brand", tender=None, user=None
    )
    approved(*(records[key] for key in ("plain", "named", "own", "shared")))
    expected = change(records)
    asked.clear()

    summary = publication.publish_issue(now=t0)

    assert asked == expected
    assert summary.passed == 4 - len(expected)
    assert set(withheld(summary)) == {records[key].listing_id for key in withheld_now}
    checked = without_passes(t0 + timedelta(hours=1), monkeypatch)
    assert withheld(summary) == withheld(checked)
    assert rows(summary.issue) == rows(checked.issue)
    assert len(rows(summary.issue)) == 4 - len(withheld_now)


def test_check_gate_records_passes_for_clean_approved_records_only(asked):
    soon = timezone.now() + timedelta(days=20)
    clean = [SourceTenderFactory(deadline=soon) for _ in range(3)]
    leaking = SourceTenderFactory(deadline=soon, summary_en=PHONE)
    SourceTenderFactory(deadline=soon, status=DRAFT)  # not approved: not checked
    SourceTenderFactory(deadline=timezone.now() - timedelta(days=400))  # long closed: left

    out = StringIO()
    call_command("check_gate", stdout=out, stderr=StringIO())

    assert "Checked 4 approved records: 3 passed, 1 with findings" in out.getvalue()
    assert leaking.listing_id in out.getvalue()
    held = SourceTender.objects.filter(gate_check__isnull=False)
    assert sorted(held.values_list("pk", flat=True)) == sorted(r.pk for r in clean)
    assert all(r.gate_passed == r.plan_digest for r in held)
    assert GateCheck.objects.count() == 1

    asked.clear()
    checked, found = passes.check_approved()  # only what holds no pass: the leaking one
    assert (checked, found, asked) == (1, [leaking.listing_id], {leaking.pk})
    assert passes.check_approved(everything=True)[0] == 4

    summary = publication.publish_issue()
    assert (summary.published, summary.passed, summary.withheld) == (3, 3, 1)

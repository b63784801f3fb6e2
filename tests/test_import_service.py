"""The import service end to end on the real samples, the command, and a publication after.

Every sample in ../shared/data and the constructed HK fixture are imported; counts are exact
per market; a publication afterwards serves the imported rows with no contact detail, buyer
name or reference in any public row.
"""

import re
import shutil
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tenders import curation
from tenders.importers.service import ImportFailed, import_notices
from tenders.models import (
    ImportedNotice,
    ImportRun,
    Issue,
    PublicBody,
    PublicBodyName,
    SnapshotRow,
    SourceTender,
)
from tenders.publication import publish_issue

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
OCDS = DATA / "ocds"
EFORMS = DATA / "eforms"
HK_FIXTURE = Path(__file__).resolve().parent / "data" / "gld"
CLOSED = SourceTender.Status.CLOSED
DRAFT = SourceTender.Status.DRAFT
APPROVED = SourceTender.Status.APPROVED

SAMPLES = [
    ("ocds", OCDS / "gb-contracts-finder", "GB"),
    ("ocds", OCDS / "fictional-example-1.1", "GB"),
    ("ocds", OCDS / "au-nsw-etendering", "AU"),
    ("ocds", OCDS / "ca-buyandsell-contracts-bilingual", "CA"),
    ("ocds", OCDS / "ca-buyandsell-tenders-2014", "CA"),
    ("eforms", EFORMS, None),
    ("gld", HK_FIXTURE, None),
]


def counts(run: ImportRun) -> dict:
    return {
        "read": run.read,
        "created": run.created,
        "updated": run.updated,
        "unchanged": run.unchanged,
        "closed": run.closed,
        "skipped": run.skipped,
        "failed": run.failed,
        "state": run.state,
    }


def record(scheme: str, notice_id: str) -> SourceTender:
    return (
        ImportedNotice.objects.select_related("tender")
        .get(scheme=scheme, notice_id=notice_id)
        .tender
    )


def test_every_sample_imports_then_publishes_without_leaks(settings, t0):
    runs = [import_notices(fmt, str(path), market=market) for fmt, path, market in SAMPLES]
    assert [counts(r) for r in runs] == [
        {"read": 21, "created": 11, "updated": 0, "unchanged": 0, "closed": 8, "skipped": {},
         "failed": 0, "state": "completed"},
        {"read": 6, "created": 1, "updated": 0, "unchanged": 0, "closed": 1, "skipped": {},
         "failed": 0, "state": "completed"},
        {"read": 10, "created": 10, "updated": 0, "unchanged": 0, "closed": 0, "skipped": {},
         "failed": 0, "state": "completed"},
        {"read": 22, "created": 0, "updated": 0, "unchanged": 0, "closed": 0,
         "skipped": {"award or contract only (no tender)": 11}, "failed": 0, "state": "completed"},
        {"read": 5513, "created": 5513, "updated": 0, "unchanged": 0, "closed": 0, "skipped": {},
         "failed": 0, "state": "completed"},
        {"read": 11, "created": 8, "updated": 0, "unchanged": 0, "closed": 1,
         "skipped": {"award notice (not an opportunity)": 1}, "failed": 0, "state": "completed"},
        {"read": 3, "created": 3, "updated": 0, "unchanged": 0, "closed": 0, "skipped": {},
         "failed": 0, "state": "completed"},
    ]  # fmt: skip
    by_market = {
        m: SourceTender.objects.filter(market=m).count() for m in ("GB", "AU", "CA", "EU", "HK")
    }
    assert by_market == {"GB": 12, "AU": 10, "CA": 5513, "EU": 8, "HK": 3}

    # The GB duplicates (one release under two id formats) collapsed: 21 files, 11 records.
    gb = ImportedNotice.objects.filter(notice_id__startswith="ocds-b5fd17-")
    assert gb.count() == 11
    # The fictional procedure: merged current state, amended deadline, awarded so closed.
    fictional = record("ocds", "ocds-213czf-000-00001")
    assert fictional.deadline == datetime(2010, 4, 8, 18, 0, tzinfo=UTC)
    assert (fictional.status, fictional.imported.closed_reason) == (
        CLOSED,
        "awarded (1 award(s), 1 contract(s))",
    )
    # The cancelled eForms procedure is closed; the one changed by a change notice is updated.
    cancelled = record("eforms", "4805c409-5939-4be9-8abd-837f7a5fee23")
    assert (cancelled.status, cancelled.imported.closed_reason) == (
        CLOSED,
        "cancelled by the buyer (change notice with reason cancel)",
    )
    moved = record("eforms", "31f258b6-5eb2-4875-8997-affa3cdce27c")
    assert (moved.status, moved.deadline) == (DRAFT, datetime(2020, 6, 12, 11, 0, tzinfo=UTC))
    # Built from the vocabulary: the concept (or the broad category), the kind of contract, the
    # buyer's kind and the market; never the title, which names the buyer here.
    masks = record("gld", "A9900012026")
    assert masks.category.slug == "medical-supplies"
    assert (
        masks.summary_zht.startswith("採購內容：") and "香港公營機構採購貨物。" in masks.summary_zht
    )
    assert masks.summary_en.endswith("Supplies for a public buyer in Hong Kong.")
    # A category guessed from the title's keywords says so (no code, no concept named).
    cleaning = record("gld", "FEHD/T/2026/0042")
    assert "category guessed (keywords): check it" in cleaning.imported.notes
    assert cleaning.concepts == ["90900000"]  # the category's broad concept
    notebooks = record("gld", "GLD/T/2026/0117")
    assert "Government Logistics" not in notebooks.summary_en
    assert "物流服務署" not in notebooks.summary_zht
    assert any(
        note.startswith(("concept guessed from the title", "no specific concept found"))
        for note in notebooks.imported.notes
    )
    # Every buyer, department and contact name is in the directory, in each language given.
    directory = set(
        PublicBodyName.objects.values_list("body__market", "body__kind", "name", "lang")
    )
    assert {
        ("HK", "body", "Government Logistics Department", "en"),
        ("HK", "body", "政府物流服務署", "zh-hant"),
        ("GB", "person", "Mrs Trina Briers", "en"),
        ("EU", "body", "Úřad pro publikace Evropské unie", "ces"),
        ("AU", "person", "John Rutter", "en"),
    } <= directory
    # The notice's names joined the seed list's entry for the body (migration 0011).
    health = PublicBody.objects.get(names__name="衞生署")
    assert health.origin == "seed"
    assert {"Department of Health", "衞生署"} <= set(health.names.values_list("name", flat=True))

    # Publish everything the curators approve; closed procedures stay out.
    settings.TENDERS_PASSED_GRACE_DAYS = 365 * 20
    SourceTender.objects.exclude(market="CA").filter(status=DRAFT).update(status=APPROVED)
    summary = publish_issue(now=t0)
    rows = list(SnapshotRow.objects.filter(issue=summary.issue))
    open_records = SourceTender.objects.exclude(market="CA").filter(status=APPROVED)
    assert summary.published + summary.withheld == open_records.count() == 23
    assert summary.withheld == 0
    public_ids = {r.asaptic_id for r in rows}
    assert cancelled.listing_id not in public_ids and fictional.listing_id not in public_ids
    assert moved.listing_id in public_ids
    contact = re.compile(r"@|https?://|www\.|\+?\d[\d ]{6,}\d")
    for row in rows:
        text = " ".join([row.summary_en, row.summary_zh, row.summary_zht])
        assert not contact.search(text), text
        tender = SourceTender.objects.get(listing_id=row.asaptic_id)
        for secret in (tender.buyer_name, tender.reference):
            assert secret.lower() not in text.lower()
    assert Issue.objects.get(is_current=True).rows_total == len(rows) == 23


def test_rerun_writes_nothing_and_keeps_listing_ids():
    first = import_notices("eforms", str(EFORMS))
    ids = dict(ImportedNotice.objects.values_list("notice_id", "tender__listing_id"))
    stamps = list(SourceTender.objects.order_by("pk").values_list("pk", "updated_at"))
    again = import_notices("eforms", str(EFORMS))
    assert (first.created, again.created, again.updated, again.unchanged) == (8, 0, 0, 8)
    assert dict(ImportedNotice.objects.values_list("notice_id", "tender__listing_id")) == ids
    assert list(SourceTender.objects.order_by("pk").values_list("pk", "updated_at")) == stamps
    assert ImportRun.objects.count() == 2


def test_an_update_keeps_approval_when_the_summaries_do_not_change(tmp_path):
    for name in ("cn_24_open.xml", "cn_24_minimal.xml"):
        shutil.copy(EFORMS / name, tmp_path / name)
    import_notices("eforms", str(tmp_path))
    moved = record("eforms", "31f258b6-5eb2-4875-8997-affa3cdce27c")
    voided = record("eforms", "4805c409-5939-4be9-8abd-837f7a5fee23")
    assert curation.tenders_approve(ids=[moved.pk, voided.pk], user=None).refused == {}
    listing_ids = (moved.listing_id, voided.listing_id)

    run = import_notices("eforms", str(EFORMS / "change-cn_24_open_dates.xml"))
    assert (run.created, run.updated, run.closed) == (0, 1, 0)
    moved.refresh_from_db()
    assert (moved.status, moved.deadline) == (APPROVED, datetime(2020, 6, 12, 11, 0, tzinfo=UTC))

    run = import_notices("eforms", str(EFORMS / "change-cn_24_void.xml"))
    assert (run.updated, run.closed) == (1, 1)
    voided.refresh_from_db()
    assert voided.status == CLOSED
    assert (moved.listing_id, voided.listing_id) == listing_ids


def csv_file(tmp_path, *rows, header="id,title,buyer,deadline,amount,currency,status"):
    path = tmp_path / "batch.csv"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def test_csv_rows_and_their_failures(tmp_path):
    path = csv_file(
        tmp_path,
        "GEBIZ-1,Supply of office furniture,Land Transport Authority,2026-12-20T17:00,,,",
        "GEBIZ-2,Security guarding at depots,Land Transport Authority,31/13/2026,,,",
        "GEBIZ-3,Cleaning of bus interchanges,Land Transport Authority,2026-12-28,12x,SGD,",
        "GEBIZ-4,Courier services,Land Transport Authority,2026-12-28,2500000,SGD,cancelled",
    )
    run = import_notices("csv", str(path), market="sg")
    assert counts(run) == {
        "read": 4, "created": 2, "updated": 0, "unchanged": 0, "closed": 1, "skipped": {},
        "failed": 2, "state": "completed",
    }  # fmt: skip
    assert run.failures == [
        {
            "place": "batch.csv line 3",
            "notice_id": "SG:GEBIZ-2",
            "message": "deadline '31/13/2026' is not a date: write 2026-12-01T12:00, 2026-12-01 "
            "or 01/12/2026 12:00; fix it at the source and import again",
        },
        {
            "place": "batch.csv line 4",
            "notice_id": "SG:GEBIZ-3",
            "message": "amount '12x' is not a number: digits only; fix it at the source and "
            "import again",
        },
    ]
    furniture = record("csv", "SG:GEBIZ-1")
    assert (furniture.market, furniture.deadline, furniture.category.slug) == (
        "SG",
        datetime(2026, 12, 20, 9, 0, tzinfo=UTC),
        "office-supplies-furniture",
    )
    assert record("csv", "SG:GEBIZ-4").status == CLOSED


def test_since_skips_older_items_and_dry_run_writes_nothing(tmp_path):
    path = OCDS / "fictional-example-1.1"
    seeded = PublicBodyName.objects.count()  # the seed list (migration 0011)
    dry = import_notices("ocds", str(path), market="GB", dry_run=True)
    assert (dry.pk, dry.created, dry.state) == (None, 1, "completed")
    assert SourceTender.objects.count() == ImportRun.objects.count() == 0
    assert PublicBodyName.objects.count() == seeded
    # Only the award, contract and implementation releases are that recent: without the tender
    # release they give no closing date, so nothing is created.
    run = import_notices("ocds", str(path), market="GB", since=date(2010, 5, 1))
    assert (run.read, run.created, run.skipped) == (
        6,
        0,
        {"published before --since": 3, "no closing date": 1},
    )
    assert SourceTender.objects.count() == 0


def test_staff_edits_to_summaries_survive_an_update(tmp_path):
    path = csv_file(tmp_path, "MO-7,Supply of laboratory reagents,Health Bureau,2026-12-20,,,")
    import_notices("csv", str(path), market="MO")
    reagents = record("csv", "MO:MO-7")
    SourceTender.objects.filter(pk=reagents.pk).update(summary_en="Laboratory reagents wanted.")
    csv_file(tmp_path, "MO-7,Supply of laboratory reagents,Health Bureau,2026-12-27,,,")
    run = import_notices("csv", str(path), market="MO")
    reagents.refresh_from_db()
    assert (run.updated, reagents.summary_en, reagents.deadline.date()) == (
        1,
        "Laboratory reagents wanted.",
        date(2026, 12, 27),
    )
    assert reagents.imported.notes[-1] == (
        "summaries were edited by staff: kept; check them against the update"
    )


def test_a_run_that_cannot_read_its_source_fails_and_says_why(tmp_path):
    run = import_notices("ocds", str(tmp_path / "nowhere"), market="GB")
    assert (run.state, run.error) == (
        "failed",
        f"{tmp_path / 'nowhere'} is neither a file nor a folder here; check the path.",
    )
    assert ImportRun.objects.get().state == "failed"
    with pytest.raises(ImportFailed, match="Say which market ocds notices are for"):
        import_notices("ocds", str(OCDS), market=None)
    with pytest.raises(ImportFailed, match="eforms notices are always EU, not GB"):
        import_notices("eforms", str(EFORMS), market="GB")
    assert ImportRun.objects.count() == 1


def test_the_command_reports_and_exits_by_outcome(tmp_path, capsys):
    call_command("import_notices", "gld", str(HK_FIXTURE))
    out = capsys.readouterr().out
    assert "Import run" in out and "completed" in out
    assert re.search(r"created\s+3\n", out)
    assert re.search(r"items read\s+3\n", out)
    with pytest.raises(CommandError, match="is neither a file nor a folder"):
        call_command("import_notices", "ocds", str(tmp_path / "x.json"), "--market", "GB")
    with pytest.raises(CommandError, match="--since 'last week' is not a date"):
        call_command("import_notices", "gld", str(HK_FIXTURE), "--since", "last week")
    call_command("import_notices", "gld", str(HK_FIXTURE), "--dry-run")
    out = capsys.readouterr().out
    assert "Dry run, nothing was written" in out
    assert re.search(r"unchanged\s+3\n", out)
    assert ImportRun.objects.count() == 2


def test_closed_records_leave_the_next_issue(settings, t0, tmp_path):
    deadline = (t0 + timedelta(days=10)).strftime("%Y-%m-%dT%H:%M")
    path = csv_file(tmp_path, f"SG-9,Supply of office furniture,Housing Board,{deadline},,,")
    import_notices("csv", str(path), market="SG")
    furniture = record("csv", "SG:SG-9")
    curation.tenders_approve(ids=[furniture.pk], user=None)
    assert publish_issue(now=t0).published == 1
    csv_file(tmp_path, f"SG-9,Supply of office furniture,Housing Board,{deadline},,,withdrawn")
    run = import_notices("csv", str(path), market="SG")
    assert (run.updated, run.closed) == (1, 1)
    furniture.refresh_from_db()
    assert (furniture.status, furniture.imported.closed_reason) == (
        CLOSED,
        "withdrawn (status given in the CSV)",
    )
    later = publish_issue(now=t0 + timedelta(days=7))
    assert (later.published, later.withheld, later.dropped) == (0, 0, 1)

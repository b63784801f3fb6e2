"""Re-drafting imported records from the vocabulary: the command and the job. Records a person
edited keep their text and are listed with the new draft; the others get it."""

from io import StringIO

import pytest
from django.core.management import call_command

from tenders import tasks
from tenders.importers.records import draft_hash, record_summaries
from tenders.importers.service import import_notices
from tenders.models import ImportedNotice, Job, SourceTender
from tests.test_import_service import EFORMS
from tests.worker_support import work_off_the_queue

pytestmark = pytest.mark.django_db

OLD = {
    "en": "Old summary from the notice title. A public-sector buyer is looking for providers.",
    "zh": "旧摘要。",
    "zht": "舊摘要。",
}


def as_before_the_vocabulary() -> tuple[SourceTender, SourceTender, SourceTender]:
    """Three imported records as an older release left them: drafted text (its hash kept), one
    of them approved, and one a person edited since."""
    import_notices("eforms", str(EFORMS))
    plain, approved, edited = SourceTender.objects.filter(
        imported__isnull=False, status="draft"
    ).order_by("pk")[:3]
    for record in (plain, approved, edited):
        record.summary_en, record.summary_zh, record.summary_zht = OLD.values()
        record.concepts = []
        record.save()
        ImportedNotice.objects.filter(tender=record).update(draft_hash=draft_hash(OLD))
    SourceTender.objects.filter(pk=approved.pk).update(status="approved")
    SourceTender.objects.filter(pk=edited.pk).update(summary_en="A curator's own words.")
    return plain, approved, edited


def test_the_command_redrafts_what_no_person_edited_and_lists_the_rest():
    plain, approved, edited = as_before_the_vocabulary()
    total = ImportedNotice.objects.count()

    dry = StringIO()
    call_command("redraft_summaries", "--dry-run", stdout=dry)
    assert SourceTender.objects.get(pk=plain.pk).summary_en == OLD["en"]  # nothing written
    assert "would re-draft 2 (0 of them back to draft)" in dry.getvalue()

    out = StringIO()
    call_command("redraft_summaries", stdout=out)
    text = out.getvalue()
    assert text.startswith(
        f"Imported records: re-drafted 2 (0 of them back to draft), {total - 3} unchanged, "
        "1 edited by a person (kept; review them against the new draft)"
    )
    assert f"  {edited.listing_id} (edited)\n    now: A curator's own words.\n    new: " in text
    for record in (plain, approved):
        record.refresh_from_db()
        assert record.concepts and record.summary_zh.startswith("采购内容：")
        assert draft_hash(record_summaries(record)) == record.imported.draft_hash
    assert approved.status == "approved"  # built from the vocabulary: nothing for the gate
    edited.refresh_from_db()
    assert edited.summary_en == "A curator's own words."
    # A second run finds nothing to do.
    again = StringIO()
    call_command("redraft_summaries", stdout=again)
    assert again.getvalue().startswith(
        f"Imported records: re-drafted 0 (0 of them back to draft), {total - 1} unchanged"
    )


def test_the_job_does_the_same_and_says_so():
    plain, _, edited = as_before_the_vocabulary()
    job = tasks.redraft_enqueue(user=None)
    work_off_the_queue()
    job.refresh_from_db()
    assert job.state == "succeeded" and job.phase == "redraft"
    assert job.message.startswith("Imported records: re-drafted 2 (0 of them back to draft)")
    assert job.result["edited"] == [edited.listing_id]
    plain.refresh_from_db()
    assert plain.summary_zh.startswith("采购内容：")
    assert Job.objects.filter(kind=tasks.REDRAFT).count() == 1

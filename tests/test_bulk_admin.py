"""Bulk actions at any size: the same result done in the request or as a job, and 30,000
records approved through the admin with the request only queuing the job."""

import time

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.urls import reverse

from tenders import bulk
from tenders.models import Job, SourceTender
from tests.factories import SourceTenderFactory, category
from tests.worker_support import messages_of, work_off_the_queue

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:tenders_sourcetender_changelist")


def _records(prefix: str) -> list[SourceTender]:
    """Eight drafts: five clean, two leaking, one without its Chinese summary."""
    clean = [SourceTenderFactory(status="draft", title=f"{prefix} {i}") for i in range(5)]
    leaks = [
        SourceTenderFactory(status="draft", summary_en="Call 2345 6789 for the notice."),
        SourceTenderFactory(status="draft", summary_en="See tender.gov.hk"),
    ]
    empty = [SourceTenderFactory(status="draft", summary_zh="")]
    return [*clean, *leaks, *empty]


def _state(records) -> list[tuple]:
    """What a bulk action left, in the records' order (ids differ between the two sets)."""
    by_pk = {r.pk: r for r in SourceTender.objects.filter(pk__in=[r.pk for r in records])}
    return [(by_pk[r.pk].status, by_pk[r.pk].withheld_reason) for r in records]


def _post(client, action, records, **extra):
    data = {"action": action, ACTION_CHECKBOX_NAME: [r.pk for r in records], "apply": "1"}
    return client.post(CHANGELIST, {**data, **extra}, follow=True)


@pytest.mark.parametrize(
    "action,extra",
    [("approve_records", {}), ("withhold_records", {"reason": "Duplicate of another"})],
)
def test_inline_and_as_a_job_give_the_same_result(admin_client, settings, action, extra):
    inline, queued = _records("inline"), _records("queued")
    settings.TENDERS_BULK_INLINE_LIMIT = 100
    done = _post(admin_client, action, inline, **extra)
    assert not Job.objects.exists()
    inline_messages = messages_of(done)

    # Above the limit, in batches of three: queued, nothing done by the request.
    settings.TENDERS_BULK_INLINE_LIMIT = 5
    before = _state(queued)
    page = _post(admin_client, action, queued, **extra)
    job = Job.objects.get()
    assert _state(queued) == before
    assert (
        f'queued as <a href="/admin/tenders/job/{job.pk}/change/">job #{job.pk}</a>: a worker'
        in messages_of(page)[0]
    )
    assert 'class="module job-panel"' in page.content.decode()
    bulk.BULK_BATCH, saved = 3, bulk.BULK_BATCH
    try:
        work_off_the_queue()
    finally:
        bulk.BULK_BATCH = saved
    job.refresh_from_db()
    assert job.state == "succeeded", job.message
    assert job.total == 8 and job.done == 8

    assert _state(queued) == _state(inline)
    # The same sentence and the same refusals, by position.
    assert job.message.startswith(inline_messages[0])
    refused = [lid for lid in job.result["refused"]]
    assert len(refused) == job.result["refused_count"] == len(inline_messages) - 1
    ids = [r.listing_id for r in queued]
    inline_ids = [r.listing_id for r in inline]
    assert sorted(ids.index(lid) for lid in refused) == sorted(
        inline_ids.index(m.split(" ")[0]) for m in inline_messages[1:]
    )
    if action == "approve_records":
        assert [s for s, _ in _state(queued)] == ["approved"] * 5 + ["draft"] * 3


@pytest.mark.slow
def test_approving_30000_records_through_the_admin_queues_a_job(admin_client):
    """The request queues the job and returns; the worker approves. Figures printed."""
    shared = category()
    template = SourceTenderFactory.build(status="draft")
    rows = [
        SourceTender(
            listing_id=f"AT-BULK{n:07d}",
            market="HK",
            category=shared,
            buyer_name=template.buyer_name,
            reference=f"REF/{n}",
            source_url=template.source_url,
            deadline=template.deadline,
            title=f"Notice {n}",
            description="",
            summary_en=template.summary_en,
            summary_zh=template.summary_zh,
            summary_zht=template.summary_zht,
            status="draft",
        )
        for n in range(30_000)
    ]
    SourceTender.objects.bulk_create(rows, batch_size=5000)
    first_page = list(
        SourceTender.objects.order_by("-created_at", "-pk").values_list("pk", flat=True)[:50]
    )
    query = {"action": "approve_records", ACTION_CHECKBOX_NAME: first_page, "select_across": "1"}

    started = time.perf_counter()
    confirm = admin_client.post(CHANGELIST, query)
    confirm_seconds = time.perf_counter() - started
    html = confirm.content.decode()
    assert '<strong id="bulk-count">30000</strong> records selected.' in html
    assert "More than 300: a worker does it as a job" in html
    assert 'name="select_across" value="1"' in html

    started = time.perf_counter()
    queued = admin_client.post(CHANGELIST, {**query, "apply": "1"})
    queue_seconds = time.perf_counter() - started
    assert queued.status_code == 302
    job = Job.objects.get(kind="bulk")
    assert (job.state, len(job.arguments["ids"])) == ("queued", 30_000)
    # The request did none of the work: every record is still a draft.
    assert not SourceTender.objects.filter(status="approved").exists()

    started = time.perf_counter()
    work_off_the_queue()
    job_seconds = time.perf_counter() - started
    job.refresh_from_db()
    assert job.state == "succeeded", job.message
    assert job.message == "Approved 30000 record(s)."
    assert SourceTender.objects.filter(status="approved").count() == 30_000
    print(
        f"\n30,000 records: confirmation page {confirm_seconds:.2f} s, confirm and queue "
        f"{queue_seconds:.2f} s, the job {job_seconds:.1f} s"
    )

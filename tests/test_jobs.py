"""Jobs: "Publish now" queues the publication for a worker and returns at once; the Issues page
follows the job (phase, percent, elapsed, outcome); one publication at a time; a job that
raises is a message; a dead worker's job is marked failed and the next publication works.

The first tests run queued tasks in this process with django-tasks' worker; the last ones start
real worker processes (``manage.py run_worker``) on the committed test database.
"""

import re
import time
from datetime import timedelta

import pytest
from django.contrib.admin.models import ADDITION, LogEntry
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from tenders import curation, jobs, tasks
from tenders.admin.jobs import duration_text, job_panel
from tenders.calendar import rfc3339
from tenders.jobs import worker_gone, worker_report
from tenders.models import Issue, Job, JobWorker
from tenders.publication import PublicationError, publish_issue
from tenders.read.selectors import current_issue
from tests.factories import SourceTenderFactory
from tests.worker_support import (
    REFRESH,
    messages_of,
    wait_for_job,
    work_off_the_queue,
    worker_process,
)

PUBLISH = reverse("admin:tenders_issue_publish")
ISSUES = reverse("admin:tenders_issue_changelist")


def open_record(**fields):
    return SourceTenderFactory(deadline=timezone.now() + timedelta(days=20), **fields)


def test_durations_read_as_staff_read_them():
    assert [duration_text(s) for s in (None, 0, 59.9, 60, 271, 3599, 7500)] == [
        "",
        "0 s",
        "59 s",
        "1 min 0 s",
        "4 min 31 s",
        "59 min 59 s",
        "2 h 5 min",
    ]


@pytest.mark.django_db
def test_publish_now_queues_one_publication_and_the_worker_publishes_it(admin_client, admin_user):
    open_record()
    response = admin_client.post(PUBLISH)
    assert (response.status_code, response["Location"]) == (302, ISSUES)
    job = Job.objects.get()
    assert (job.kind, job.label, job.lock_key, job.state, job.requested_by) == (
        "publish",
        "Publish this week's issue",
        "publish",
        "queued",
        admin_user,
    )
    entry = DBTaskResult.objects.get()
    assert (str(entry.id), entry.status, entry.task_path, entry.args_kwargs) == (
        job.task_id,
        "READY",
        "tenders.tasks.publish_issue_task",
        {"args": [], "kwargs": {"job_id": job.pk}},
    )
    assert not Issue.objects.exists()

    page = admin_client.get(ISSUES)
    html = page.content.decode()
    assert messages_of(page) == [
        f"Publication queued as job #{job.pk}. A worker publishes it; this page shows its "
        "progress and the new issue when it is done."
    ]
    assert REFRESH in html and '<span class="job-state">Waiting for a worker</span>' in html
    assert re.search(r"Queued \d+ s ago\. .*No worker has reported in the last", html)

    # A second request is refused, names the queued job with a link, and queues nothing.
    again = admin_client.post(PUBLISH, follow=True)
    link = f'<a href="{reverse("admin:tenders_job_change", args=[job.pk])}">job #{job.pk}</a>'
    assert messages_of(again) == [
        f"“Publish this week&#x27;s issue” is already queued: {link}, asked for at "
        f"{rfc3339(job.enqueued_at)}. "
        "Wait for it to finish; this page shows its progress."
    ]
    assert link in again.content.decode()
    assert (Job.objects.count(), DBTaskResult.objects.count()) == (1, 1)

    work_off_the_queue()
    job.refresh_from_db()
    issue = current_issue()
    assert (job.state, job.message) == (
        "succeeded",
        f"Published {issue.issue_id}: 1 rows (1 new, 0 continuing, 0 dropped), 0 withheld; "
        f"etag {issue.snapshot_etag}.",
    )
    assert (job.subject_type.model, job.subject_id) == ("issue", str(issue.pk))
    assert (job.phase, job.done, job.total) == ("switch", 1, 1)
    assert job.result["published"] == 1 and job.result["snapshot_etag"] == issue.snapshot_etag
    assert DBTaskResult.objects.get().status == "SUCCESSFUL"
    assert issue.published_by == admin_user
    assert LogEntry.objects.get(object_id=str(issue.pk)).action_flag == ADDITION

    html = admin_client.get(ISSUES).content.decode()
    assert REFRESH not in html and '<span class="job-state">Succeeded</span>' in html
    assert job.message in html
    issue_link = reverse("admin:tenders_issue_change", args=[issue.pk])
    assert f'<a class="job-subject" href="{issue_link}">See the issue</a>' in html
    detail = admin_client.get(reverse("admin:tenders_job_change", args=[job.pk]))
    assert detail.status_code == 200 and job.message in detail.content.decode()


@pytest.mark.django_db
def test_a_job_that_raises_shows_its_message_in_the_admin(admin_client, monkeypatch):
    open_record()

    def refused(**kwargs):
        raise PublicationError("The current issue is 2026-W49; an issue for an earlier week ...")

    monkeypatch.setattr(curation, "publish_issue", refused)
    admin_client.post(PUBLISH)
    work_off_the_queue()
    job = Job.objects.get()
    expected = "Not published: The current issue is 2026-W49; an issue for an earlier week ..."
    assert (job.state, job.message) == ("failed", expected)
    entry = DBTaskResult.objects.get()
    assert (entry.status, entry.exception_class_path) == ("FAILED", "tenders.jobs.JobFailed")
    page = admin_client.get(ISSUES)
    html = page.content.decode()
    assert page.status_code == 200 and '<span class="job-state">Failed</span>' in html
    assert re.search(
        r'class="job-message errornote">Failed after \d+ s: ' + re.escape(expected), html
    )
    assert "Traceback" not in html and REFRESH not in html

    # Anything else is reported as unexpected, by name; the lock is free again.
    monkeypatch.setattr(curation, "publish_issue", lambda **kwargs: 1 / 0)
    admin_client.post(PUBLISH)
    work_off_the_queue()
    second = Job.objects.exclude(pk=job.pk).get()
    assert (second.state, second.message) == (
        "failed",
        "Unexpected error: ZeroDivisionError: division by zero. The worker's log has the details.",
    )
    detail = admin_client.get(reverse("admin:tenders_job_change", args=[second.pk]))
    assert detail.status_code == 200 and "Traceback" not in detail.content.decode()
    assert not Issue.objects.exists()


@pytest.mark.django_db
def test_the_issues_page_shows_phase_percent_elapsed_and_a_stopped_worker(admin_client, settings):
    settings.TENDERS_JOB_HEARTBEAT_SECONDS = 2
    settings.TENDERS_JOB_LEASE_SECONDS = 60
    now = timezone.now()
    job = Job.objects.create(
        kind="publish",
        label="Publish this week's issue",
        lock_key="publish",
        task_path="tenders.tasks.publish_issue_task",
        state="running",
        enqueued_at=now - timedelta(seconds=75),
        started_at=now - timedelta(seconds=72),
        heartbeat_at=now,
        worker="box:4242",
        phase="read and plan",
        done=340_000,
        total=1_000_000,
    )
    panel = job_panel(job, now=now)
    assert (panel["elapsed"], panel["percent"], panel["stopped"]) == ("1 min 12 s", 34, "")
    html = admin_client.get(ISSUES).content.decode()
    assert "read and plan: 340,000 of 1,000,000 (34%); 1 min 1" in html
    assert '<progress max="100" value="34"' in html and REFRESH in html
    assert "errornote" not in html and "Worker box:4242, last reported 0 s ago" in html

    # The false alarm of a healthy job: its heartbeats late by 12 s (on SQLite a beat waits
    # for the work's own write transaction) showed a red "No sign of life". Within the lease
    # the worker is only late: said in grey, never in red.
    job.heartbeat_at = now - timedelta(seconds=12)
    job.save()
    assert job_panel(job, now=now)["stopped"] == ""
    html = admin_client.get(ISSUES).content.decode()
    assert "errornote" not in html and "No sign of life" not in html
    assert "Worker box:4242, last reported 1" in html

    # Past the lease the worker has really stopped: red, until the sweep fails the job.
    job.heartbeat_at = now - timedelta(seconds=61)
    job.save()
    assert job_panel(job, now=now)["stopped"] == "1 min 1 s"
    html = admin_client.get(ISSUES).content.decode()
    assert re.search(
        r'class="errornote job-stopped">The worker running this job \(box:4242\) has not '
        r"reported for 1 min \d s, longer than its lease of 1 min 0 s: it stopped\.",
        html,
    )


@pytest.mark.django_db
def test_a_queued_job_says_how_many_workers_are_alive_and_when_each_reported(settings):
    settings.TENDERS_JOB_LEASE_SECONDS = 60
    now = timezone.now()
    job = Job.objects.create(
        kind="publish", label="Publish", lock_key="publish", task_path="x", enqueued_at=now
    )
    panel = job_panel(job, now=now)
    assert panel["state"] == "Waiting for a worker"
    assert panel["workers"].startswith("No worker has reported in the last 1 min 0 s: start one")

    # A worker busy with another job, one long gone: still waiting, one alive.
    busy = Job.objects.create(
        kind="import", label="Import", lock_key="import:1", task_path="x", state="running",
        started_at=now, heartbeat_at=now, worker="box:1",
    )  # fmt: skip
    worker_report("box:1", now=now - timedelta(seconds=3))
    worker_report("box:2", now=now - timedelta(seconds=61))
    panel = job_panel(job, now=now)
    assert panel["state"] == "Waiting for a worker"
    assert (
        panel["workers"]
        == f"1 worker alive: box:1, last reported 3 s ago, busy with job #{busy.pk}."
    )

    # An idle worker alive: the job is queued, it takes it at its next look.
    worker_report("box:3", now=now - timedelta(seconds=1))
    panel = job_panel(job, now=now)
    assert panel["state"] == "Queued"
    assert panel["workers"] == (
        "2 workers alive: box:3, last reported 1 s ago, idle; "
        f"box:1, last reported 3 s ago, busy with job #{busy.pk}."
    )
    worker_gone("box:3")
    assert job_panel(job, now=now)["state"] == "Waiting for a worker"


@pytest.mark.django_db
def test_a_dead_workers_job_is_failed_with_its_reason_and_frees_the_lock(settings):
    settings.TENDERS_JOB_LEASE_SECONDS = 60
    job = tasks.publication_enqueue(user=None)
    entry = DBTaskResult.objects.get(id=job.task_id)
    entry.claim("worker-that-dies")
    last_beat = timezone.now() - timedelta(seconds=61)
    Job.objects.filter(pk=job.pk).update(
        state="running", started_at=last_beat, heartbeat_at=last_beat, worker="box:42"
    )
    Job.objects.filter(pk=job.pk).update(phase="read and plan", done=10, total=20)
    alive = Job.objects.create(
        kind="import",
        label="Import",
        lock_key="import:1",
        task_path="x",
        state="running",
        heartbeat_at=timezone.now() - timedelta(seconds=59),
    )

    assert [j.pk for j in jobs.jobs_fail_stale()] == [job.pk]
    job.refresh_from_db()
    assert (job.state, job.message) == (
        "failed",
        f"The worker running this job (box:42) stopped: no sign of life since "
        f"{rfc3339(last_beat)} during “read and plan”. The work was not finished; start it again.",
    )
    entry.refresh_from_db()
    assert (entry.status, entry.traceback) == ("FAILED", job.message)
    alive.refresh_from_db()
    assert alive.state == "running"
    assert jobs.jobs_fail_stale() == []
    assert tasks.publication_enqueue(user=None).state == "queued"


@pytest.mark.django_db
def test_a_job_is_run_once_even_if_its_task_is_delivered_again():
    job = tasks.publication_enqueue(user=None)
    Job.objects.filter(pk=job.pk).update(state="failed", message="Stopped.")
    calls = []
    assert jobs.run_job(job.pk, lambda job, progress: calls.append(job)) == {"skipped": "failed"}
    assert calls == [] and Job.objects.get(pk=job.pk).message == "Stopped."


@pytest.mark.django_db
def test_the_command_queues_a_publication_and_refuses_a_second(capsys):
    call_command("publish_issue", "--enqueue")
    job = Job.objects.get()
    assert (job.state, job.requested_by) == ("queued", None)
    assert capsys.readouterr().out == (
        f"Queued the publication as job #{job.pk}; a worker (manage.py run_worker) runs it.\n"
    )
    with pytest.raises(Exception, match=rf"A publication is already queued: job #{job.pk}"):
        call_command("publish_issue", "--enqueue")
    assert Job.objects.count() == 1


# --- real worker processes ------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_killed_worker_leaves_the_previous_issue_and_the_next_publication_works(
    admin_client, tmp_path, settings
):
    call_command("load_demo", rows=3000, replace=True, verbosity=0)
    first = publish_issue()
    settings.TENDERS_JOB_LEASE_SECONDS = 1
    # Small batches and quick heartbeats, so the test sees the job mid-way and kills it there.
    slow = {
        "TENDERS_PUBLISH_BATCH": "10",
        "TENDERS_JOB_HEARTBEAT_SECONDS": "0.05",
        "TENDERS_JOB_LEASE_SECONDS": "1",
    }
    with worker_process(tmp_path, **slow) as worker:
        admin_client.post(PUBLISH)
        job = Job.objects.get(kind="publish")  # beside the search postings of the first
        running = wait_for_job(
            job.pk, lambda j: j.phase == "read and plan" and 0 < j.done < j.total, worker
        )
        # The worker reports itself alive beside the job's own heartbeat.
        assert [w.name for w in jobs.workers_alive()] == [running.worker]
        worker.kill()
        worker.wait()
        killed_at = timezone.now()
    assert current_issue().snapshot_etag == first.snapshot_etag
    assert Job.objects.get(pk=job.pk).state == "running"  # nobody knows yet
    # The next worker may start within the lease (nothing stale yet as it starts): it keeps
    # looking every half lease, idle or not, and finds the dead job once the lease runs out.
    quick = {"TENDERS_JOB_HEARTBEAT_SECONDS": "0.05", "TENDERS_JOB_LEASE_SECONDS": "1"}
    with worker_process(tmp_path, **quick) as worker:
        failed = wait_for_job(job.pk, lambda j: j.state == "failed", worker)
        assert failed.message.startswith(
            f"The worker running this job ({running.worker}) stopped: no sign of life since "
        )
        assert failed.message.endswith(
            " during “read and plan”. The work was not finished; start it again."
        )
        assert DBTaskResult.objects.get(id=job.task_id).status == "FAILED"
        assert current_issue().snapshot_etag == first.snapshot_etag
        # What it left building is discarded as its death is noticed, not at the next start.
        dead = Issue.objects.exclude(pk=first.issue.pk).get()
        deadline = time.monotonic() + 30
        while dead.state == "building" and time.monotonic() < deadline:
            time.sleep(0.05)
            dead.refresh_from_db()
        assert (dead.state, dead.is_current) == ("failed", False)
        # The killed one fell silent; this one reports (within a lease of its last report).
        # Names are host:pid, and a pid may come round again (it did once in CI, pid_max 32768),
        # so the new worker is known by its own pid and by reports made after the kill.
        this_one = f"{jobs.worker_name().rsplit(':', 1)[0]}:{worker.pid}"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            alive = jobs.workers_alive()
            if [w.name for w in alive] == [this_one] and alive[0].seen_at > killed_at:
                break
            time.sleep(0.05)
        assert [(w.name, w.seen_at > killed_at) for w in alive] == [(this_one, True)]
        admin_client.post(PUBLISH)
        again = Job.objects.filter(kind="publish").exclude(pk=job.pk).get()
        done = wait_for_job(again.pk, lambda j: not j.active, worker)
    issue = current_issue()
    assert done.state == "succeeded", done.message
    assert (issue.pk, issue.rows_total, issue.withheld) == (
        int(done.subject_id),
        first.published,
        first.withheld,
    )
    assert issue.snapshot_etag != first.snapshot_etag
    assert done.message.startswith(f"Published {issue.issue_id}: {first.published:,} rows")
    # A worker that stops cleanly removes its own row; the killed one's is left, silent, until
    # it has been silent for ten leases (10 s here, which a slow machine may reach by now).
    assert set(JobWorker.objects.values_list("name", flat=True)) <= {running.worker}

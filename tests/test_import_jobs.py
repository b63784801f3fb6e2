"""Import jobs: "Import now" queues one job per source and the runs page follows them; a job
whose worker died marks its run failed and runs again without doing anything twice; scheduled
sources are queued by run_schedules when due; a real worker imports."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from tenders import jobs, tasks
from tenders.models import ImportRun, ImportSource, Job, SourceTender
from tests.worker_support import (
    REFRESH,
    messages_of,
    wait_for_job,
    work_off_the_queue,
    worker_process,
)

EFORMS = Path(__file__).resolve().parents[2] / "shared" / "data" / "eforms"
SOURCES = reverse("admin:tenders_importsource_changelist")
RUNS = reverse("admin:tenders_importrun_changelist")
FIRST = "11 read: 8 created, 0 updated, 0 unchanged, 1 closed at source, 1 skipped, 0 failed"
AGAIN = "11 read: 0 created, 0 updated, 8 unchanged, 0 closed at source, 1 skipped, 0 failed"


def eforms_source(**fields) -> ImportSource:
    return ImportSource.objects.create(
        name=fields.pop("name", "TED eForms"), format="eforms", url=str(EFORMS), **fields
    )


def import_now(client, *sources):
    return client.post(
        SOURCES, {"action": "import_now", "_selected_action": [s.pk for s in sources]}
    )


def test_a_source_is_due_after_its_interval_since_the_last_import():
    now = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)
    assert [
        tasks.import_is_due(every, last, now)
        for every, last in (
            (None, None),
            (24, None),
            (24, now - timedelta(hours=24)),
            (24, now - timedelta(hours=23, minutes=59)),
            (1, now - timedelta(hours=2)),
        )
    ] == [False, True, True, False, True]


@pytest.mark.django_db
def test_import_now_queues_a_job_per_source_and_the_runs_page_follows_it(admin_client):
    source = eforms_source()
    response = import_now(admin_client, source)
    assert (response.status_code, response["Location"]) == (302, RUNS)
    job = Job.objects.get()
    assert (job.kind, job.label, job.lock_key, job.arguments, job.state) == (
        "import",
        "Import from TED eForms",
        f"import:{source.pk}",
        {"source_id": source.pk},
        "queued",
    )
    page = admin_client.get(RUNS)
    assert messages_of(page) == [
        f"Queued 1 import(s) as job(s) #{job.pk}. A worker runs them; this page shows their "
        "progress and the runs when they are done."
    ]
    html = page.content.decode()
    assert REFRESH in html and '<span class="job-state">Waiting for a worker</span>' in html

    again = import_now(admin_client, source)
    assert again.status_code == 302 and Job.objects.count() == 1
    [busy] = messages_of(admin_client.get(SOURCES))
    assert busy.startswith("“Import from TED eForms” is already queued: <a href=")
    assert not ImportRun.objects.exists()

    work_off_the_queue()
    job.refresh_from_db()
    run = ImportRun.objects.get()
    assert (job.state, job.message) == ("succeeded", f"Imported from TED eForms: {FIRST}.")
    assert (job.subject_type.model, job.subject_id, run.started_by) == (
        "importrun",
        str(run.pk),
        job.requested_by,
    )
    assert job.result == {
        "run": run.pk,
        "read": 11,
        "created": 8,
        "updated": 0,
        "unchanged": 0,
        "closed": 1,
        "failed": 0,
    }
    html = admin_client.get(RUNS).content.decode()
    assert REFRESH not in html and job.message in html
    run_link = reverse("admin:tenders_importrun_change", args=[run.pk])
    assert f'<a class="job-subject" href="{run_link}">See the import run</a>' in html


@pytest.mark.django_db
def test_a_dead_import_marks_its_run_failed_and_runs_again_without_doing_anything_twice(
    admin_client, admin_user, settings
):
    settings.TENDERS_JOB_LEASE_SECONDS = 60
    source = eforms_source()
    job = tasks.import_enqueue(source=source, user=admin_user)
    work_off_the_queue()  # the first import went through; then a second one dies half-way
    job = tasks.import_enqueue(source=source, user=admin_user)
    beat = timezone.now() - timedelta(seconds=90)
    Job.objects.filter(pk=job.pk).update(
        state="running", started_at=beat, heartbeat_at=beat, worker="box:7"
    )
    run = ImportRun.objects.create(source=source, format="eforms", location=str(EFORMS))
    ImportRun.objects.filter(pk=run.pk).update(started_at=beat + timedelta(seconds=1))

    [dead] = jobs.jobs_fail_stale()
    run.refresh_from_db()
    assert dead.pk == job.pk and (run.state, run.error) == ("failed", dead.message)
    assert dead.message.startswith("The worker running this job (box:7) stopped: no sign of life")

    # Staff without the import permission see no button and cannot run it again.
    retry = reverse("admin:tenders_job_retry", args=[job.pk])
    curator = get_user_model().objects.create_user("reader", password="x", is_staff=True)
    curator.user_permissions.add(Permission.objects.get(codename="view_job"))
    admin_client.force_login(curator)
    page = admin_client.get(reverse("admin:tenders_job_change", args=[job.pk]))
    assert page.status_code == 200 and "Run it again" not in page.content.decode()
    assert admin_client.post(retry).status_code == 403
    assert Job.objects.count() == 2

    admin_client.force_login(admin_user)
    page = admin_client.get(RUNS).content.decode()
    assert f'<form method="post" action="{retry}">' in page
    response = admin_client.post(retry, follow=True)
    again = Job.objects.get(retry_of=job)
    assert messages_of(response) == [
        f"Import from TED eForms queued again as job #{again.pk}; this page shows its progress."
    ]
    assert (again.task_path, again.arguments, again.state) == (
        "tenders.tasks.import_source_task",
        {"source_id": source.pk},
        "queued",
    )
    work_off_the_queue()
    again.refresh_from_db()
    assert (again.state, again.message) == ("succeeded", f"Imported from TED eForms: {AGAIN}.")
    assert SourceTender.objects.count() == 8
    # Only a failed job runs again.
    response = admin_client.post(reverse("admin:tenders_job_retry", args=[again.pk]), follow=True)
    assert messages_of(response) == [
        f"Only a failed job can be retried; job #{again.pk} is succeeded."
    ]
    assert Job.objects.count() == 3


@pytest.mark.django_db
def test_import_jobs_that_cannot_import_say_why(admin_user):
    disabled = eforms_source(name="Old feed", enabled=False)
    tasks.import_enqueue(source=disabled, user=admin_user)
    gone = eforms_source(name="Gone")
    tasks.import_enqueue(source=gone, user=admin_user)
    gone.delete()
    work_off_the_queue()
    assert list(Job.objects.order_by("pk").values_list("state", "message")) == [
        ("failed", "Not imported: Old feed is disabled; enable it first."),
        ("failed", "Not imported: the source was deleted after the job was queued."),
    ]
    assert not ImportRun.objects.exists()


@pytest.mark.django_db
def test_run_schedules_queues_the_sources_that_are_due_once(capsys):
    due = eforms_source(name="Daily, never run", every_hours=24)
    recent = eforms_source(name="Daily, ran an hour ago", every_hours=24)
    ImportRun.objects.filter(
        pk=ImportRun.objects.create(source=recent, format="eforms", location="x").pk
    ).update(started_at=timezone.now() - timedelta(hours=1))
    eforms_source(name="Disabled", every_hours=1, enabled=False)
    eforms_source(name="By hand")

    call_command("run_schedules")
    job = Job.objects.get()
    assert (job.arguments, job.requested_by) == ({"source_id": due.pk}, None)
    assert capsys.readouterr().out == f"Queued an import from {due.name} as job #{job.pk}.\n"
    call_command("run_schedules")
    assert capsys.readouterr().out == f"{due.name}: job #{job.pk} is still queued.\n"
    assert Job.objects.count() == 1


@pytest.mark.slow
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_real_worker_imports_and_an_import_again_changes_nothing(admin_client, tmp_path):
    source = eforms_source()
    with worker_process(tmp_path) as worker:
        import_now(admin_client, source)
        first = wait_for_job(Job.objects.get().pk, lambda j: not j.active, worker)
        ids = sorted(SourceTender.objects.values_list("listing_id", flat=True))
        import_now(admin_client, source)
        second = wait_for_job(Job.objects.exclude(pk=first.pk).get().pk, lambda j: not j.active)
    assert (first.state, first.message) == ("succeeded", f"Imported from TED eForms: {FIRST}.")
    # Last, the worker scans the records for the list's "has findings" filter (the 7 not
    # closed at source).
    assert (first.phase, first.done, first.total) == ("scan", 7, 7)
    assert SourceTender.objects.filter(findings__isnull=False).count() == 7
    assert SourceTender.objects.filter(status="closed").count() == 1
    assert (second.state, second.message) == ("succeeded", f"Imported from TED eForms: {AGAIN}.")
    assert sorted(SourceTender.objects.values_list("listing_id", flat=True)) == ids
    assert list(ImportRun.objects.order_by("pk").values_list("state", "created", "unchanged")) == [
        ("completed", 8, 0),
        ("completed", 0, 8),
    ]

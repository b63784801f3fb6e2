"""Running long work as jobs: queue it, run it in a worker with progress, notice dead workers.

The queue is Django's Tasks API with its database backend (``django_tasks_db``), so the default
setup needs no server besides the database, and workers on several machines can share it. A
``Job`` row is the staff-facing record of each piece of work.

- ``job_enqueue`` records a job and queues its task in one transaction. At most one job per
  ``lock_key`` is queued or running (a database constraint), so a second publication is refused
  with the running one named.
- ``run_job`` is what a task calls in the worker: it claims the job, runs a plain work function
  ``work(job, progress) -> Outcome`` and records the outcome or the error. The services it calls
  (``publish_issue``, the import service) know nothing of jobs.
- While the work runs, a thread with its own database connection writes the latest progress and
  a heartbeat every ``TENDERS_JOB_HEARTBEAT_SECONDS``: the work's own writes may sit in a long
  transaction that nobody else can see until it commits.
- A running job whose heartbeat is older than ``TENDERS_JOB_LEASE_SECONDS`` belonged to a worker
  that died (killed, machine lost); ``jobs_fail_stale`` marks it failed with that reason. It runs
  when a worker starts, when a job starts, when a job is queued and on every schedule run.
- Each worker also reports itself (``worker_report``, a ``JobWorker`` row) every heartbeat, busy or
  idle, so a queued job can say how many workers are alive and when each last reported
  (``workers_alive``). Heartbeats can be late without anything being wrong (on SQLite a beat waits
  for the work's own write transaction): only a worker silent past the lease counts as stopped.
"""

import logging
import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.contenttypes.models import ContentType
from django.db import DatabaseError, IntegrityError, connections, transaction
from django.db.models import Model
from django.dispatch import Signal
from django.utils import timezone
from django.utils.module_loading import import_string
from django_tasks import TaskResultStatus
from django_tasks.base import Task

from .calendar import rfc3339
from .models import Job, JobWorker
from .publication import Progress

log = logging.getLogger(__name__)


class JobBusy(Exception):
    """A job with the same lock key is queued or running; ``job`` is that one."""

    def __init__(self, job: Job):
        super().__init__(f"Job #{job.pk} ({job.label}) is {job.get_state_display().lower()}.")
        self.job = job


class JobFailed(Exception):
    """The work failed for a reason staff can act on; the message is shown to them as it is,
    with ``subject`` (what the work made before failing, e.g. a failed import run) linked."""

    def __init__(self, message: str, subject: Model | None = None):
        super().__init__(message)
        self.subject = subject


# Sent for each job found dead (sender: Job, job=...), so its kind can tidy what its worker
# left half-done (an import run still marked running).
job_abandoned = Signal()


@dataclass
class Outcome:
    """What a job's work reports: a sentence for staff, what it made, and data for machines."""

    message: str
    subject: Model | None = None
    data: dict[str, Any] = field(default_factory=dict)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# --- workers ------------------------------------------------------------------------------


def worker_report(name: str | None = None, *, now: datetime | None = None) -> None:
    """Record that worker ``name`` (this process by default) is alive, now."""
    now = now or timezone.now()
    name = name or worker_name()
    if not JobWorker.objects.filter(name=name).update(seen_at=now):
        JobWorker.objects.get_or_create(name=name, defaults={"started_at": now, "seen_at": now})


def worker_gone(name: str | None = None) -> None:
    """A worker that stops cleanly says so (its row goes)."""
    JobWorker.objects.filter(name=name or worker_name()).delete()


@dataclass
class WorkerSeen:
    """A worker as the admin shows it: when it last reported and the job it runs, if any."""

    name: str
    seen_at: datetime
    silent: float
    job: Job | None


def workers_alive(*, now: datetime | None = None) -> list[WorkerSeen]:
    """The workers that reported within the lease (newest first), with the job each runs; rows
    of workers silent for ten leases are removed (machines long gone)."""
    now = now or timezone.now()
    lease = timedelta(seconds=settings.TENDERS_JOB_LEASE_SECONDS)
    JobWorker.objects.filter(seen_at__lt=now - 10 * lease).delete()
    rows = list(JobWorker.objects.filter(seen_at__gte=now - lease).order_by("-seen_at", "name"))
    running = {
        job.worker: job
        for job in Job.objects.filter(state=Job.State.RUNNING, worker__in=[r.name for r in rows])
    }
    return [
        WorkerSeen(
            name=r.name,
            seen_at=r.seen_at,
            silent=max(0.0, (now - r.seen_at).total_seconds()),
            job=running.get(r.name),
        )
        for r in rows
    ]


def past_lease(job: Job, now: datetime | None = None) -> bool:
    """Whether the worker holding running ``job`` has really stopped reporting: its heartbeat
    is older than the lease (``jobs_fail_stale`` fails such a job on its next sweep)."""
    silent = job.silent_for(now)
    return silent is not None and silent > settings.TENDERS_JOB_LEASE_SECONDS


# --- queueing -----------------------------------------------------------------------------


def job_enqueue(
    *,
    task: Task,
    kind: str,
    label: str,
    lock_key: str,
    user: AbstractBaseUser | None,
    arguments: dict | None = None,
    retry_of: Job | None = None,
) -> Job:
    """Record a job and queue ``task(job_id=...)`` for a worker; raise ``JobBusy`` when a job
    with the same lock key is queued or running."""
    jobs_fail_stale()
    try:
        with transaction.atomic():
            job = Job.objects.create(
                kind=kind,
                label=label[:200],
                lock_key=lock_key,
                task_path=task.module_path,
                arguments=arguments or {},
                requested_by=user if getattr(user, "pk", None) else None,
                retry_of=retry_of,
            )
            job.task_id = str(task.enqueue(job_id=job.pk).id)
            job.save(update_fields=["task_id"])
    except IntegrityError:
        active = Job.objects.filter(lock_key=lock_key, state__in=Job.ACTIVE_STATES).first()
        if active is None:  # it finished in between: the key is free again
            raise
        raise JobBusy(active) from None
    return job


def job_retry(*, job: Job, user: AbstractBaseUser | None) -> Job:
    """Queue a failed job again with the same task and arguments (a new job, linked to it)."""
    if job.state != Job.State.FAILED:
        raise JobFailed(
            f"Only a failed job can be retried; job #{job.pk} is {job.get_state_display().lower()}."
        )
    return job_enqueue(
        task=import_string(job.task_path),
        kind=job.kind,
        label=job.label,
        lock_key=job.lock_key,
        user=user,
        arguments=job.arguments,
        retry_of=job,
    )


# --- dead workers -------------------------------------------------------------------------


def _fail_queue_entry(task_id: str, message: str) -> None:
    """Mark the queue's row of a dead job failed too, so both records tell the same story."""
    if not task_id:
        return
    from django_tasks_db.models import DBTaskResult

    DBTaskResult.objects.filter(
        id=task_id, status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING]
    ).update(
        status=TaskResultStatus.FAILED,
        finished_at=timezone.now(),
        exception_class_path="tenders.jobs.WorkerLost",
        traceback=message,
    )


def jobs_fail_stale(*, now: datetime | None = None) -> list[Job]:
    """Mark failed the running jobs whose worker stopped sending heartbeats; return them."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.TENDERS_JOB_LEASE_SECONDS)
    failed = []
    for job in Job.objects.filter(state=Job.State.RUNNING, heartbeat_at__lt=cutoff):
        during = f" during “{job.phase}”" if job.phase else ""
        message = (
            f"The worker running this job ({job.worker}) stopped: no sign of life since "
            f"{rfc3339(job.heartbeat_at)}{during}. The work was not finished; start it again."
        )
        # Only if no heartbeat arrived since we read it (the worker may be slow, not dead); the
        # job and its queue entry change together, so both records always tell the same story.
        with transaction.atomic():
            taken = Job.objects.filter(
                pk=job.pk, state=Job.State.RUNNING, heartbeat_at=job.heartbeat_at
            ).update(state=Job.State.FAILED, finished_at=now, message=message)
            if taken:
                _fail_queue_entry(job.task_id, message)
        if taken:
            job.state, job.finished_at, job.message = Job.State.FAILED, now, message
            log.warning("Job #%s failed: %s", job.pk, message)
            job_abandoned.send(sender=Job, job=job)
            failed.append(job)
    return failed


# --- running ------------------------------------------------------------------------------


class _Heartbeat:
    """Writes the job's latest progress and a heartbeat from a thread with its own connection."""

    def __init__(self, job_id: int, interval: float):
        self.job_id = job_id
        self.interval = interval
        self.latest: tuple[str, int, int] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"job-{job_id}-heartbeat", daemon=True
        )

    def progress(self, phase: str, done: int, total: int) -> None:
        self.latest = (phase[:60], max(0, done), max(0, total))

    def fields(self) -> dict:
        if self.latest is None:
            return {}
        return dict(zip(("phase", "done", "total"), self.latest, strict=True))

    def __enter__(self) -> "_Heartbeat":
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                try:
                    Job.objects.filter(pk=self.job_id, state=Job.State.RUNNING).update(
                        heartbeat_at=timezone.now(), **self.fields()
                    )
                except DatabaseError as exc:
                    # SQLite lets one writer at a time; the work may hold it. Next beat.
                    log.warning("Job #%s heartbeat not written: %s", self.job_id, exc)
        finally:
            connections.close_all()  # this thread's connections only


def _finish(
    job_id: int, state: str, beat: _Heartbeat, message: str, subject: Model | None = None, **extra
) -> None:
    now = timezone.now()
    if subject is not None:
        extra.update(
            subject_type=ContentType.objects.get_for_model(subject), subject_id=str(subject.pk)
        )
    Job.objects.filter(pk=job_id).update(
        state=state, finished_at=now, heartbeat_at=now, message=message, **beat.fields(), **extra
    )


def run_job(job_id: int, work: Callable[[Job, Progress], Outcome]) -> dict:
    """Claim job ``job_id`` and run ``work`` on it, recording progress and the outcome.

    A job that is not queued any more (already run, or failed meanwhile) is left alone, so a
    task delivered twice does its work once. Errors are recorded with a message for staff and
    raised again, so the queue's own record says failed too.
    """
    jobs_fail_stale()
    now = timezone.now()
    claimed = Job.objects.filter(pk=job_id, state=Job.State.QUEUED).update(
        state=Job.State.RUNNING, started_at=now, heartbeat_at=now, worker=worker_name()
    )
    job = Job.objects.select_related("requested_by").get(pk=job_id)
    if not claimed:
        log.warning("Job #%s is %s, not queued: not run again.", job_id, job.state)
        return {"skipped": job.state}
    beat = _Heartbeat(job_id, settings.TENDERS_JOB_HEARTBEAT_SECONDS)
    try:
        with beat:
            outcome = work(job, beat.progress)
    except JobFailed as exc:
        _finish(job_id, Job.State.FAILED, beat, str(exc), exc.subject)
        raise
    except Exception as exc:
        log.exception("Job #%s (%s) failed", job_id, job.label)
        _finish(
            job_id,
            Job.State.FAILED,
            beat,
            f"Unexpected error: {type(exc).__name__}: {exc}. The worker's log has the details.",
        )
        raise
    except BaseException:
        _finish(
            job_id,
            Job.State.FAILED,
            beat,
            "The worker was stopped during the job; the work was not finished. Start it again.",
        )
        raise
    _finish(
        job_id, Job.State.SUCCEEDED, beat, outcome.message, outcome.subject, result=outcome.data
    )
    return outcome.data

"""Jobs: long work (publication, imports) queued by staff or a schedule and run by a worker.

The queue itself is Django's Tasks API (``django_tasks_db`` rows); a ``Job`` is what staff read:
who asked for what and when, the progress a worker reports while it runs, and the outcome.
Jobs are kept as history.
"""

from datetime import datetime

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Job(models.Model):
    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    ACTIVE_STATES = (State.QUEUED, State.RUNNING)

    kind = models.CharField(max_length=40, help_text="What the job does: publish, import.")
    label = models.CharField(max_length=200)
    lock_key = models.CharField(
        max_length=100, help_text="At most one queued or running job holds each key."
    )
    task_path = models.CharField(max_length=200, help_text="The task that runs the job.")
    arguments = models.JSONField(default=dict, blank=True, help_text="The task's arguments.")
    task_id = models.CharField(max_length=64, blank=True, help_text="The queue's task id.")
    retry_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="retries"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Empty for a schedule or a command.",
    )
    state = models.CharField(
        max_length=10, choices=State.choices, default=State.QUEUED, db_index=True
    )
    enqueued_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Last sign of life from the worker running the job."
    )
    worker = models.CharField(max_length=200, blank=True, help_text="host:process of the worker.")
    phase = models.CharField(max_length=60, blank=True)
    done = models.PositiveBigIntegerField(default=0)
    total = models.PositiveBigIntegerField(default=0)
    message = models.TextField(blank=True, help_text="The outcome, or why the job failed.")
    result = models.JSONField(default=dict, blank=True)
    # What the job made or worked on (an issue, an import run), linked from the admin.
    subject_type = models.ForeignKey(
        ContentType, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    subject_id = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["-enqueued_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["lock_key"],
                condition=Q(state__in=["queued", "running"]),
                name="job_one_active_per_lock_key",
            )
        ]
        indexes = [models.Index(fields=["kind", "-enqueued_at"], name="job_kind_recent")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.label}"

    @property
    def active(self) -> bool:
        return self.state in self.ACTIVE_STATES

    @property
    def percent(self) -> int | None:
        """Share of the current phase done, 0..100; None before a phase reports a total."""
        if not self.total:
            return None
        return min(100, 100 * self.done // self.total)

    def elapsed(self, now: datetime | None = None) -> float | None:
        """Seconds the job has run (until it finished); None before it started."""
        if self.started_at is None:
            return None
        end = self.finished_at or now or timezone.now()
        return max(0.0, (end - self.started_at).total_seconds())

    def silent_for(self, now: datetime | None = None) -> float | None:
        """Seconds since the worker's last heartbeat, while the job runs."""
        if self.state != self.State.RUNNING or self.heartbeat_at is None:
            return None
        return max(0.0, ((now or timezone.now()) - self.heartbeat_at).total_seconds())


class JobWorker(models.Model):
    """A running worker process (``manage.py run_worker``), as it last reported itself: the
    admin says from these how many workers are alive, and when each last reported, while a
    job waits. Each worker writes its row every ``TENDERS_JOB_HEARTBEAT_SECONDS`` from a thread
    of its own and deletes it when it stops; a row older than the lease is a worker that died."""

    name = models.CharField(max_length=200, unique=True, help_text="host:process.")
    started_at = models.DateTimeField(default=timezone.now)
    seen_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

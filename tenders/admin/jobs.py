"""Staff admin of jobs: the history of queued work (who asked, when, outcome) and each job's
progress, in a panel that the Issues page shows too. Read-only: jobs are made by services."""

from datetime import datetime

from django.conf import settings
from django.contrib import admin
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from ..models import Job


def duration_text(seconds: float | None) -> str:
    """Seconds as staff read them: "45 s", "4 min 31 s", "2 h 5 min"; "" for None."""
    if seconds is None:
        return ""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def _subject_link(job: Job) -> tuple[str, str]:
    """(admin URL, link text) of what the job made; empty when it made nothing we can show."""
    if not (job.subject_type_id and job.subject_id):
        return "", ""
    opts = job.subject_type.model_class()._meta
    try:
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[job.subject_id])
    except NoReverseMatch:
        return "", ""
    return url, f"See the {opts.verbose_name}"


def job_panel(job: Job | None, now: datetime | None = None) -> dict | None:
    """What the progress panel shows of ``job`` (``_panel.html``); None without a job."""
    if job is None:
        return None
    now = now or timezone.now()
    silent = job.silent_for(now)
    subject_url, subject_text = _subject_link(job)
    return {
        "job": job,
        "url": reverse("admin:tenders_job_change", args=[job.pk]),
        "by": job.requested_by.get_username() if job.requested_by else "a schedule or command",
        "waited": duration_text((now - job.enqueued_at).total_seconds()),
        "elapsed": duration_text(job.elapsed(now)),
        "percent": job.percent,
        "done": f"{job.done:,}",
        "total": f"{job.total:,}",
        # A few missed beats are normal (a busy database); say so only past that.
        "silent": duration_text(silent)
        if silent is not None and silent > 3 * settings.TENDERS_JOB_HEARTBEAT_SECONDS
        else "",
        "lease": duration_text(settings.TENDERS_JOB_LEASE_SECONDS),
        "subject_url": subject_url,
        "subject_text": subject_text,
    }


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    change_form_template = "admin/tenders/job/change_form.html"
    list_display = ("number", "label", "state", "by", "enqueued_at", "took", "outcome")
    list_display_links = ("number", "label")
    list_filter = ("kind", "state")
    list_select_related = ("requested_by",)
    search_fields = ("label", "message")
    fields = (
        "label",
        "kind",
        "state",
        "requested_by",
        "enqueued_at",
        "started_at",
        "finished_at",
        "worker",
        "phase",
        "done",
        "total",
        "message",
        "result",
        "arguments",
        "retry_of",
        "task_id",
    )
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="job", ordering="pk")
    def number(self, obj: Job) -> str:
        return f"#{obj.pk}"

    @admin.display(description="by", ordering="requested_by__username")
    def by(self, obj: Job) -> str:
        return obj.requested_by.get_username() if obj.requested_by else "schedule"

    @admin.display(description="took")
    def took(self, obj: Job) -> str:
        return duration_text(obj.elapsed())

    @admin.display(description="outcome")
    def outcome(self, obj: Job) -> str:
        return obj.message if len(obj.message) <= 100 else obj.message[:99] + "…"

    def change_view(self, request, object_id, form_url="", extra_context=None):
        job = self.get_object(request, object_id)
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), "panel": job_panel(job)}
        )

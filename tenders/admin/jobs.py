"""Staff admin of jobs: the history of queued work (who asked, when, outcome) and each job's
progress, in a panel that the Issues page shows too. Read-only: jobs are made by services."""

from datetime import datetime

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import NoReverseMatch, path, reverse
from django.utils import timezone
from django.utils.html import format_html

from .. import tasks
from ..calendar import rfc3339
from ..jobs import JobBusy, JobFailed, job_retry, past_lease, workers_alive
from ..models import Job

# Per kind of job: the permission to start (and so to run again) one, and the page following it.
KINDS = {
    tasks.PUBLISH: ("tenders.add_issue", "admin:tenders_issue_changelist"),
    tasks.IMPORT: ("tenders.run_import", "admin:tenders_importrun_changelist"),
    tasks.REDRAFT: ("tenders.change_sourcetender", "admin:tenders_sourcetender_changelist"),
    tasks.BULK: ("tenders.change_sourcetender", "admin:tenders_sourcetender_changelist"),
    # A digest run stopped by the mail server is retried by those who publish.
    tasks.DIGEST: ("tenders.add_issue", "admin:tenders_digestdelivery_changelist"),
}


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


def _may_start(user, job: Job) -> bool:
    return job.kind in KINDS and user is not None and user.has_perm(KINDS[job.kind][0])


def _workers_text(now: datetime) -> tuple[bool, str]:
    """(an alive worker is idle, what staff read about the workers) for a queued job."""
    alive = workers_alive(now=now)
    if not alive:
        return False, (
            "No worker has reported in the last "
            f"{duration_text(settings.TENDERS_JOB_LEASE_SECONDS)}: start one with "
            "manage.py run_worker (the run command starts one beside the web server)."
        )
    each = "; ".join(
        f"{w.name}, last reported {duration_text(w.silent)} ago, "
        + (f"busy with job #{w.job.pk}" if w.job else "idle")
        for w in alive
    )
    count = f"{len(alive)} worker{'s' if len(alive) != 1 else ''} alive"
    return any(w.job is None for w in alive), f"{count}: {each}."


def job_panel(job: Job | None, now: datetime | None = None, user=None) -> dict | None:
    """What the progress panel shows of ``job`` (``_panel.html``) to ``user``; None without.

    The state is said as staff need it: *Queued* (an idle worker will take it), *Waiting for a
    worker* (every worker alive is busy, or none is), *Running*, then the outcome. The red
    warning appears only once the worker holding the job has stopped reporting for longer than
    the lease; a late heartbeat or two is normal (a busy database, SQLite's one writer)."""
    if job is None:
        return None
    now = now or timezone.now()
    subject_url, subject_text = _subject_link(job)
    retry = job.state == Job.State.FAILED and _may_start(user, job)
    shown_state, workers = job.get_state_display(), ""
    if job.state == Job.State.QUEUED:
        idle, workers = _workers_text(now)
        shown_state = "Queued" if idle else "Waiting for a worker"
    silent = job.silent_for(now)
    return {
        "job": job,
        "state": shown_state,
        "workers": workers,
        "url": reverse("admin:tenders_job_change", args=[job.pk]),
        "by": job.requested_by.get_username() if job.requested_by else "a schedule or command",
        "waited": duration_text((now - job.enqueued_at).total_seconds()),
        "elapsed": duration_text(job.elapsed(now)),
        "percent": job.percent,
        "done": f"{job.done:,}",
        "total": f"{job.total:,}",
        "reported": duration_text(silent) if silent is not None else "",
        "stopped": duration_text(silent) if past_lease(job, now) else "",
        "lease": duration_text(settings.TENDERS_JOB_LEASE_SECONDS),
        "subject_url": subject_url,
        "subject_text": subject_text,
        "retry_url": reverse("admin:tenders_job_retry", args=[job.pk]) if retry else "",
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
        panel = job_panel(self.get_object(request, object_id), user=request.user)
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), "panel": panel}
        )

    def get_urls(self):
        retry = self.admin_site.admin_view(self.retry_view)
        return [path("<int:pk>/retry/", retry, name="tenders_job_retry"), *super().get_urls()]

    def retry_view(self, request, pk: int):
        job = get_object_or_404(Job, pk=pk)
        if not _may_start(request.user, job):
            raise PermissionDenied
        page = reverse(KINDS[job.kind][1])
        if request.method != "POST":
            return HttpResponseRedirect(page)
        try:
            again = job_retry(job=job, user=request.user)
        except JobBusy as busy:
            self.message_user(request, busy_message(busy), messages.WARNING)
        except JobFailed as exc:
            self.message_user(request, str(exc), messages.ERROR)
        else:
            self.message_user(
                request,
                f"{again.label} queued again as job #{again.pk}; this page shows its progress.",
                messages.SUCCESS,
            )
        return HttpResponseRedirect(page)


def busy_message(busy: JobBusy):
    """What staff read when the same work is already queued or running: which job, and where."""
    job = busy.job
    return format_html(
        '“{}” is already {}: <a href="{}">job #{}</a>, asked for at {}. Wait for it to finish; '
        "this page shows its progress.",
        job.label,
        job.get_state_display().lower(),
        reverse("admin:tenders_job_change", args=[job.pk]),
        job.pk,
        rfc3339(job.enqueued_at),
    )

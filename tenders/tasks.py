"""The feed's jobs: thin task wrappers that run the plain services in a worker, and the
services that queue them (the admin and the commands call these, never the tasks directly)."""

from django.contrib.auth.base_user import AbstractBaseUser
from django_tasks import task

from . import curation
from .jobs import JobFailed, Outcome, Progress, job_enqueue, run_job
from .models import Job
from .publication import PublicationError

PUBLISH = "publish"


def publication_enqueue(*, user: AbstractBaseUser | None) -> Job:
    """Queue this week's publication; ``JobBusy`` names the one already queued or running."""
    return job_enqueue(
        task=publish_issue_task,
        kind=PUBLISH,
        label="Publish this week's issue",
        lock_key=PUBLISH,
        user=user,
    )


def _publish(job: Job, progress: Progress) -> Outcome:
    try:
        summary = curation.issue_publish(user=job.requested_by, progress=progress)
    except PublicationError as exc:
        raise JobFailed(f"Not published: {exc}") from exc
    return Outcome(
        message=(
            f"Published {summary.issue_id}: {summary.published:,} rows ({summary.new:,} new, "
            f"{summary.continuing:,} continuing, {summary.dropped:,} dropped), "
            f"{summary.withheld:,} withheld; etag {summary.snapshot_etag}."
        ),
        subject=summary.issue,
        data={
            "issue_id": summary.issue_id,
            "snapshot_etag": summary.snapshot_etag,
            "published": summary.published,
            "withheld": summary.withheld,
            "withheld_by_reason": dict(summary.withheld_by_reason.most_common()),
            "seconds_by_phase": {k: round(v, 1) for k, v in summary.timings.items()},
        },
    )


@task()
def publish_issue_task(job_id: int) -> dict:
    return run_job(job_id, _publish)

"""Why the feed is not ``ok``: the ``reasons`` member of the health record.

Each reason is ``{"code", "message"}``; the message says what to look at. The checks are cheap
(a file-storage lookup and one indexed query), because load balancers ask often:

- ``feed_stale``: the current issue is older than ``TENDERS_FEED_FRESH_DAYS``;
- ``flat_file_missing``: the current issue's flat file is not in the file storage (a web server
  that cannot see the workers' storage, or a file deleted by hand);
- ``queue_stalled``: a job has waited longer than ``TENDERS_HEALTH_QUEUE_MAX_AGE_SECONDS``, so no
  worker is taking jobs;
- ``replica_lagging``: a streaming replica has not replayed the current issue or does not
  answer (``tenders.read.replicas``; its reads go to the primary meanwhile);
- ``nothing_published`` and ``database_unavailable`` (status ``unavailable``).
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import DatabaseError

from tenders.models import Issue, Job
from tenders.read import replicas


def reason(code: str, message: str) -> dict:
    return {"code": code, "message": message}


def nothing_published() -> dict:
    return reason("nothing_published", "No issue is published yet: publish one from the admin.")


def database_unavailable() -> dict:
    """The connection error stays in the server's log: it names hosts and ports."""
    return reason(
        "database_unavailable",
        "The database does not answer; the service recovers by itself when it does.",
    )


def degraded_reasons(issue: Issue, now: datetime) -> list[dict]:
    """The reasons a published feed is degraded (empty: it is ok)."""
    found = []
    age = now - issue.generated
    if age > timedelta(days=settings.TENDERS_FEED_FRESH_DAYS):
        found.append(
            reason(
                "feed_stale",
                f"The current issue {issue.issue_id} was published {age.days} days ago (more "
                f"than {settings.TENDERS_FEED_FRESH_DAYS}): publish this week's issue.",
            )
        )
    if not _flat_file_present(issue):
        found.append(
            reason(
                "flat_file_missing",
                f"The flat file of {issue.issue_id} is not in the file storage, so "
                "/tender/rows.json answers 503: every web server must see the storage the "
                "workers write to.",
            )
        )
    stalled = _queue_stalled(now)
    if stalled:
        found.append(stalled)
    for alias in replicas.lagging(issue):
        found.append(
            reason(
                "replica_lagging",
                f"The streaming replica {alias} has not replayed {issue.issue_id} or does not "
                "answer: its reads go to the primary meanwhile.",
            )
        )
    return found


def _flat_file_present(issue: Issue) -> bool:
    if not issue.flat_file:
        return False
    try:
        return default_storage.exists(issue.flat_file)
    except OSError:
        return False


def _queue_stalled(now: datetime) -> dict | None:
    limit = timedelta(seconds=settings.TENDERS_HEALTH_QUEUE_MAX_AGE_SECONDS)
    try:
        waiting = Job.objects.filter(state=Job.State.QUEUED, enqueued_at__lt=now - limit)
        oldest = waiting.order_by("enqueued_at").values_list("enqueued_at", flat=True).first()
        if oldest is None:
            return None
        count = waiting.count()
    except DatabaseError:
        return None
    minutes = int((now - oldest).total_seconds() // 60)
    jobs = f"{count} job{'s' if count != 1 else ''}"
    return reason(
        "queue_stalled",
        f"{jobs} queued for more than {int(limit.total_seconds() // 60)} min (the oldest "
        f"{minutes} min): is a job worker running (manage.py run_worker)?",
    )

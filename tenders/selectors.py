"""Reads of the public side. Public surfaces call these; nothing here touches private models."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError
from django.utils import timezone

from .calendar import rfc3339
from .models import Issue
from .rows import SCHEMA_NAME


def current_issue() -> Issue | None:
    """The issue every public surface serves, or None before the first publication."""
    return Issue.objects.filter(is_current=True).first()


def feed_health(now: datetime | None = None) -> dict:
    """The health record. Never raises: a database that does not answer is ``unavailable``."""
    now = now or timezone.now()
    record = {
        "status": "unavailable",
        "rows_total": 0,
        "issue_id": None,
        "generated": None,
        "feed_fresh": False,
        "schema": SCHEMA_NAME,
    }
    try:
        issue = current_issue()
    except DatabaseError:
        return record
    if issue is None:
        return record
    fresh = now - issue.generated <= timedelta(days=settings.TENDERS_FEED_FRESH_DAYS)
    record.update(
        status="ok" if fresh else "degraded",
        rows_total=issue.rows_total,
        issue_id=issue.issue_id,
        generated=rfc3339(issue.generated),
        feed_fresh=fresh,
    )
    return record

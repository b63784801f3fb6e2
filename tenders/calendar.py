"""Issue ids: the ISO week of publication, ``YYYY-Www``. Pure functions."""

import re
from datetime import UTC, date, datetime, timedelta

ISSUE_ID_RE = re.compile(r"^(\d{4})-W(\d{2})$")


def issue_id_for(moment: date | datetime) -> str:
    """ISO week of ``moment`` (a datetime is taken in its own timezone; we publish in UTC)."""
    day = moment.date() if isinstance(moment, datetime) else moment
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def week_start(issue_id: str) -> date:
    match = ISSUE_ID_RE.fullmatch(issue_id)
    if not match:
        raise ValueError(f"not an issue id: {issue_id!r}")
    return date.fromisocalendar(int(match[1]), int(match[2]), 1)


def previous_issue_id(issue_id: str) -> str:
    return issue_id_for(week_start(issue_id) - timedelta(days=7))


def weeks_before(issue_id: str, weeks: int) -> str:
    return issue_id_for(week_start(issue_id) - timedelta(days=7 * weeks))


def rfc3339(moment: datetime) -> str:
    """RFC 3339 in UTC with a ``Z``, to the second: the form of every public timestamp."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

"""Reply deadlines and durations written for people: pure functions."""

from datetime import datetime, timedelta

from django.conf import settings


def reply_hours() -> int:
    return settings.RFQ_REPLY_HOURS


def reply_due(received_at: datetime) -> datetime:
    return received_at + timedelta(hours=reply_hours())


def human_duration(seconds: float) -> str:
    """'45 s', '12 min', '3 h 5 min', '2 d 4 h': short, rounded up to the shown unit."""
    total = max(0, int(-(-seconds // 1)))
    if total < 60:
        return f"{total} s"
    minutes = -(-total // 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h" if hours else f"{days} d"


def due_state(
    *, status: str, reply_due_at: datetime, answered_at: datetime | None, now: datetime
) -> tuple[str, bool]:
    """What the queue shows about a record's reply deadline, and whether it is overdue."""
    if status == "new":
        left = (reply_due_at - now).total_seconds()
        if left < 0:
            return f"overdue by {human_duration(-left)}", True
        return f"due in {human_duration(left)}", False
    if status == "answered" and answered_at is not None:
        late = (answered_at - reply_due_at).total_seconds()
        if late > 0:
            return f"answered {human_duration(late)} late", False
        return "answered in time", False
    return status, False

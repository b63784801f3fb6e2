"""Where a configured source's run stands, and where the next one starts. No database.

A run yields the readers' pieces and, after each page or file, a ``Mark``: the state to keep
once everything before it is committed. The import service saves it on the source
(``ImportSource.checkpoint``); a run that fails part-way resumes from its last mark, and a
completed run's state becomes the next run's start (``finish``). A source that asks for a
window of time (an OCDS API, TED's search) asks from ``window_start``: where the last completed
run asked, less an overlap.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

DEFAULT_OVERLAP_MINUTES = 60
DEFAULT_FIRST_DAYS = 7
# Kept from a run to the next; the rest of a checkpoint belongs to a run under way.
KEPT = ("since", "etag", "last_modified")


@dataclass(frozen=True)
class Mark:
    """Everything read before this is whole: save ``state`` once it is committed. ``listing``:
    what came before is a whole file that lists every open notice of the source."""

    state: dict
    listing: bool = False


def window_start(options: dict, checkpoint: dict, now: datetime) -> datetime:
    """Where this run's window starts: the last completed run's asking time less the overlap,
    or ``first_days`` back for a source that never completed a run."""
    since = checkpoint.get("since")
    if since:
        overlap = float(options.get("overlap_minutes", DEFAULT_OVERLAP_MINUTES))
        return datetime.fromisoformat(since) - timedelta(minutes=overlap)
    return now - timedelta(days=float(options.get("first_days", DEFAULT_FIRST_DAYS)))


def window(options: dict, checkpoint: dict, now: datetime) -> tuple[str, str, str | None]:
    """(window_from, asked_at, where to resume) of this run: a run that failed part-way
    resumes its own window where it stopped."""
    if checkpoint.get("next") and checkpoint.get("window_from"):
        return checkpoint["window_from"], checkpoint.get("asked_at", ""), checkpoint["next"]
    start = window_start(options, checkpoint, now)
    return start.isoformat(), now.isoformat(), None


def finish(state: dict, *, started: datetime) -> dict:
    """The checkpoint a completed run leaves: the next window starts where this one asked."""
    kept = {k: state[k] for k in KEPT if state.get(k)}
    kept["since"] = state.get("asked_at") or started.isoformat()
    return kept


def for_new_address(checkpoint: dict) -> dict:
    """What of a checkpoint still holds once the source's address changed: only where the next
    window starts (a cursor, a token or a file's validators belong to the old address)."""
    return {"since": checkpoint["since"]} if checkpoint.get("since") else {}

"""Which issue the public surfaces serve: one cheap query per request (which is also the kept
connection's health check), no ORM on the way.

Every request asks the database which issue is current (its pk and snapshot etag, through
the partial unique index on ``is_current``), so a publication or withdrawal is seen by the very
next request of every process, and a cursor made by a newer issue always finds it: there is no
cached notion of "current" that could lag. The issue record itself, read once per process and
snapshot, is kept: nothing a public surface reads of it changes while it is current.
"""

import copy
import threading

from django.db import connection

from config.database import UNAVAILABLE

from .filters import Vocabulary
from .models import Issue

_TABLE = connection.ops.quote_name(Issue._meta.db_table)
_SQL = f"SELECT id, snapshot_etag FROM {_TABLE} WHERE is_current LIMIT 1"
# Issues recently current in this process, by (pk, etag); a handful is plenty.
_KEEP = 4
_known: dict[tuple[int, str], tuple[Issue, Vocabulary]] = {}
_lock = threading.Lock()


def current_snapshot() -> tuple[int, str] | None:
    """(pk, snapshot etag) of the current issue, or None before the first publication.

    When it is a request's first query on a connection kept from an earlier request, it is
    also the connection's health check (``CONN_HEALTH_CHECKS``): Django would first send a
    ``SELECT 1`` of its own; instead, a connection found broken is closed and the question
    asked again on a new one, which is what that check would have done, a round trip fewer.
    """
    checking = (
        connection.connection is not None
        and connection.health_check_enabled
        and not connection.health_check_done
    )
    if checking:
        connection.health_check_done = True
    try:
        return _ask()
    except UNAVAILABLE:
        if not checking or connection.in_atomic_block:
            raise
        connection.close()
        return _ask()


def _ask() -> tuple[int, str] | None:
    with connection.cursor() as cursor:
        cursor.execute(_SQL)
        row = cursor.fetchone()
    return None if row is None else (row[0], row[1])


def current_issue() -> Issue | None:
    snapshot = current_snapshot()
    if snapshot is None:
        return None
    known = _known.get(snapshot)
    if known is not None:
        return known[0]
    # Read by pk: should the issue have been replaced since, this request serves the snapshot
    # it found current (its rows outlive the switch, see publication.snapshots.REPLACED_GRACE).
    return remember(Issue.objects.get(pk=snapshot[0]))


def remember(issue: Issue) -> Issue:
    """Keep a copy of ``issue`` as this process's record of its snapshot; returns the copy."""
    kept = copy.copy(issue)
    with _lock:
        if len(_known) >= _KEEP:
            _known.clear()
        _known[(kept.pk, kept.snapshot_etag)] = (kept, Vocabulary.from_facets(kept.facets))
    return kept


def vocabulary(issue: Issue) -> Vocabulary:
    """The category vocabulary of ``issue``, built once per process and snapshot."""
    known = _known.get((issue.pk, issue.snapshot_etag))
    if known is not None and known[0] is issue:
        return known[1]
    return Vocabulary.from_facets(issue.facets)


def forget() -> None:
    """Drop the issues kept in this process (tests start each case as a new process)."""
    with _lock:
        _known.clear()

"""Public reads of a snapshot from streaming replicas, when the operator names some.

``DATABASE_REPLICA_URLS`` (comma-separated) adds the aliases ``replica1``, ``replica2`` …; the
read path asks ``alias_for(issue)`` which one to read an issue's rows and counts from:

- a replica is used for an issue only once it has replayed that issue's snapshot: its copy of
  the issue row is live or replaced with the same snapshot etag (rows are written before the
  switch, and a withdrawal changes the etag in the transaction that deletes the row). So a
  replica never serves an issue it has not replayed, nor a withdrawn row, and never refuses a
  cursor of the current issue. Once seen, that is kept for the process (replay only moves on);
  a replica not there yet is asked again after ``RECHECK`` seconds, the primary reading
  meanwhile;
- a replica that fails to connect or to answer is left alone for ``DOWN_FOR`` seconds, its
  reads going to the primary. Each request checks the connection before routing to it (Django's
  health check, at most once a request), so stopping a replica costs no request an error;
- everything else (the current issue, writes, staff, caches, postings) uses the primary.

Processes learn of a new issue as before, from the listener on the primary: ``NOTIFY`` is not
replayed on standbys, and the primary is where an issue becomes current.
"""

import contextlib
import logging
import threading
import time

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from tenders.models import Issue

log = logging.getLogger(__name__)

RECHECK = 0.25
DOWN_FOR = 5.0

_lock = threading.Lock()
_replayed: set[tuple[str, int, str]] = set()
_not_yet: dict[tuple[str, int, str], float] = {}
_down_until: dict[str, float] = {}
_turn = [0]


def aliases() -> list[str]:
    return settings.DATABASE_REPLICAS


def alias_for(issue: Issue) -> str:
    """The database to read ``issue``'s rows and counts from: a replica that has replayed its
    snapshot, else the primary."""
    replicas = aliases()
    if not replicas:
        return DEFAULT_DB_ALIAS
    with _lock:
        _turn[0] = (_turn[0] + 1) % len(replicas)
        start = _turn[0]
    for alias in replicas[start:] + replicas[:start]:
        if _usable(alias, issue):
            return alias
    return DEFAULT_DB_ALIAS


def _usable(alias: str, issue: Issue) -> bool:
    now = time.monotonic()
    if _down_until.get(alias, 0.0) > now:
        return False
    key = (alias, issue.pk, issue.snapshot_etag)
    if key not in _replayed and _not_yet.get(key, 0.0) > now:
        return False
    try:
        connection = connections[alias]
        connection.close_if_health_check_failed()  # at most once a request
        connection.ensure_connection()
        if key in _replayed:
            return True
        replayed = (
            Issue.objects.using(alias)
            .filter(pk=issue.pk, snapshot_etag=issue.snapshot_etag)
            .filter(state__in=[Issue.State.LIVE, Issue.State.REPLACED])
            .exists()
        )
    except DatabaseError as error:
        _down(alias, error)
        return False
    with _lock:
        if replayed:
            _replayed.add(key)
            _not_yet.pop(key, None)
        else:
            _not_yet[key] = now + RECHECK
    return replayed


def _down(alias: str, error: BaseException) -> None:
    first = _down_until.get(alias, 0.0) <= time.monotonic()
    _down_until[alias] = time.monotonic() + DOWN_FOR
    with _lock:
        for key in [k for k in _replayed if k[0] == alias]:
            _replayed.discard(key)
    connection = connections[alias]
    with contextlib.suppress(DatabaseError):
        connection.close()
    if first:
        detail = (str(error).strip().splitlines() or [repr(error)])[0]
        log.warning("replica %s does not answer (%s); reading from the primary", alias, detail)


def lagging(issue: Issue) -> list[str]:
    """Replicas that have not replayed ``issue``'s snapshot or do not answer (health)."""
    return [alias for alias in aliases() if not _usable(alias, issue)]


def forget() -> None:
    """Drop what this process knows of the replicas (tests)."""
    with _lock:
        _replayed.clear()
        _not_yet.clear()
        _down_until.clear()

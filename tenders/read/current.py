"""Which issue the public surfaces serve, known in process and told of every switch.

The current issue (its pk and snapshot etag) changes once a week, or at an emergency
withdrawal; the read path wants to know it on every request. On PostgreSQL each process keeps
it, and learns of changes by ``LISTEN``/``NOTIFY``, so a request whose answer is cached costs
no query at all:

- every change of the current issue or of its snapshot etag calls ``changed()`` in the
  transaction that makes it, which sends a notification (delivered at commit to every
  listening process) and drops this process's own value at once (a test case's transaction
  never commits; asking again is always safe);
- each process has one listening connection of its own (autocommit, made lazily from the
  default connection's settings, so after gunicorn forks; made again if the pid changed). Per
  request it reads what arrived on that socket without waiting (no round trip). The kept value
  is used unless a notification came, the listener is new, or it is broken: then the database
  is asked, as before, with one query, and the answer kept. The listener listens before the
  first question is asked, so a switch between the two is never missed;
- a request that names another snapshot (a cursor, an ``If-None-Match``) asks the database
  before it is told its snapshot changed or is answered 304 (``naming``): a process that has
  not yet read the notification never refuses a cursor of the newer issue;
- a lost listener (database restarted, connection terminated) means one query per request
  again, one warning, and a new listener tried with backoff. Health (``fresh=True``) always
  asks: it reports the database's state.

On SQLite (a database file) a marker file beside the database plays the listener's part:
``changed()`` rewrites it when the switch commits, and each request reads its ``stat()`` (no
query). A marker that changed means: ask the database again. An in-memory SQLite database asks
on every request.

A frozen or partitioned database sends nothing and cannot switch for this process's other
connections to see either; until the listener's keepalives notice, cached answers keep being
served, and whatever needs the database answers 503 within the request's limit. The listener
needs a real session: behind a pooler in transaction mode a ``LISTEN`` hears nothing.

The issue record itself, read once per process and snapshot, is kept: nothing a public
surface reads of it changes while it is current.
"""

import contextlib
import copy
import logging
import os
import threading
import time
from collections.abc import Collection, Iterator
from contextvars import ContextVar
from pathlib import Path

from django.db import connection, transaction
from django.db.backends.postgresql.psycopg_any import is_psycopg3
from django.dispatch import Signal

from core.database import UNAVAILABLE
from tenders.models import Issue
from tenders.read.query import Vocabulary

log = logging.getLogger(__name__)

CHANNEL = "tenders_current_issue"
_TABLE = connection.ops.quote_name(Issue._meta.db_table)
_SQL = f"SELECT id, snapshot_etag FROM {_TABLE} WHERE is_current LIMIT 1"
# A lost listener is made again after this many seconds, doubling up to the last.
RETRY_FIRST = 1.0
RETRY_MOST = 30.0
# Issues recently current in this process, by (pk, etag); a handful is plenty.
_KEEP = 4
_known: dict[tuple[int, str], tuple[Issue, Vocabulary]] = {}
_lock = threading.Lock()

Snapshot = tuple[int, str] | None
_UNKNOWN = UNKNOWN = object()


class _Watch:
    """What ``Listener`` and ``Marker`` share: the kept answer and its generation.

    ``value`` is the kept answer (``_UNKNOWN`` until asked); ``generation`` counts what made it
    stale, so an answer asked before one of those is not kept after it.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.value = _UNKNOWN
        self.generation = 0

    def vouches(self) -> bool:
        """Whether a value kept now would be told when it goes stale."""
        return True

    def keep(self, generation: int, value: Snapshot) -> None:
        with self.lock:
            if generation == self.generation and self.vouches():
                self.value = value

    def forget_value(self) -> None:
        with self.lock:
            self._stale()

    def _stale(self) -> None:
        # The caller holds the lock.
        self.value = _UNKNOWN
        self.generation += 1


class Listener(_Watch):
    """This process's listening connection and the current snapshot it vouches for; a
    notification or a new listener starts a new generation.
    """

    def __init__(self):
        super().__init__()
        self.conn = None
        self.pid = 0
        self.retry_at = 0.0
        self.retry_after = RETRY_FIRST
        self.lost = False
        self.ending = ""
        self.orphans: list = []

    def read(self, *, connect: bool = True) -> tuple[int, object]:
        """(generation, kept value or ``_UNKNOWN``), after reading what arrived; no waiting
        unless a listener has to be made (and ``connect`` allows it)."""
        with self.lock:
            if self.conn is not None and self.pid != os.getpid():
                # Inherited from the parent process: its socket is the parent's. Keep the
                # object (closing it would end the parent's session) and make our own.
                self.orphans.append(self.conn)
                self._drop()
            if self.conn is None:
                if connect and time.monotonic() >= self.retry_at:
                    self._connect()
                return self.generation, _UNKNOWN
            try:
                pgconn = self.conn.pgconn
                pgconn.consume_input()
                told = False
                while pgconn.notifies() is not None:
                    told = True
                if self.ending or pgconn.status != 0:  # 0: CONNECTION_OK
                    raise OSError(self.ending or "the listening connection is closed")
            except Exception as error:
                self._lose(error)
                return self.generation, _UNKNOWN
            if told:
                self._stale()
            return self.generation, self.value

    def vouches(self) -> bool:
        return self.conn is not None

    def close(self) -> None:
        with self.lock:
            if self.conn is not None:
                if self.pid == os.getpid():
                    self.conn.close()
                else:
                    self.orphans.append(self.conn)
            self._drop()
            self.retry_at = 0.0
            self.retry_after = RETRY_FIRST
            self.lost = False

    def _connect(self) -> None:
        params = connection.get_connection_params()
        for name in ("cursor_factory", "context", "prepare_threshold"):
            params.pop(name, None)
        try:
            conn = connection.Database.connect(**params, autocommit=True)
            # The server's last word before it closes a connection (terminated, shutting
            # down) comes as a notice while idle: the end is known before the socket's EOF.
            conn.add_notice_handler(self._notice)
            try:
                conn.execute(f"LISTEN {CHANNEL}")
            except BaseException:
                conn.close()
                raise
        except Exception as error:
            self._lose(error)
            return
        self.conn, self.pid = conn, os.getpid()
        self._stale()
        self.retry_after = RETRY_FIRST
        if self.lost:
            self.lost = False
            log.info("Listening for switches of the current issue again.")

    def _notice(self, diagnostic) -> None:
        if diagnostic.severity_nonlocalized in ("FATAL", "PANIC"):
            self.ending = diagnostic.message_primary or "the server ends the connection"

    def _lose(self, error: BaseException) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()
        self._drop()
        self.retry_at = time.monotonic() + self.retry_after
        if not self.lost:
            self.lost = True
            log.warning(
                "Not listening for switches of the current issue (%s: %s); asking the "
                "database on every request until a listener is made again (every %g-%g s).",
                type(error).__name__,
                str(error).strip(),
                RETRY_FIRST,
                RETRY_MOST,
            )
        self.retry_after = min(self.retry_after * 2, RETRY_MOST)

    def _drop(self) -> None:
        self.conn = None
        self.ending = ""
        self.pid = 0
        self._stale()


_listener = Listener()


class Marker(_Watch):
    """SQLite: the file beside the database that every switch rewrites at commit.

    Same face as ``Listener``: ``read`` gives (generation, kept value); a new ``stat()`` of the
    file (inode, modification time in nanoseconds, size) starts a new generation, whose value
    is asked again. The file is replaced whole (``os.replace``), so readers see it or not.
    """

    def __init__(self, path: Path):
        super().__init__()
        self.path = path
        self.stamp: object = _UNKNOWN

    def read(self, *, connect: bool = True) -> tuple[int, object]:
        try:
            found = os.stat(self.path)
            stamp = (found.st_ino, found.st_mtime_ns, found.st_size)
        except OSError:
            stamp = None
        with self.lock:
            if stamp != self.stamp:
                self.stamp = stamp
                self._stale()
            return self.generation, self.value

    def close(self) -> None:
        with self.lock:
            self.stamp = _UNKNOWN
            self._stale()

    def write(self) -> None:
        """Tell every process on this database that the current issue changed."""
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            temporary.write_text(f"{time.time_ns()} {os.getpid()}\n")
            os.replace(temporary, self.path)
        except OSError as error:
            log.warning("Could not write the switch marker %s: %s", self.path, error)


_listens: bool | None = None
_marker: Marker | bool | None = None  # False: none (an in-memory database)


def listens() -> bool:
    """Whether this backend can tell processes of switches (PostgreSQL with psycopg 3)."""
    global _listens
    if _listens is None:
        _listens = connection.vendor == "postgresql" and is_psycopg3
    return _listens


def marker_path() -> Path | None:
    """The marker file of a SQLite database file (``<database>.current``), else None."""
    if connection.vendor != "sqlite" or connection.is_in_memory_db():
        return None
    return Path(f"{connection.settings_dict['NAME']}.current")


def _watch() -> Listener | Marker | None:
    """What tells this process of switches: the listener, the marker, or nothing (ask)."""
    global _marker
    if listens():
        return _listener
    if _marker is None:
        path = marker_path()
        _marker = False if path is None else Marker(path)
    return _marker or None


# The snapshots ``current_snapshot`` answered within ``serving()`` (the response cache keys a
# response by the one snapshot its request was answered from).
_served: ContextVar[set | None] = ContextVar("tenders_served_snapshots", default=None)


@contextlib.contextmanager
def serving() -> Iterator[set]:
    """Collect, in the set given, every snapshot that ``current_snapshot`` answers inside."""
    seen: set = set()
    token = _served.set(seen)
    try:
        yield seen
    finally:
        _served.reset(token)


def current_snapshot(*, naming: Collection[str] = (), fresh: bool = False) -> Snapshot:
    """(pk, snapshot etag) of the current issue, or None before the first publication.

    The kept value when it can be trusted (see the module's docstring); else one query.
    ``naming``: the snapshot etags the request names; a kept value that is not among them is
    checked with the database. ``fresh``: always ask.
    """
    value = _snapshot(naming, fresh)
    seen = _served.get()
    if seen is not None:
        seen.add(value)
    return value


def _snapshot(naming: Collection[str], fresh: bool) -> Snapshot:
    watch = _watch()
    if watch is None:
        return _checked_ask()
    generation, value = watch.read()
    if not fresh and _trusted(value, naming):
        return value
    value = _checked_ask()
    watch.keep(generation, value)
    return value


def kept_snapshot(*, naming: Collection[str] = (), connect: bool = True) -> Snapshot | object:
    """What ``current_snapshot(naming=naming)`` would answer without asking the database, or
    ``UNKNOWN`` when it would ask (no listener or marker, a switch noticed, a snapshot named
    that is not the kept one). Never queries: a caller that gets ``UNKNOWN`` takes the whole way.
    ``connect=False``: nor makes a listener (outside a request's answer limit)."""
    watch = _watch()
    if watch is None:
        return UNKNOWN
    _, value = watch.read(connect=connect)
    return value if _trusted(value, naming) else UNKNOWN


def _trusted(value: object, naming: Collection[str]) -> bool:
    return value is not _UNKNOWN and (not naming or (value is not None and value[1] in naming))


# Sent once the transaction that made an issue current has committed (sender: Issue,
# issue=...), for work that follows a publication (the search postings' job).
switched = Signal()


def changed() -> None:
    """Call in the transaction that changes which issue is current, or the current issue's
    snapshot etag: every listening process is told at commit, this one at once."""
    if listens():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, '')", [CHANNEL])
    watch = _watch()
    if isinstance(watch, Marker):
        transaction.on_commit(watch.write)
    if watch is not None:
        watch.forget_value()


def _checked_ask() -> Snapshot:
    """The question, as a request's first query on a connection kept from an earlier request
    also its health check (``CONN_HEALTH_CHECKS``): Django would first send a ``SELECT 1`` of
    its own; instead, a connection found broken is closed and the question asked again on a
    new one, which is what that check would have done, a round trip fewer."""
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


def _ask() -> Snapshot:
    with connection.cursor() as cursor:
        cursor.execute(_SQL)
        row = cursor.fetchone()
    return None if row is None else (row[0], row[1])


def current_issue(*, naming: Collection[str] = (), fresh: bool = False) -> Issue | None:
    snapshot = current_snapshot(naming=naming, fresh=fresh)
    if snapshot is None:
        return None
    known = _known.get(snapshot)
    if known is not None:
        return known[0]
    # Read by pk: should the issue have been replaced since, this request serves the snapshot
    # it found current (its rows outlive the switch, see publication.snapshots.REPLACED_GRACE).
    return remember(Issue.objects.get(pk=snapshot[0]))


def recheck(issue: Issue, etag: str) -> Issue:
    """The issue to answer a request naming snapshot ``etag`` with, given ``issue``: when
    ``issue`` is this process's record of what it found current and names another snapshot,
    the database says what is current (one query); any other issue is taken as given."""
    if etag == issue.snapshot_etag or not _is_kept(issue):
        return issue
    return current_issue(naming={etag}) or issue


def _is_kept(issue: Issue) -> bool:
    known = _known.get((issue.pk, issue.snapshot_etag))
    return known is not None and known[0] is issue


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
    if _is_kept(issue):
        return _known[(issue.pk, issue.snapshot_etag)][1]
    return Vocabulary.from_facets(issue.facets)


def forget() -> None:
    """Start as a new process would (tests): no issues kept, no listener, nothing known."""
    global _marker
    with _lock:
        _known.clear()
    _listener.close()
    _marker = None

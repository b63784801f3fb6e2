"""How long a request waits on PostgreSQL before it answers 503 instead.

A database that is down or unreachable is caught by the connection options (a short connect
timeout; TCP keepalives and a user timeout for a network that drops packets; see
``config.settings``). A *hung* server is not: its kernel still accepts connections and
acknowledges every byte, so nothing on the socket ever fails, and a request would wait until
the front server kills its worker a minute later. So each request runs inside
``answer_within(seconds)``: any wait on the database (connecting included) that gets no answer
for that long gives up, closes the connection (its state is unknown) and raises
``OperationalError``, which every surface answers as its own 503. Once a request has given up,
its further database calls fail at once, so it answers within one limit, not one per query.
The next request connects afresh, so the service recovers by itself when the database does.

Outside a request (commands, the worker) there is no limit: a publication may legitimately
run long statements. Inside one, the count of a search waits longer
(``answer_within_at_least``): it is kept for the snapshot once made, while a count given up
on would be given up on again by every request that asks.
"""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import psycopg
from django.db import InterfaceError, OperationalError, connections, transaction


class DatabaseNotAnswering(psycopg.OperationalError):
    """The database gave no answer within the request's limit."""


@dataclass
class _Limit:
    seconds: float
    gave_up: bool = False

    def give_up(self) -> DatabaseNotAnswering:
        self.gave_up = True
        return DatabaseNotAnswering(
            f"the database gave no answer within {self.seconds:g} s; gave up"
        )


_limit: ContextVar[_Limit | None] = ContextVar("database_answer_limit", default=None)


@contextmanager
def answer_within(seconds: float | None) -> Iterator[None]:
    """Within this block, give up on a database that does not answer for ``seconds``."""
    token = _limit.set(None if seconds is None else _Limit(seconds))
    try:
        yield
    finally:
        _limit.reset(token)


@contextmanager
def answer_within_at_least(seconds: float) -> Iterator[None]:
    """Within this block, a request waits up to ``seconds`` for each answer (or its own
    limit, if longer); outside a request (no limit) nothing changes. For statements whose
    answer is kept once computed, like the count of a search: giving up on one that is
    working would leave it uncounted for every later request too."""
    limit = _limit.get()
    if limit is None or limit.seconds >= seconds:
        yield
        return
    if limit.gave_up:
        raise DatabaseNotAnswering("the database did not answer earlier in this request")
    longer = _Limit(seconds)
    token = _limit.set(longer)
    try:
        yield
    finally:
        _limit.reset(token)
        limit.gave_up = longer.gave_up


class LimitedConnection(psycopg.Connection):
    """A psycopg connection whose waits honour ``answer_within``."""

    def wait(self, gen, interval=0.1, timeout=None):
        limit = _limit.get()
        if limit is None:
            return super().wait(gen, interval, timeout)
        if limit.gave_up:
            raise DatabaseNotAnswering("the database did not answer earlier in this request")
        bounded = limit.seconds if timeout is None else min(timeout, limit.seconds)
        started = time.monotonic()
        try:
            return super().wait(gen, interval, bounded)
        except psycopg.OperationalError:
            if time.monotonic() - started < limit.seconds:
                raise  # the caller's own timeout or a real error, not ours
            # Mid-query with no answer: the connection is unusable, and closing it now makes
            # Django's usability check at the end of the request fail at once, not hang.
            self.pgconn.finish()
            raise limit.give_up() from None

    @classmethod
    def _connect_gen(cls, conninfo=""):
        connecting = super()._connect_gen(conninfo)
        limit = _limit.get()
        if limit is None:
            return (yield from connecting)
        if limit.gave_up:
            raise DatabaseNotAnswering("the database did not answer earlier in this request")
        # The connect loop resumes this generator at least every 0.1 s, answer or not.
        deadline = time.monotonic() + limit.seconds
        try:
            waiting_for = next(connecting)
            while True:
                ready = yield waiting_for
                if time.monotonic() >= deadline:
                    connecting.close()
                    raise limit.give_up()
                waiting_for = connecting.send(ready)
        except StopIteration as done:
            return done.value


# What "the database is unavailable" looks like once Django has wrapped the driver's errors.
UNAVAILABLE = (OperationalError, InterfaceError)


def is_unavailable(error: BaseException | None) -> bool:
    return isinstance(error, UNAVAILABLE)


@contextmanager
def server_settings(settings: dict[str, str], using: str = "default") -> Iterator[None]:
    """PostgreSQL settings (planner hints, memory) for the statements inside, local to the
    transaction; when that is the caller's and goes on, they are restored at once. No
    savepoint: nothing here needs one. Elsewhere (SQLite) the statements run as they are."""
    database = connections[using]
    if database.vendor != "postgresql":
        yield
        return
    enclosed = database.in_atomic_block
    with transaction.atomic(using=using, savepoint=False), database.cursor() as cursor:
        cursor.execute(
            "SELECT " + ", ".join(["set_config(%s, %s, true)"] * len(settings)),
            [item for pair in settings.items() for item in pair],
        )
        yield
        if enclosed:
            cursor.execute(
                "SELECT set_config(name, reset_val, true) FROM pg_settings WHERE name = ANY(%s)",
                [list(settings)],
            )

"""Failed staff sign-ins, counted per account and per network address in the shared cache
(``CACHES["default"]``: Redis, or a table of the database), so every server process sees the
same counts.

After ``delay_after`` failures each further attempt must wait, twice as long each time (from
``first_delay`` up to ``max_delay`` seconds after the last failure); after ``lock_after``
failures the account is locked for ``lock_seconds``. An address may fail ``address_factor``
times as often before it waits or is locked (offices share one address). A refused attempt
checks no password and counts nothing. Counts are forgotten ``lock_seconds`` after the last
failure, and an account's count when it signs in.

The decisions are plain functions of a count and the time (``wait_for``, ``after_failure``);
the cache only keeps the counts. Attempts for one account name, and from one address, take
turns (``turn``: a key made with the cache's atomic ``add``), so simultaneous guesses sent to
several processes are each counted and none is checked past the limit.
"""

import hashlib
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace

from django.conf import settings
from django.core.cache import caches

from core.clients import rate_limit_subject

PREFIX = "staff-sign-in"


class Unavailable(Exception):
    """The shared cache did not answer: sign-in is refused (closed, not open) until it does."""


class _Shared:
    """CACHES["default"], whose failures are raised as Unavailable."""

    def __getattr__(self, name):
        method = getattr(caches["default"], name)

        def call(*args, **kwargs):
            try:
                return method(*args, **kwargs)
            except Exception as exc:
                raise Unavailable(f"{type(exc).__name__}: {exc}") from exc

        return call


shared = _Shared()


@dataclass(frozen=True)
class Limits:
    delay_after: int = 3
    first_delay: float = 1.0
    max_delay: float = 60.0
    lock_after: int = 10
    lock_seconds: float = 900.0
    address_factor: int = 3

    def for_address(self) -> "Limits":
        return replace(
            self,
            delay_after=self.delay_after * self.address_factor,
            lock_after=self.lock_after * self.address_factor,
        )


@dataclass(frozen=True)
class Count:
    failures: int = 0
    last: float = 0.0
    locked_until: float = 0.0


@dataclass(frozen=True)
class Refusal:
    seconds: int  # whole seconds to wait, at least 1
    locked: bool


def wait_for(count: Count, limits: Limits, now: float) -> float:
    """Seconds before the next attempt may be checked (0: now)."""
    if count.locked_until:
        return max(0.0, count.locked_until - now)
    if count.failures < limits.delay_after:
        return 0.0
    delay = min(limits.first_delay * 2 ** (count.failures - limits.delay_after), limits.max_delay)
    return max(0.0, count.last + delay - now)


def after_failure(count: Count, limits: Limits, now: float) -> Count:
    if count.locked_until and count.locked_until <= now:
        count = Count()  # the lock has lifted: counting starts again
    failures = count.failures + 1
    locked_until = now + limits.lock_seconds if failures >= limits.lock_after else 0.0
    return Count(failures=failures, last=now, locked_until=locked_until)


def limits() -> Limits:
    return Limits(**settings.STAFF_SIGN_IN_LIMITS)


def _account_key(username: str) -> str:
    digest = hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:40]
    return f"{PREFIX}:account:{digest}"


def _address_key(ip: str | None) -> str:
    return f"{PREFIX}:address:{rate_limit_subject(ip)}"


def _read(key: str) -> Count:
    value = shared.get(key)
    return Count(*value) if isinstance(value, list | tuple) and len(value) == 3 else Count()


def _write(key: str, count: Count, limits: Limits) -> None:
    keep = limits.lock_seconds + limits.max_delay
    shared.set(key, [count.failures, count.last, count.locked_until], keep)


# A turn is held while one attempt is checked and counted (well under a second); one left by a
# process that died ends by itself.
TURN_SECONDS = 10
TURN_WAIT = 2.0


@contextmanager
def turn(username: str, ip: str | None, wait: float = TURN_WAIT):
    """Yield True once this attempt holds the turn of its account name and of its address
    (waiting up to ``wait`` seconds for attempts in progress), else False."""
    cache = shared
    keys = [f"{_account_key(username)}:turn", f"{_address_key(ip)}:turn"]
    held = []
    deadline = time.monotonic() + wait
    try:
        for key in keys:
            while not cache.add(key, 1, TURN_SECONDS):
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(0.05)
            held.append(key)
        yield True
    finally:
        for key in held:
            cache.delete(key)


def refusal(username: str, ip: str | None, now: float | None = None) -> Refusal | None:
    """Why an attempt for ``username`` from ``ip`` is refused before its password is checked."""
    now = time.time() if now is None else now
    account, address = limits(), limits().for_address()
    checks = [(_read(_account_key(username)), account), (_read(_address_key(ip)), address)]
    worst = None
    for count, lim in checks:
        seconds = wait_for(count, lim, now)
        if seconds > 0 and (worst is None or seconds > worst.seconds):
            locked = bool(count.locked_until)
            worst = Refusal(seconds=max(1, int(seconds + 0.999)), locked=locked)
    return worst


def failed(username: str, ip: str | None, now: float | None = None) -> Count:
    """Count a failure; the account's new count (``locked_until`` set when it is locked now)."""
    now = time.time() if now is None else now
    account, address = limits(), limits().for_address()
    key = _address_key(ip)
    _write(key, after_failure(_read(key), address, now), address)
    key = _account_key(username)
    before = _read(key)
    after = after_failure(before, account, now)
    _write(key, after, account)
    return after


def succeeded(username: str) -> None:
    shared.delete(_account_key(username))

"""Per-client submission limits, shared by every server process through the cache framework.

A limit such as ``"10/hour"`` allows that many stored submissions per client in each fixed
window (aligned to the epoch, so windows are the same in every process). Each admitted
submission claims one of the window's numbered slots with ``cache.add``, which is atomic in
every shared backend (a primary-key insert in the database cache, ``SET NX`` in Redis). A plain
``add`` + ``incr`` counter is not enough here: the database cache's ``incr`` is a read followed
by a write, so concurrent requests could all read the same count and all pass. A hint key
remembers how many slots are taken so the usual case costs one read and one claim.

If the cache itself fails, the submission is admitted (and the failure logged): turning buyers
away because a counter is unavailable is worse than a burst.
"""

import logging
import math
import re
from dataclasses import dataclass

from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured

log = logging.getLogger(__name__)

UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
_RATE_RE = re.compile(r"^\s*(\d+)\s*/\s*(second|minute|hour|day)s?\s*$")
# Slot keys outlive their window a little, so a slow request never sees its window's slots
# vanish while it counts them.
EXPIRY_SLACK = 60


@dataclass(frozen=True)
class Rate:
    limit: int
    period: int
    unit: str

    def __str__(self) -> str:
        return f"{self.limit} per {self.unit}"


def parse_rate(text: str | None) -> Rate | None:
    """``"10/hour"`` -> Rate(10, 3600); empty or None -> no limit."""
    if text is None or not str(text).strip():
        return None
    match = _RATE_RE.match(str(text).lower())
    if not match or int(match[1]) < 1:
        raise ImproperlyConfigured(
            f"Rate limit {text!r} is not valid: write N/second, N/minute, N/hour or N/day "
            "with N of at least 1 (empty for no limit)."
        )
    return Rate(int(match[1]), UNITS[match[2]], match[2])


def window(now: float, period: int) -> tuple[int, int]:
    """The index of the window ``now`` falls in and the whole seconds until it ends (>= 1)."""
    index = int(now // period)
    return index, max(1, math.ceil((index + 1) * period - now))


def take(*, scope: str, subject: str, rate: Rate, now: float) -> int | None:
    """Claim one submission for ``subject``. None when admitted; otherwise the seconds until
    the window ends and the client may try again."""
    index, retry_after = window(now, rate.period)
    base = f"intake-rl:{scope}:{subject}:{rate.period}:{index}"
    timeout = retry_after + EXPIRY_SLACK
    try:
        taken = cache.get(f"{base}:n") or 0
        for slot in range(taken, rate.limit):
            if cache.add(f"{base}:{slot}", 1, timeout):
                cache.set(f"{base}:n", slot + 1, timeout)
                return None
        cache.set(f"{base}:n", rate.limit, timeout)
    except Exception:
        log.warning("Rate limit for %s could not be checked; admitting", scope, exc_info=True)
        return None
    return retry_after

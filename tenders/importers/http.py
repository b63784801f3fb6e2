"""Reading a publisher's URL: timeouts, retries with backoff on 429 and 503 honouring
``Retry-After``, and an HTML rate-limit page recognised as a rate limit, never parsed as data.

A ``Session`` is one run's client of one publisher: it spaces its requests to the publisher's
published limit (``interval`` seconds from one request to the next), names the service and a
contact in its ``User-Agent``, can ``POST`` JSON (TED's search) and asks conditionally
(``If-None-Match``/``If-Modified-Since``), a ``304`` raising ``NotModified``.

Only the standard library; the answer is returned as a stream (a page is never read whole
before parsing). ``sleep`` and ``clock`` are parameters so tests see the waits without waiting.
"""

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import BinaryIO

from .notice import ReadError

PRODUCT = "tender-feed-importer/1.0"
USER_AGENT = f"{PRODUCT} (+staff import of public notices)"
RETRY_STATUSES = frozenset({429, 503})
RATE_LIMIT_WORDS = (
    b"rate limit",
    b"rate-limit",
    b"ratelimit",
    b"too many requests",
    b"slow down",
    b"request limit",
    b"quota",
)
HTML_SNIFF = 4096


@dataclass(frozen=True)
class HttpPolicy:
    timeout: float = 30.0  # seconds to connect and between bytes
    attempts: int = 5
    backoff: float = 2.0  # first wait without Retry-After; doubles each attempt
    max_wait: float = 120.0  # longest single wait, whatever Retry-After asks


def retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks for (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _looks_html(content_type: str, head: bytes) -> bool:
    start = head.lstrip()[:15].lower()
    return content_type == "text/html" or start.startswith((b"<!doctype html", b"<html"))


def _is_rate_limit_page(head: bytes) -> bool:
    lowered = head.lower()
    return any(word in lowered for word in RATE_LIMIT_WORDS)


class NotModified(Exception):
    """The publisher answered 304: nothing changed since the validators given."""


class Gone(ReadError):
    """The publisher refused an address it gave earlier (an expired cursor or token): 400,
    404 or 410."""


@dataclass
class Session:
    """One run's requests to one publisher, spaced and named (see the module docstring)."""

    policy: HttpPolicy = field(default_factory=HttpPolicy)
    sleep: Callable[[float], None] | None = None
    clock: Callable[[], float] = time.monotonic
    interval: float = 0.0  # seconds from the start of one request to the next
    user_agent: str = USER_AGENT
    # Statuses that mean "slow down" (Contracts Finder also answers 403 when asked too often).
    retry_statuses: frozenset[int] = RETRY_STATUSES
    requests: int = 0
    waits: list[float] = field(default_factory=list)
    _last: float | None = None

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self.waits.append(seconds)
            (self.sleep or time.sleep)(seconds)

    def _pace(self) -> None:
        if self._last is not None and self.interval > 0:
            self._wait(self._last + self.interval - self.clock())
        self._last = self.clock()
        self.requests += 1

    def open(
        self,
        url: str,
        *,
        accept: str = "application/json",
        data: dict | None = None,
        headers: dict[str, str] | None = None,
    ) -> BinaryIO:
        """The body of ``url`` as a stream, after any retries (``data``: POST it as JSON);
        ``NotModified`` on 304, ``Gone`` on 400/404/410, ReadError when it cannot be had."""
        policy = self.policy
        wait = policy.backoff
        problem = ""
        body = json.dumps(data).encode() if data is not None else None
        sent = {"Accept": accept, "User-Agent": self.user_agent, **(headers or {})}
        if body is not None:
            sent["Content-Type"] = "application/json"
        for attempt in range(1, policy.attempts + 1):
            asked: float | None = None
            request = urllib.request.Request(url, data=body, headers=sent)
            self._pace()
            try:
                response = urllib.request.urlopen(request, timeout=policy.timeout)
            except urllib.error.HTTPError as exc:
                if exc.code == 304:
                    exc.close()
                    raise NotModified(url) from None
                if exc.code not in self.retry_statuses:
                    kind = Gone if exc.code in (400, 404, 410) else ReadError
                    raise kind(
                        f"{url} answered HTTP {exc.code} {exc.reason}; check the address "
                        "(and that the feed is public)."
                    ) from exc
                why = "unavailable" if exc.code == 503 else "rate limited"
                problem = f"HTTP {exc.code} ({why})"
                asked = retry_after(exc.headers.get("Retry-After"))
                exc.close()
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                reason = getattr(exc, "reason", exc)
                problem = f"no answer ({reason})"
            else:
                head = response.peek(HTML_SNIFF)[:HTML_SNIFF]
                if not _looks_html(response.headers.get_content_type(), head):
                    return response
                response.close()
                if not _is_rate_limit_page(head):
                    raise ReadError(
                        f"{url} answered an HTML page, not the feed's data: check the address "
                        "(it should be the API or file URL, not a web page)."
                    )
                problem = "an HTML rate-limit page"
            if attempt == policy.attempts:
                break
            self._wait(min(policy.max_wait, asked if asked is not None else wait))
            # The wait replaces the spacing: the next request may go as soon as it is over.
            self._last = None
            wait *= 2
        raise ReadError(
            f"{url} still gave {problem} after {policy.attempts} attempts; try again later "
            "(the import can be rerun safely: what was imported is not duplicated)."
        )


def open_url(
    url: str,
    *,
    policy: HttpPolicy | None = None,
    sleep: Callable[[float], None] | None = None,
    accept: str = "application/json",
    session: Session | None = None,
) -> BinaryIO:
    """The body of ``url`` as a stream, after any retries; ReadError when it cannot be had."""
    session = session or Session(policy=policy or HttpPolicy(), sleep=sleep)
    return session.open(url, accept=accept)

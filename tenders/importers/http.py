"""Reading a publisher's URL: timeouts, retries with backoff on 429 and 503 honouring
``Retry-After``, and an HTML rate-limit page recognised as a rate limit, never parsed as data.

Only the standard library; the answer is returned as a stream (a page is never read whole
before parsing). ``sleep`` is a parameter so tests can see the waits without waiting.
"""

import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import BinaryIO

from .notice import ReadError

USER_AGENT = "tender-feed-importer/1.0 (+staff import of public notices)"
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


def open_url(
    url: str,
    *,
    policy: HttpPolicy | None = None,
    sleep: Callable[[float], None] | None = None,
    accept: str = "application/json",
) -> BinaryIO:
    """The body of ``url`` as a stream, after any retries; ReadError when it cannot be had."""
    policy = policy or HttpPolicy()
    wait = policy.backoff
    problem = ""
    for attempt in range(1, policy.attempts + 1):
        asked: float | None = None
        request = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": USER_AGENT})
        try:
            response = urllib.request.urlopen(request, timeout=policy.timeout)
        except urllib.error.HTTPError as exc:
            if exc.code not in RETRY_STATUSES:
                raise ReadError(
                    f"{url} answered HTTP {exc.code} {exc.reason}; check the address "
                    "(and that the feed is public)."
                ) from exc
            problem = f"HTTP {exc.code} ({'rate limited' if exc.code == 429 else 'unavailable'})"
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
        (sleep or time.sleep)(min(policy.max_wait, asked if asked is not None else wait))
        wait *= 2
    raise ReadError(
        f"{url} still gave {problem} after {policy.attempts} attempts; try again later "
        "(the import can be rerun safely: what was imported is not duplicated)."
    )

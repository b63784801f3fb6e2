"""The answer cache of the public read path: bodies ready to send, kept per snapshot.

Every answer of the read path (a page, a row, the facets, a search count) is a pure function
of one immutable snapshot and the request's canonical form. So it is computed once and kept
as the bytes a surface sends, under a key that starts with the issue's pk and snapshot etag:
a publication or withdrawal (a new snapshot) makes every older key unreachable at once, and
nothing is ever invalidated. Old entries age out.

Two tiers:
- this process: an LRU bounded by bytes (``TENDERS_ANSWER_CACHE_BYTES``); a hit costs no query;
- shared: the ``answers`` cache (Redis when ``REDIS_URL`` is set, else a database table that
  ``migrate`` creates), so the other processes and app servers get what one of them computed,
  and publication can warm it for all of them.

Caching only ever saves work. A shared tier that fails is left alone for a while with one
warning per outage, and answers are computed as if nothing were cached.
"""

import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from core.errors import ApiError

log = logging.getLogger(__name__)

SHARED_ALIAS = "answers"
# A failed shared tier is tried again after this many seconds.
RETRY_SECONDS = 30.0
# Statuses whose answers are kept: a 503 (nothing published, database away) never is.
KEPT_STATUSES = frozenset({200, 400, 404, 409})
# Bookkeeping of one local entry beyond its body (key, tuple, dict slot), roughly.
ENTRY_OVERHEAD = 200


class Answer:
    """One answer: its status and its JSON body, exactly as REST sends it. Immutable, shared
    by every request that asks the same; what is derived from it is computed once."""

    __slots__ = ("_literal", "_text", "_value", "body", "status")

    def __init__(self, body: bytes, status: int = 200, value: Any = None):
        """``value``: the body as Python values when the caller has them already."""
        self.body = body
        self.status = status
        self._text: str | None = None
        self._literal: bytes | None = None
        self._value: Any = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Answer):
            return NotImplemented
        return (self.body, self.status) == (other.body, other.status)

    __hash__ = None

    def __repr__(self) -> str:
        return f"Answer({self.status}, {len(self.body)} bytes)"

    def data(self) -> Any:
        """The body as Python values, a fresh copy the caller may change."""
        return json.loads(self.body)

    def value(self) -> Any:
        """The body as Python values, parsed once and shared: read it, never change it."""
        if self._value is None:
            self._value = json.loads(self.body)
        return self._value

    def text(self) -> str:
        if self._text is None:
            self._text = self.body.decode()
        return self._text

    def literal(self) -> bytes:
        """The body's text as a JSON string (a document that quotes the body, as an MCP
        result does in its text content, writes these bytes)."""
        if self._literal is None:
            self._literal = json.dumps(self.text(), ensure_ascii=False).encode()
        return self._literal

    def error(self) -> ApiError:
        """The ``ApiError`` an error answer was made from."""
        body = self.data()
        error = body.pop("error")
        return ApiError(self.status, error["code"], error["message"], error.get("param"), body)


def encode(value: Any) -> bytes:
    """JSON as DRF's ``JSONRenderer`` writes it (compact, UTF-8, strict, U+2028 and U+2029
    escaped), so a cached body is byte-identical to what the view would have rendered."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").encode()


def error_answer(error: ApiError) -> Answer:
    return Answer(encode(error.body()), error.status)


def key(pk: int, etag: str, kind: str, canonical: str) -> str:
    """The cache key of an answer: the snapshot, what kind of answer, and a digest of the
    canonical request (short and safe for every backend whatever the request holds)."""
    digest = hashlib.blake2b(canonical.encode(), digest_size=16).hexdigest()
    return f"{pk}:{etag}:{kind}:{digest}"


class LocalTier:
    """Answers of this process, least recently used first out, at most ``max_bytes``."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.size = 0
        self.entries: OrderedDict[str, tuple[Answer, int]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: str) -> Answer | None:
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                return None
            self.entries.move_to_end(key)
            return entry[0]

    def put(self, key: str, answer: Answer) -> None:
        cost = len(answer.body) + len(key) + ENTRY_OVERHEAD
        if cost > self.max_bytes:
            return
        with self.lock:
            old = self.entries.pop(key, None)
            if old is not None:
                self.size -= old[1]
            self.entries[key] = (answer, cost)
            self.size += cost
            while self.size > self.max_bytes:
                _, (_, dropped) = self.entries.popitem(last=False)
                self.size -= dropped

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.size = 0


class SharedTier:
    """The ``answers`` cache of Django's cache framework, as a tier that may fail."""

    def __init__(self, alias: str = SHARED_ALIAS):
        self.alias = alias
        self.resting_until = 0.0
        self.failing = False

    def get(self, key: str) -> Answer | None:
        stored = self._call("get", key)
        if not (isinstance(stored, tuple) and len(stored) == 2):
            return None
        status, body = stored
        return Answer(body, status)

    def put(self, key: str, answer: Answer) -> None:
        self._call("set", key, (answer.status, answer.body))

    def reset(self) -> None:
        self.resting_until = 0.0
        self.failing = False

    def _call(self, method: str, *args):
        if self.resting_until and time.monotonic() < self.resting_until:
            return None
        try:
            cache = caches[self.alias]
            with _savepoint(cache):
                result = getattr(cache, method)(*args)
        except Exception as exc:
            self.resting_until = time.monotonic() + RETRY_SECONDS
            if not self.failing:
                self.failing = True
                log.warning(
                    "The shared answer cache %r failed (%s: %s); answering without it, "
                    "trying again every %g s.",
                    self.alias,
                    type(exc).__name__,
                    exc,
                    RETRY_SECONDS,
                )
            return None
        if self.failing:
            self.failing = False
            log.info("The shared answer cache %r answers again.", self.alias)
        self.resting_until = 0.0
        return result


def _savepoint(cache):
    # A failing statement inside a transaction would abort it: keep the database tier's
    # statements in a savepoint there (outside one, each statement is its own transaction).
    if isinstance(cache, DatabaseCache) and connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return transaction.atomic()
    return nullcontext()


class AnswerCache:
    def __init__(self, local: LocalTier, shared: SharedTier):
        self.local = local
        self.shared = shared

    def get_or_compute(self, key: str, compute: Callable[[], Answer]) -> Answer:
        """The answer under ``key``: from this process, else the shared tier, else
        ``compute()`` (which may raise ``ApiError``: a kept status is cached and raised)."""
        answer = self.local.get(key)
        if answer is not None:
            return answer
        answer = self.shared.get(key)
        if answer is None:
            try:
                answer = compute()
            except ApiError as error:
                if error.status not in KEPT_STATUSES:
                    raise
                answer = error_answer(error)
            self.shared.put(key, answer)
        self.local.put(key, answer)
        return answer

    def clear_local(self) -> None:
        self.local.clear()


_cache: AnswerCache | None = None


def answer_cache() -> AnswerCache:
    global _cache
    if _cache is None:
        _cache = AnswerCache(
            LocalTier(settings.TENDERS_ANSWER_CACHE_BYTES), SharedTier(SHARED_ALIAS)
        )
    return _cache


def answer(key: str, compute: Callable[[], Answer]) -> Answer:
    """The answer under ``key``; raises the ``ApiError`` of an error answer."""
    found = answer_cache().get_or_compute(key, compute)
    if found.status != 200:
        raise found.error()
    return found


# Whole responses of the listing, a row and the read tools, as the stack sent them: the
# response cache's store (``tenders.api.cache``), within half the bytes of the local tier.
_responses: LocalTier | None = None


def responses() -> LocalTier:
    global _responses
    if _responses is None:
        _responses = LocalTier(settings.TENDERS_ANSWER_CACHE_BYTES // 2)
    return _responses


def reset() -> None:
    """Start afresh as a new process: nothing kept, settings read again (tests)."""
    global _cache, _responses
    _cache = None
    _responses = None

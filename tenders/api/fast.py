"""The short way of the listing and of one row: a request this process answered before, for
the snapshot it still knows current, is answered again before DRF's dispatch.

The views remember each 200 they send under (snapshot, route, raw request) in
``tenders.read.answers.memo()`` (see there why that is safe); the URL patterns wrap them in
``short_way``. A GET or HEAD found in the memo is answered from it with the bytes and headers
the view gives (a 304 on a matching ``If-None-Match``), without DRF's request wrapping and
negotiation, parameter parsing, cursor decoding or the canonical key; and without a query:
only the snapshot kept in process is used (``tenders.read.current.kept_snapshot``). A request the
memo does not hold, one that names another snapshot this process cannot vouch for, and every
other method take the whole way, which answers and remembers as before.
"""

from functools import wraps

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpResponse
from django.http.response import ResponseHeaders

from core.api import cache_headers, etag_matches, named_snapshots, not_modified
from tenders.models import Issue
from tenders.read import answers, current
from tenders.read.answers import Answer

# What DRF's finalize_response adds to every answer of a PublicView.
ALLOW = "GET, HEAD, OPTIONS"


def snapshot_response(answer: Answer, etag: str) -> HttpResponse:
    """The cached bytes as they are: what DRF would render from the same body."""
    return cache_headers(HttpResponse(answer.body, content_type="application/json"), etag)


def _raw(request, at_id: str) -> str:
    return f"{at_id}?{request.META.get('QUERY_STRING', '')}"


def remembered(request, route: str, issue: Issue, answer: Answer, at_id: str = ""):
    """The response of the whole way: ``answer`` for ``issue``'s snapshot, kept for the short
    way, and marked so that ``ShortWay`` keeps what the whole stack makes of it."""
    snapshot = (issue.pk, issue.snapshot_etag)
    answers.memo().put(answers.raw_key(snapshot, route, _raw(request, at_id)), answer)
    return _marked(snapshot_response(answer, issue.snapshot_etag), snapshot)


def _marked(response: HttpResponse, snapshot: tuple[int, str]) -> HttpResponse:
    response.remembered_snapshot = snapshot
    return response


def recall(request, route: str, at_id: str = "") -> HttpResponse | None:
    """The response to ``request`` from the memo, or None (take the whole way)."""
    named = named_snapshots(request) if "HTTP_IF_NONE_MATCH" in request.META else ()
    snapshot = current.kept_snapshot(naming=named)
    if snapshot is current.UNKNOWN or snapshot is None:
        return None
    answer = answers.memo().get(answers.raw_key(snapshot, route, _raw(request, at_id)))
    if answer is None:
        return None
    etag = snapshot[1]
    if etag_matches(request, etag):
        response = not_modified(etag)
    else:
        response = _marked(snapshot_response(answer, etag), snapshot)
    response["Allow"] = ALLOW
    return response


def short_way(route: str, view):
    """``view`` (a DRF view function) answering what the memo holds itself. The wrapper keeps
    the view's attributes (``cls``, ``initkwargs``, ``csrf_exempt``): drf-spectacular and
    Django see the same view."""

    @wraps(view)
    def answer(request, *args, **kwargs):
        if request.method in ("GET", "HEAD"):
            response = recall(request, route, kwargs.get("at_id", ""))
            if response is not None:
                return response
        return view(request, *args, **kwargs)

    return answer


# --- before every middleware ------------------------------------------------------------


class Sent(Answer):
    """A response as the whole stack sent it: status, headers and body."""

    __slots__ = ("_held", "headers")

    def __init__(self, body: bytes, status: int, headers: tuple[tuple[str, str], ...]):
        super().__init__(body, status)
        self.headers = headers
        # As a response holds them, checked once rather than again on every replay.
        self._held = ResponseHeaders(dict(headers))._store

    def replay(self, body: bytes | None = None) -> HttpResponse:
        """A response with these status and headers; with ``body`` and its length if given,
        else with the body sent."""
        response = HttpResponse(self.body if body is None else body, status=self.status)
        held = dict(self._held)
        if body is not None:
            held["content-length"] = ("Content-Length", str(len(body)))
        response.headers._store = held
        return response


# Where the views that remember their answers are (config.public_urls).
PATHS = "/api/v1/tenders"


def _sent_key(snapshot: tuple[int, str], request) -> str:
    raw = f"{request.scheme}:{request.path_info}?{request.META.get('QUERY_STRING', '')}"
    return answers.raw_key(snapshot, "sent", raw)


def _blind() -> bool:
    """Whether the stack's middleware answers a GET of these paths the same whatever the
    request's headers, but for its scheme (in the key) and its Host (checked): no user agents
    refused, no redirect to www."""
    return not settings.DISALLOWED_USER_AGENTS and not settings.PREPEND_WWW


def _host_allowed(request) -> bool:
    try:
        request.get_host()
    except DisallowedHost:
        return False
    return True


class ShortWay:
    """The outermost middleware: a GET or HEAD that the whole stack answered before with a
    remembered 200 of the listing or a row (``remembered``), for the snapshot this process
    knows current, is answered with the status, headers and body the stack sent then, before
    any other middleware runs. The key is the snapshot, the scheme (HSTS, an https redirect),
    the path and the query string; a Host the stack would refuse, an ``If-None-Match`` and
    anything not remembered take the whole way, which keeps what it sends: a marked 200
    without cookies or ``Vary``."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (
            request.method not in ("GET", "HEAD")
            or not request.path_info.startswith(PATHS)
            or "HTTP_IF_NONE_MATCH" in request.META
            or not _blind()
        ):
            return self.get_response(request)
        # Outside the request's database answer limit (core.middleware): no listener made.
        snapshot = current.kept_snapshot(connect=False)
        if snapshot is not current.UNKNOWN and snapshot is not None:
            sent = answers.memo().get(_sent_key(snapshot, request))
            if sent is not None and _host_allowed(request):
                return sent.replay()
        response = self.get_response(request)
        marked = getattr(response, "remembered_snapshot", None)
        if (
            marked is not None
            and response.status_code == 200
            and not response.streaming
            and not response.cookies
            and not response.has_header("Vary")
        ):
            sent = Sent(response.content, 200, tuple(response.items()))
            answers.memo().put(_sent_key(marked, request), sent)
        return response

"""The short way of the listing and of one row: a request this process answered before, for
the snapshot it still knows current, is answered again before DRF's dispatch.

The views remember each 200 they send under (snapshot, route, raw request) in
``tenders.answers.memo()`` (see there why that is safe); the URL patterns wrap them in
``short_way``. A GET or HEAD found in the memo is answered from it with the bytes and headers
the view gives (a 304 on a matching ``If-None-Match``), without DRF's request wrapping and
negotiation, parameter parsing, cursor decoding or the canonical key; and without a query:
only the snapshot kept in process is used (``tenders.current.kept_snapshot``). A request the
memo does not hold, one that names another snapshot this process cannot vouch for, and every
other method take the whole way, which answers and remembers as before.
"""

from functools import wraps

from django.http import HttpResponse

from config.api import cache_headers, etag_matches, named_snapshots, not_modified
from tenders import answers, current
from tenders.answers import Answer
from tenders.models import Issue

# What DRF's finalize_response adds to every answer of a PublicView.
ALLOW = "GET, HEAD, OPTIONS"


def snapshot_response(answer: Answer, etag: str) -> HttpResponse:
    """The cached bytes as they are: what DRF would render from the same body."""
    return cache_headers(HttpResponse(answer.body, content_type="application/json"), etag)


def _raw(request, at_id: str) -> str:
    return f"{at_id}?{request.META.get('QUERY_STRING', '')}"


def remember(request, route: str, issue: Issue, answer: Answer, at_id: str = "") -> None:
    """Keep the answer the whole way gave to ``request`` for ``issue``'s snapshot."""
    key = answers.raw_key((issue.pk, issue.snapshot_etag), route, _raw(request, at_id))
    answers.memo().put(key, answer)


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
        response = snapshot_response(answer, etag)
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

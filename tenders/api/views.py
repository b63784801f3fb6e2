"""Public HTTP views of the feed. Thin: translate HTTP to selector calls, add headers.

The bodies come from ``tenders.read.selectors`` (the MCP tools call the same functions).
drf-spectacular documents each operation: ``public_get`` names it and its answers, the method's
docstring is its description.
"""

import gzip
from collections.abc import Callable
from functools import lru_cache

from django.http import HttpResponse, StreamingHttpResponse
from django.utils import timezone
from rest_framework import generics, viewsets
from rest_framework.response import Response

from core.api import (
    NO_STORE,
    PublicView,
    base_url,
    cache_headers,
    etag_matches,
    named_snapshots,
    not_modified,
    query_params,
)
from core.http import negotiated_quality
from core.openapi import Schema, answer, error, example, public_get
from tenders.models import SnapshotRow
from tenders.read import selectors
from tenders.read.answers import Answer
from tenders.read.filters import TenderFilterSet
from tenders.read.query import REST, check_params

from . import examples
from .openapi import AT_ID, LANG, UNAVAILABLE, ListingSchema
from .pagination import SnapshotCursorPagination, TenderFilterBackend

CHUNK = 64 * 1024


def snapshot_response(answer: Answer, etag: str) -> HttpResponse:
    """The cached bytes as they are: what DRF would render from the same body."""
    return cache_headers(HttpResponse(answer.body, content_type="application/json"), etag)


def cacheable(response: HttpResponse, holds: Callable[[], bool] | None = None) -> HttpResponse:
    """Marked for the response cache (``tenders.api.cache``): a function of the snapshot and
    the request alone; with ``holds``, only while it answers True (asked on every hit)."""
    response.cacheable = True
    response.cacheable_while = holds
    return response


@lru_cache(maxsize=4)
def rows_of(issue_pk: int):
    """An issue's rows as a query, made once (building one costs ten times its copy)."""
    return SnapshotRow.objects.filter(issue_id=issue_pk)


class TenderViewSet(viewsets.ViewSetMixin, PublicView, generics.GenericAPIView):
    """The listing and one row of the current snapshot (``list`` and ``retrieve``).

    Parameters go through ``TenderFilterSet`` (the one parser), pages through
    ``SnapshotCursorPagination``; bodies are the selectors' cached answers, sent as they are.
    A 200 is marked ``cacheable`` for the response cache (``tenders.api.cache``)."""

    queryset = SnapshotRow.objects.all()
    lookup_field = "asaptic_id"
    lookup_url_kwarg = "at_id"
    filter_backends = [TenderFilterBackend]
    filterset_class = TenderFilterSet
    pagination_class = SnapshotCursorPagination
    schema = ListingSchema()
    surface = REST

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if self.action is not None:  # list or retrieve: not a preflight, nor a refused method
            self.issue = selectors.require_current_issue(naming=named_snapshots(request))

    def get_queryset(self):
        """The current snapshot's rows, never read here: the pagination reads a page through
        the selectors (None when the schema is generated)."""
        issue = getattr(self, "issue", None)
        return rows_of(issue.pk).all() if issue else SnapshotRow.objects.none()

    @public_get(
        "listTenders",
        "List tenders",
        "tenders",
        {
            200: answer(
                "TenderList",
                "A page of rows.",
                example("page", examples.page(), "Full rows"),
                example("page in one language", examples.page("zht"), "lang=zht"),
            ),
            400: error(
                "invalid_parameter or invalid_cursor.",
                example(
                    "invalid_parameter",
                    examples.bad_parameter(),
                    "A value outside the parameter's domain, or an unknown parameter",
                ),
                example(
                    "invalid_cursor",
                    examples.cursor_of_other_filters(),
                    "An altered cursor, or one sent with other filters",
                ),
            ),
            409: error(
                "snapshot_changed: the feed was republished since the cursor was made.",
                example("snapshot_changed", examples.snapshot_changed()),
            ),
            503: UNAVAILABLE,
        },
    )
    def list(self, request):
        """One page of the current snapshot's rows, ordered by sort_key. Rows whose deadline
        has passed are left out unless closing_bucket says otherwise. total counts every
        matching row; follow meta.next_cursor for the next page. Cost does not grow with page
        depth."""
        # A bad request is an error even when cached; the plan's issue is the one to answer.
        plan = self.paginate_queryset(self.get_queryset())
        etag = plan.issue.snapshot_etag
        if etag_matches(request, etag):
            return not_modified(etag)
        return cacheable(snapshot_response(self.paginator.page(plan), etag))

    @public_get(
        "getTender",
        "Get one tender",
        "tenders",
        {
            200: answer(
                "TenderOne",
                "The row.",
                example("row", examples.one()),
                example("row in one language", examples.one("en"), "lang=en"),
            ),
            400: error(
                "invalid_parameter (lang, or an unknown parameter).",
                example("invalid_parameter", examples.bad_lang()),
            ),
            404: error(
                "not_found: identical for every absent id.",
                example("not_found", examples.not_found()),
            ),
            503: UNAVAILABLE,
        },
        parameters=[AT_ID, LANG],
    )
    def retrieve(self, request, at_id: str):
        """One row of the current snapshot. Every id that is not in it (malformed, withheld,
        from an older issue, never issued) gets the same 404 body."""
        issue = self.issue
        answer = selectors.tender_answer(at_id, query_params(request), issue=issue)
        if etag_matches(request, issue.snapshot_etag):
            return not_modified(issue.snapshot_etag)
        return cacheable(snapshot_response(answer, issue.snapshot_etag))


class TenderFacets(PublicView):
    @public_get(
        "getTenderFacets",
        "Filter vocabulary and counts",
        "tenders",
        {
            200: answer(
                "TenderFacets",
                "Facets.",
                example("facets", examples.facets(), "Abridged: every group lists all its values"),
            ),
            400: error("invalid_parameter: it takes none."),
            503: UNAVAILABLE,
        },
    )
    def get(self, request):
        """Markets, categories (slug and three names), closing buckets and value bands, each
        with its row count in the current snapshot, computed at publication. The values are
        exactly what the list filters accept. Takes no parameters."""
        check_params(query_params(request), ())
        issue = selectors.require_current_issue(naming=named_snapshots(request))
        # meta tells whether the feed is fresh, which changes with time within one snapshot.
        now = timezone.now()
        fresh = selectors.is_fresh(issue, now)
        etag = issue.snapshot_etag + ("" if fresh else "-degraded")
        if etag_matches(request, etag):
            return not_modified(etag)
        response = snapshot_response(selectors.facets_answer(issue=issue, now=now), etag)
        # Kept while the feed is as fresh as it was (the clock and the setting decide).
        return cacheable(response, holds=lambda: selectors.is_fresh(issue) == fresh)


class HealthSchema(Schema):
    """/api/v1/health and its alias /healthz are one view; each path keeps its operationId."""

    def get_operation_id(self):
        return "getFeedHealthAlias" if self.path == "/healthz" else "getFeedHealth"

    def get_summary(self):
        return "Feed health (alias)" if self.path == "/healthz" else "Feed health"


class FeedHealth(PublicView):
    schema = HealthSchema()

    @public_get(
        None,  # operationId and summary per path: HealthSchema
        None,
        "feed",
        {
            200: answer(
                "FeedHealth",
                "ok or degraded.",
                example("ok", examples.health()),
            ),
            503: answer(
                "FeedHealth",
                "unavailable.",
                example("unavailable", examples.health(published=False)),
            ),
        },
        cache=NO_STORE,
    )
    def get(self, request):
        """At /api/v1/health and /healthz. 200 when ok or degraded, 503 when unavailable. Never
        cached; answers even when the database is down."""
        record = selectors.feed_health()
        status = 503 if record["status"] == "unavailable" else 200
        return cache_headers(Response(record, status=status), None, NO_STORE)


health = FeedHealth.as_view()


class SpecCoded(PublicView):
    @public_get(
        "specCodedAccessPath",
        "Spec-coded detail (gated)",
        "access",
        {
            403: answer(
                "GatedError",
                "SPEC_CODED_GATED, always.",
                example("gated", examples.gated()),
            )
        },
        parameters=[AT_ID],
        cache=None,
    )
    def get(self, request, at_id: str):
        """Field-level requirement detail beyond the public row is a private beta for approved
        counterparties. Every call, for any id, answers 403 SPEC_CODED_GATED with an
        access_url explaining the two ways in: a portal account, or the
        request_tender_access tool on the MCP server at /mcp."""
        selectors.spec_coded(at_id, base_url=base_url(request))


class FlatFile(PublicView):
    """The stored gzip, sent as is to clients that accept gzip, else inflated as it streams."""

    @public_get(
        "getFlatFile",
        "Flat file of all rows",
        "tenders",
        {
            200: answer(
                "FlatFile",
                "The flat file.",
                example("file", examples.flat_file()),
            ),
            503: UNAVAILABLE,
        },
        vary="Accept-Encoding",
    )
    def get(self, request):
        """Every row of the current snapshot in one JSON document, written once at
        publication. Sent gzip-encoded (Content-Encoding: gzip) to clients that accept gzip,
        else as plain JSON. Full rows only; the lang parameter does not apply."""
        issue = selectors.require_current_issue(naming=named_snapshots(request))
        etag = issue.snapshot_etag
        if etag_matches(request, etag):
            return not_modified(etag, vary="Accept-Encoding")
        handle = selectors.open_flat_file(issue)
        if accepts_gzip(request.headers.get("Accept-Encoding", "")):
            response = StreamingHttpResponse(_chunks(handle), content_type="application/json")
            response["Content-Encoding"] = "gzip"
            response["Content-Length"] = str(issue.flat_file_bytes)
        else:
            inflated = gzip.GzipFile(fileobj=handle, mode="rb")
            response = StreamingHttpResponse(_chunks(inflated), content_type="application/json")
        response["Vary"] = "Accept-Encoding"
        return cache_headers(response, etag)


def _chunks(handle):
    try:
        while chunk := handle.read(CHUNK):
            yield chunk
    finally:
        handle.close()


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding header admits gzip (an explicit q=0 refuses it)."""
    return bool(negotiated_quality(header, ["gzip", "x-gzip"], ["*"]))

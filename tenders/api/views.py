"""Public HTTP views of the feed. Thin: translate HTTP to selector calls, add headers.

The bodies come from ``tenders.read.selectors`` (the MCP tools call the same functions); the
OpenAPI description of each operation lives in ``tenders.api.openapi``.
"""

import gzip
from collections.abc import Callable
from functools import lru_cache

from django.http import HttpResponse, StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import extend_schema
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
from tenders.models import SnapshotRow
from tenders.read import selectors
from tenders.read.answers import Answer
from tenders.read.filters import REST, TenderFilterSet, check_params

from . import openapi
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


class SnapshotSchema(AutoSchema):
    """The operations' descriptions are ``tenders.api.openapi``'s, as published: the listing's
    200 is the TenderList component itself, and its parameters are listed there, so
    drf-spectacular neither wraps the body in a page nor adds the filters' and pagination's
    parameters (until the document is generated from these classes)."""

    def _is_list_view(self, serializer=None):
        return False


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
    schema = SnapshotSchema()
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

    @extend_schema(**openapi.LIST_TENDERS)
    def list(self, request):
        # A bad request is an error even when cached; the plan's issue is the one to answer.
        plan = self.paginate_queryset(self.get_queryset())
        etag = plan.issue.snapshot_etag
        if etag_matches(request, etag):
            return not_modified(etag)
        return cacheable(snapshot_response(self.paginator.page(plan), etag))

    @extend_schema(**openapi.GET_TENDER)
    def retrieve(self, request, at_id: str):
        issue = self.issue
        answer = selectors.tender_answer(at_id, query_params(request), issue=issue)
        if etag_matches(request, issue.snapshot_etag):
            return not_modified(issue.snapshot_etag)
        return cacheable(snapshot_response(answer, issue.snapshot_etag))


class TenderFacets(PublicView):
    @extend_schema(**openapi.GET_FACETS)
    def get(self, request):
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


class HealthSchema(AutoSchema):
    """/api/v1/health and its alias /healthz are one view; each path keeps its operationId."""

    def get_operation_id(self):
        return "getFeedHealthAlias" if self.path == "/healthz" else "getFeedHealth"

    def get_summary(self):
        return "Feed health (alias)" if self.path == "/healthz" else "Feed health"


class FeedHealth(PublicView):
    schema = HealthSchema()

    @extend_schema(**openapi.GET_HEALTH)
    def get(self, request):
        record = selectors.feed_health()
        status = 503 if record["status"] == "unavailable" else 200
        return cache_headers(Response(record, status=status), None, NO_STORE)


health = FeedHealth.as_view()


class SpecCoded(PublicView):
    @extend_schema(**openapi.SPEC_CODED)
    def get(self, request, at_id: str):
        selectors.spec_coded(at_id, base_url=base_url(request))


class FlatFile(PublicView):
    """The stored gzip, sent as is to clients that accept gzip, else inflated as it streams."""

    @extend_schema(**openapi.FLAT_FILE)
    def get(self, request):
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

"""Public HTTP views of the feed. Thin: translate HTTP to selector calls, add headers.

The bodies come from ``tenders.read.selectors`` (the MCP tools call the same functions); the
OpenAPI description of each operation lives in ``tenders.api.openapi``.
"""

import gzip
from collections.abc import Callable

from django.http import HttpResponse, StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import extend_schema
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
from tenders.read import selectors
from tenders.read.answers import Answer
from tenders.read.filters import check_params

from . import openapi

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


class TenderList(PublicView):
    @extend_schema(**openapi.LIST_TENDERS)
    def get(self, request):
        issue = selectors.require_current_issue(naming=named_snapshots(request))
        # A bad request is an error even when cached; the plan's issue is the one to answer.
        plan = selectors.plan_list(query_params(request), issue)
        etag = plan.issue.snapshot_etag
        if etag_matches(request, etag):
            return not_modified(etag)
        return cacheable(snapshot_response(selectors.plan_answer(plan), etag))


class TenderDetail(PublicView):
    @extend_schema(**openapi.GET_TENDER)
    def get(self, request, at_id: str):
        issue = selectors.require_current_issue(naming=named_snapshots(request))
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

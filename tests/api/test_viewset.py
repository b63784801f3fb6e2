"""The listing's DRF classes: the viewset's routes, the pagination's cursor and page sizes."""

import pytest
from django.urls import resolve
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from core.errors import ApiError
from tenders.api.pagination import SnapshotCursorPagination, TenderFilterBackend
from tenders.api.views import TenderViewSet
from tenders.read import cursors
from tenders.read.filters import TenderFilterSet
from tenders.read.query import MAX_LIMIT, TOOL


def test_the_listing_and_a_row_are_the_viewsets_list_and_retrieve():
    listing, row = resolve("/api/v1/tenders"), resolve("/api/v1/tenders/AT-X%0AY/z")
    assert (listing.url_name, row.url_name) == ("tender-list", "tender")
    assert listing.func.cls is TenderViewSet and row.func.cls is TenderViewSet
    # (DRF adds "head" to the same action on the first request.)
    assert (listing.func.actions["get"], row.func.actions["get"]) == ("list", "retrieve")
    assert row.kwargs == {"at_id": "AT-X%0AY/z"}
    assert TenderViewSet.filterset_class is TenderFilterSet
    assert TenderViewSet.filter_backends == [TenderFilterBackend]
    assert (TenderViewSet.lookup_field, TenderViewSet.lookup_url_kwarg) == ("asaptic_id", "at_id")


def test_the_pagination_pages_by_the_surface_and_its_cursor_is_ours():
    paginator = SnapshotCursorPagination()
    assert (paginator.page_size, paginator.max_page_size) == (50, MAX_LIMIT)
    paginator.surface = TOOL
    assert paginator.page_size == 10
    made = cursors.Cursor(7, "etag", "ab" * 16, "cd" * 32, 12)
    assert cursors.decode(paginator.encode_cursor(made)) == made
    names = [p["name"] for p in paginator.get_schema_operation_parameters(None)]
    assert names == ["limit", "cursor"]


def test_the_filter_backend_selects_the_rows_the_listing_counts(client, feed):
    issue, _ = feed
    view = TenderViewSet()
    view.issue = issue
    params = {"market": "hk,SG", "closing_bucket": "all"}
    request = Request(APIRequestFactory().get("/api/v1/tenders", params))
    rows = TenderFilterBackend().filter_queryset(request, view.get_queryset(), view)
    assert rows.count() == client.get("/api/v1/tenders", params).json()["meta"]["total"] > 0
    refused = Request(APIRequestFactory().get("/api/v1/tenders", {"market": "XX"}))
    with pytest.raises(ApiError) as error:
        TenderFilterBackend().filter_queryset(refused, view.get_queryset(), view)
    assert error.value.body() == client.get("/api/v1/tenders", {"market": "XX"}).json()

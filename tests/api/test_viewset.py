"""The listing's DRF classes: the viewset's routes, the pagination's cursor and page sizes."""

from django.urls import resolve

from tenders.api.pagination import SnapshotCursorPagination, TenderFilterBackend
from tenders.api.views import TenderViewSet
from tenders.read import cursors
from tenders.read.filters import MAX_LIMIT, TOOL, TenderFilterSet


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

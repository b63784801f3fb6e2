"""The listing's filter backend and cursor pagination: DRF's idioms over the read package.

- ``TenderFilterBackend``: django-filter's backend with ``TenderFilterSet``, the one parser,
  given the issue's vocabulary and the surface (a refusal is our 400 body, not DRF's).
- ``SnapshotCursorPagination``: DRF's ``CursorPagination`` whose cursor is
  ``tenders.read.cursors`` (signed, bound to the issue and the filters) and whose page is the
  listing selector's (``plan_list``, then the answer cache and the one row function).
"""

from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.pagination import CursorPagination

from core.api import query_params
from tenders.read import cursors, selectors
from tenders.read.answers import Answer
from tenders.read.query import MAX_LIMIT, REST, Surface
from tenders.read.selectors import ListPlan

from .openapi import query_parameter


class TenderFilterBackend(DjangoFilterBackend):
    """``TenderFilterSet`` over the view's rows: strict, and refusing with ``ApiError``."""

    def get_filterset_kwargs(self, request, queryset, view):
        return {
            "data": query_params(request),
            "queryset": queryset,
            "vocabulary": selectors.vocabulary(view.issue),
            "surface": view.surface,
        }

    def filter_queryset(self, request, queryset, view):
        """The rows the request selects (a lazy query), or 400 for a bad parameter. The
        listing itself reads its rows through the pagination: a cursor may name a newer issue,
        whose vocabulary then judges the parameters (``selectors.plan_list``)."""
        filterset = self.get_filterset(request, queryset, view)
        return queryset if filterset is None else filterset.qs


class SnapshotCursorPagination(CursorPagination):
    """Pages of the current snapshot in ``sort_key`` order, a cursor to the next one.

    ``paginate_queryset`` gives the plan of the page (parameters and cursor checked, no page
    read yet: a 304 reads nothing); ``page`` gives its bytes, ``{data, meta}`` with
    ``meta.next_cursor``, ``total`` and ``returned``. Page sizes come from the surface."""

    cursor_query_param = "cursor"
    page_size_query_param = "limit"
    max_page_size = MAX_LIMIT
    ordering = "sort_key"
    surface: Surface = REST

    @property
    def page_size(self) -> int:
        return self.surface.default_limit

    def paginate_queryset(self, queryset, request, view=None) -> ListPlan:
        """The checked request: 400 for a bad parameter or cursor, 409 for a cursor of an
        older snapshot. ``plan.issue`` is the one to answer with (a cursor may name a newer
        snapshot this process had not yet heard of)."""
        self.request = request
        issue = view.issue if view is not None else selectors.require_current_issue(self.surface)
        self.plan = selectors.plan_list(query_params(request), issue, self.surface)
        return self.plan

    def page(self, plan: ListPlan) -> Answer:
        """The page's answer, from the answer cache when it was made before."""
        return selectors.plan_answer(plan)

    def decode_cursor(self, request) -> cursors.Cursor | None:
        """The request's cursor, if this service signed it (the selectors say what else is
        wrong with it)."""
        return selectors.decoded_cursor(request.query_params.get(self.cursor_query_param))

    def encode_cursor(self, cursor: cursors.Cursor) -> str:
        return cursors.encode(cursor)

    def get_schema_operation_parameters(self, view):
        return [
            query_parameter(self.page_size_query_param, default=self.page_size),
            query_parameter(self.cursor_query_param),
        ]

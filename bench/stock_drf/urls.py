"""What an afternoon's DRF service would be: a read-only ModelViewSet over the current issue's
rows, a plain ModelSerializer, CursorPagination on the sort key and django-filter for ``market``
and ``q`` (icontains over the summaries and category names). Same paths as the product's
listing, so the same URLs hit both."""

import django_filters
from django.db.models import Q
from django.http import HttpResponse
from django.urls import path
from rest_framework import pagination, routers, serializers, viewsets

from tenders.models import Issue, SnapshotRow


class RowSerializer(serializers.ModelSerializer):
    class Meta:
        model = SnapshotRow
        fields = [
            "asaptic_id",
            "market",
            "category_slug",
            "category_name_en",
            "category_name_zh",
            "category_name_zht",
            "summary_en",
            "summary_zh",
            "summary_zht",
            "value_band",
            "closing_bucket",
            "lead_ok",
            "new_this_issue",
        ]


TEXT_FIELDS = [
    "summary_en",
    "summary_zh",
    "summary_zht",
    "category_name_en",
    "category_name_zh",
    "category_name_zht",
]


class RowFilter(django_filters.FilterSet):
    market = django_filters.CharFilter(field_name="market")
    q = django_filters.CharFilter(method="search")

    class Meta:
        model = SnapshotRow
        fields = ["market", "q"]

    def search(self, queryset, name, value):
        anywhere = Q()
        for field in TEXT_FIELDS:
            anywhere |= Q(**{f"{field}__icontains": value})
        return queryset.filter(anywhere)


class Pages(pagination.CursorPagination):
    page_size = 50
    ordering = "sort_key"


class Rows(viewsets.ReadOnlyModelViewSet):
    serializer_class = RowSerializer
    pagination_class = Pages
    filterset_class = RowFilter
    filter_backends = [django_filters.rest_framework.DjangoFilterBackend]
    lookup_field = "asaptic_id"

    def get_queryset(self):
        # The same rows as the product's default listing: the current issue, open tenders.
        issue = Issue.objects.get(is_current=True)
        return SnapshotRow.objects.filter(issue=issue).exclude(closing_bucket="deadline_passed")


router = routers.SimpleRouter(trailing_slash=False)
router.register("api/v1/tenders", Rows, basename="stock-tenders")
# No database: http_load.py waits on it for the requests wrk left queued.
urlpatterns = [*router.urls, path("ping", lambda request: HttpResponse("ok"))]

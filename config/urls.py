"""Every public path in one list."""

from django.contrib import admin
from django.urls import path

from config import discovery
from sourcing import views as sourcing_views
from tenders.api import views as tender_views

urlpatterns = [
    path("api/v1/health", tender_views.FeedHealth.as_view(), name="health"),
    path("healthz", tender_views.FeedHealthAlias.as_view(), name="healthz"),
    path("admin/", admin.site.urls),
]

# --- Public REST contract (issue #3) ------------------------------------------------------
urlpatterns += [
    path("api/v1/tenders", tender_views.TenderList.as_view(), name="tender-list"),
    path("api/v1/tenders/facets", tender_views.TenderFacets.as_view(), name="tender-facets"),
    # <path:> so that every absent id, even one with a slash, gets the same 404 body.
    path("api/v1/tenders/<path:at_id>", tender_views.TenderDetail.as_view(), name="tender"),
    path("api/v1/spec-coded/<path:at_id>", tender_views.SpecCoded.as_view(), name="spec-coded"),
    path("tender/rows.json", tender_views.FlatFile.as_view(), name="flat-file"),
    path("agent/capabilities.json", sourcing_views.Capabilities.as_view(), name="capabilities"),
    path("lanes/<slug:lane_id>/", sourcing_views.lane_page, name="lane"),
    path("access/", discovery.access_page, name="access"),
    path("openapi.json", discovery.openapi_json, name="openapi"),
    path("api/docs/", discovery.ApiDocs.as_view(), name="api-docs"),
    path("llms.txt", discovery.llms_txt, name="llms-txt"),
    path("schema/<str:name>", discovery.json_schema, name="json-schema"),
]

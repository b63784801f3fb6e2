"""The keyless public surface: the REST contract, the flat file, capabilities and discovery.

Included at the root by ``config.urls`` (the health paths are listed there).
"""

from django.urls import path, register_converter

from sourcing import views as sourcing_views
from tenders.api import discovery
from tenders.api import views as tender_views


class AnyText:
    """Any non-empty text, line breaks included (``path`` stops at a newline, and an id
    such as ``AT-X%0AY`` would fall through to the generic 404)."""

    regex = r"[\s\S]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(AnyText, "text")

urlpatterns = [
    path("api/v1/tenders", tender_views.TenderViewSet.as_view({"get": "list"}), name="tender-list"),
    path("api/v1/tenders/facets", tender_views.TenderFacets.as_view(), name="tender-facets"),
    # <text:> so that every absent id, even one with a slash or a line break, gets the same
    # 404 body (and every id the same 403).
    path(
        "api/v1/tenders/<text:at_id>",
        tender_views.TenderViewSet.as_view({"get": "retrieve"}),
        name="tender",
    ),
    path("api/v1/spec-coded/<text:at_id>", tender_views.SpecCoded.as_view(), name="spec-coded"),
    path("tender/rows.json", tender_views.FlatFile.as_view(), name="flat-file"),
    path("agent/capabilities.json", sourcing_views.Capabilities.as_view(), name="capabilities"),
    path("openapi.json", discovery.openapi_json, name="openapi"),
    path("api/docs/", discovery.ApiDocs.as_view(), name="api-docs"),
    path("llms.txt", discovery.llms_txt, name="llms-txt"),
    path("schema/<text:name>", discovery.json_schema, name="json-schema"),
]

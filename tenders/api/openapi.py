"""What drf-spectacular cannot read from the feed's views: the listing parameters' spelling.

The listing's query parameters are its filter backend's (one for each filter of the FilterSet)
and its pagination's (``limit``, ``cursor``), each spelled as the published listing parameters
say (the file the ``list_tenders`` tool takes as its arguments). The operations are named on
the views (``core.openapi.public_get``); their bodies are the published components and their
examples the selectors' own answers (``tenders.api.examples``).
"""

from drf_spectacular.extensions import OpenApiFilterExtension
from drf_spectacular.plumbing import build_parameter_type
from drf_spectacular.utils import OpenApiExample, OpenApiParameter

from core.openapi import Schema, error, example
from tenders import contract

from . import examples

QUERY, PATH = OpenApiParameter.QUERY, OpenApiParameter.PATH
PUBLISHED_PARAMETERS = contract.embedded_schema(contract.QUERY)["properties"]

# How REST spells what the published file states as typed values.
REST_SPELLING = {
    "market": " Any case.",
    "category": " English names in any case; names containing a comma need the slug.",
    "closing_bucket": " Any case.",
    "value_band": " Any case.",
    "new": " Accepts true/false (any case) or 1/0.",
    "lead_ok": " Accepts true/false (any case) or 1/0.",
}


def query_parameter(name: str, default: int | None = None) -> dict:
    """A listing parameter as the published file states it, in REST's spelling."""
    schema = dict(PUBLISHED_PARAMETERS[name])
    description = schema.pop("description") + REST_SPELLING.get(name, "")
    form = {}
    if "anyOf" in schema:
        # OpenAPI's own spelling of "comma-separated": an array in form style, not exploded.
        schema = next(branch for branch in schema["anyOf"] if branch["type"] == "array")
        description += " Comma-separated; a row matches any of the values."
        form = {"style": "form", "explode": False}
    if default is not None:
        schema["default"] = default
        description += f" Default {default}."
    return build_parameter_type(name, schema, QUERY, description=description, **form)


class TenderFilterParameters(OpenApiFilterExtension):
    """The filter backend's parameters: one for each filter of the view's FilterSet."""

    target_class = "tenders.api.pagination.TenderFilterBackend"
    priority = 1  # before drf-spectacular's own for django-filter

    def get_schema_operation_parameters(self, auto_schema, *args, **kwargs):
        names = auto_schema.view.filterset_class.base_filters
        return [query_parameter(name) for name in names]


class ListingSchema(Schema):
    """The listing's page is the published TenderList itself, not a list for drf-spectacular
    to wrap; its parameters are still the filter backend's and the pagination's."""

    def _is_list_view(self, serializer=None) -> bool:
        return False

    def get_filter_backends(self) -> list:
        return self.view.filter_backends if self.view.action == "list" else []

    def _get_pagination_parameters(self) -> list:
        if self.view.action != "list":
            return []
        return self._get_paginator().get_schema_operation_parameters(self.view)


_lang = query_parameter("lang")
LANG = OpenApiParameter("lang", _lang["schema"], QUERY, description=_lang["description"])
AT_ID = OpenApiParameter(
    "at_id",
    str,
    PATH,
    description="Listing id (asaptic_id), AT- then 10 Crockford base32 characters.",
    examples=[OpenApiExample("id", value=examples.ROW["asaptic_id"])],
)
UNAVAILABLE = error(
    "service_unavailable: nothing is published yet, or the database does not answer "
    "(Retry-After is sent then).",
    example("service_unavailable", examples.unavailable()),
)

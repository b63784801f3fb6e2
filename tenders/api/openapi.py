"""What drf-spectacular cannot read from the feed's views: their parameters and one answer.

The operations themselves are named on the views (``core.openapi.public_get``); their bodies
are the published components and their examples the selectors' own answers
(``tenders.api.examples``).
"""

from drf_spectacular.utils import OpenApiExample, OpenApiParameter

from core.openapi import error, example
from tenders import contract
from tenders.read.filters import DEFAULT_LIMIT

from . import examples

QUERY, PATH = OpenApiParameter.QUERY, OpenApiParameter.PATH

# How REST spells what the listing parameters' schema (the published file, which the
# list_tenders tool takes as its arguments) states as typed values.
REST_SPELLING = {
    "market": " Any case.",
    "category": " English names in any case; names containing a comma need the slug.",
    "closing_bucket": " Any case.",
    "value_band": " Any case.",
    "new": " Accepts true/false (any case) or 1/0.",
    "lead_ok": " Accepts true/false (any case) or 1/0.",
}


def _parameter(name: str, schema: dict) -> OpenApiParameter:
    description = schema.pop("description") + REST_SPELLING.get(name, "")
    if "anyOf" in schema:
        # OpenAPI's own spelling of "comma-separated": an array in form style, not exploded.
        array = next(branch for branch in schema["anyOf"] if branch["type"] == "array")
        description += " Comma-separated; a row matches any of the values."
        return OpenApiParameter(
            name, array, QUERY, style="form", explode=False, description=description
        )
    if name == "limit":
        schema["default"] = DEFAULT_LIMIT
        description += f" Default {DEFAULT_LIMIT}."
    return OpenApiParameter(name, schema, QUERY, description=description)


LIST_PARAMETERS = [
    _parameter(name, schema)
    for name, schema in contract.embedded_schema(contract.QUERY)["properties"].items()
]
LANG = next(parameter for parameter in LIST_PARAMETERS if parameter.name == "lang")
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

"""The OpenAPI description of the feed's REST surface (operation by operation).

The row, the one-language row, the flat file and the list page are not restated here:
``components()`` embeds the published JSON Schema files of ``tenders_client/schemas/`` (the
hook in ``config.openapi`` adds them to the document), with the rows inside the page and the
flat file replaced by ``$ref`` to the row components; every response below refers to them by
``$ref``.
"""

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse

from core.errors import error_body
from tenders import contract
from tenders.read.filters import DEFAULT_LIMIT

from . import examples

QUERY, PATH, HEADER = OpenApiParameter.QUERY, OpenApiParameter.PATH, OpenApiParameter.HEADER


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


# --- components -------------------------------------------------------------------------


def _row_or_collapsed() -> dict:
    return {
        "oneOf": [ref("TenderRow"), ref("TenderRowOneLanguage")],
        "description": "A full row, or with lang a row collapsed to one language.",
    }


def published(name: str) -> dict:
    """A published schema file as a component, linked to the file it comes from."""
    schema = contract.embedded_schema(name)
    schema["externalDocs"] = {
        "description": "The same schema as a JSON Schema file",
        "url": contract.schema_url(name),
    }
    return schema


# Components that are published schema files, by component name. Rows inside the envelopes
# become references to the row components, which is what the files inline; tests compare
# each component with its file, references resolved.
PUBLISHED = {
    "TenderRow": contract.ROW,
    "TenderRowOneLanguage": contract.LANG_ROW,
    "TenderList": contract.PAGE,
    "TenderOne": contract.ONE,
    "TenderFacets": contract.FACETS,
    "FeedHealth": contract.HEALTH,
    "FlatFile": contract.FLAT_FILE,
    "Error": contract.ERROR,
}


def components() -> dict:
    schemas = {component: published(name) for component, name in PUBLISHED.items()}
    schemas["FlatFile"]["properties"]["rows"]["items"] = ref("TenderRow")
    schemas["TenderList"]["properties"]["data"]["items"] = _row_or_collapsed()
    schemas["TenderOne"]["properties"]["data"] = _row_or_collapsed()
    # The gated error is the error body with its access_url required and its code fixed.
    schemas["GatedError"] = {
        "allOf": [
            ref("Error"),
            {
                "required": ["error", "access_url"],
                "properties": {"error": {"properties": {"code": {"const": "SPEC_CODED_GATED"}}}},
            },
        ]
    }
    return schemas


# --- parameters -------------------------------------------------------------------------


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
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    HEADER,
    description="An ETag from an earlier response; 304 when the snapshot is unchanged.",
)
AT_ID = OpenApiParameter(
    "at_id",
    {"type": "string"},
    PATH,
    required=True,
    description="Listing id (asaptic_id), AT- then 10 Crockford base32 characters.",
    examples=[OpenApiExample("id", value=examples.ROW["asaptic_id"])],
)


def response_headers(codes, *, cached=True, no_store=False, vary=False) -> list:
    headers = [
        OpenApiParameter(
            "Access-Control-Allow-Origin",
            {"type": "string", "const": "*"},
            HEADER,
            response=codes,
            description="Any origin may read this keyless response.",
        )
    ]
    if cached:
        headers += [
            OpenApiParameter(
                "ETag",
                str,
                HEADER,
                response=[c for c in codes if c in (200, 304)],
                description='The snapshot etag, quoted: "<snapshot_etag>".',
            ),
            OpenApiParameter(
                "Cache-Control",
                {"type": "string", "const": "public, no-cache"},
                HEADER,
                response=[c for c in codes if c in (200, 304)],
                description="Caches may store the response but must revalidate it.",
            ),
        ]
    if no_store:
        headers.append(
            OpenApiParameter(
                "Cache-Control",
                {"type": "string", "const": "no-store"},
                HEADER,
                response=codes,
                description="Never cached.",
            )
        )
    if vary:
        headers.append(
            OpenApiParameter(
                "Vary", {"type": "string", "const": "Accept-Encoding"}, HEADER, response=[200, 304]
            )
        )
    return headers


# --- examples (the selectors' own answers on a fixture: see tenders.api.examples) -----------


def _example(name: str, value, status: int, summary: str = "") -> OpenApiExample:
    return OpenApiExample(
        name, value=value, status_codes=[status], response_only=True, summary=summary
    )


UNAVAILABLE = OpenApiResponse(
    ref("Error"),
    description="service_unavailable: nothing is published yet, or the database does not "
    "answer (Retry-After is sent then).",
    examples=[
        _example(
            "service_unavailable",
            examples.unavailable(),
            503,
        )
    ],
)
NOT_MODIFIED = OpenApiResponse(description="Not modified: the snapshot is the one you have.")
METHOD_NOT_ALLOWED = OpenApiResponse(
    ref("Error"),
    description="method_not_allowed: only GET, HEAD and OPTIONS; the Allow header lists them.",
    examples=[
        _example(
            "method_not_allowed",
            error_body(
                "method_not_allowed", "Method POST is not allowed here; use GET, HEAD, OPTIONS."
            ),
            405,
        )
    ],
)
BAD_PARAMETER = _example(
    "invalid_parameter",
    examples.bad_parameter(),
    400,
    "A value outside the parameter's domain, or an unknown parameter",
)

# --- operations -------------------------------------------------------------------------

LIST_TENDERS = dict(
    operation_id="listTenders",
    summary="List tenders",
    description="One page of the current snapshot's rows, ordered by sort_key. Rows whose "
    "deadline has passed are left out unless closing_bucket says otherwise. total counts "
    "every matching row; follow meta.next_cursor for the next page. Cost does not grow with "
    "page depth.",
    tags=["tenders"],
    parameters=[*LIST_PARAMETERS, IF_NONE_MATCH, *response_headers([200, 304, 400, 409])],
    responses={
        200: OpenApiResponse(
            ref("TenderList"),
            description="A page of rows.",
            examples=[
                _example(
                    "page",
                    examples.page(),
                    200,
                    "Full rows",
                ),
                _example(
                    "page in one language",
                    examples.page("zht"),
                    200,
                    "lang=zht",
                ),
            ],
        ),
        304: NOT_MODIFIED,
        400: OpenApiResponse(
            ref("Error"),
            description="invalid_parameter or invalid_cursor.",
            examples=[
                BAD_PARAMETER,
                _example(
                    "invalid_cursor",
                    examples.cursor_of_other_filters(),
                    400,
                    "An altered cursor, or one sent with other filters",
                ),
            ],
        ),
        409: OpenApiResponse(
            ref("Error"),
            description="snapshot_changed: the feed was republished since the cursor was made.",
            examples=[
                _example(
                    "snapshot_changed",
                    examples.snapshot_changed(),
                    409,
                )
            ],
        ),
        503: UNAVAILABLE,
    },
)

GET_TENDER = dict(
    operation_id="getTender",
    summary="Get one tender",
    description="One row of the current snapshot. Every id that is not in it (malformed, "
    "withheld, from an older issue, never issued) gets the same 404 body.",
    tags=["tenders"],
    parameters=[AT_ID, LANG, IF_NONE_MATCH, *response_headers([200, 304, 400, 404])],
    responses={
        200: OpenApiResponse(
            ref("TenderOne"),
            description="The row.",
            examples=[
                _example("row", examples.one(), 200),
                _example("row in one language", examples.one("en"), 200, "lang=en"),
            ],
        ),
        304: NOT_MODIFIED,
        400: OpenApiResponse(
            ref("Error"),
            description="invalid_parameter (lang, or an unknown parameter).",
            examples=[
                _example(
                    "invalid_parameter",
                    examples.bad_lang(),
                    400,
                )
            ],
        ),
        404: OpenApiResponse(
            ref("Error"),
            description="not_found: identical for every absent id.",
            examples=[
                _example(
                    "not_found",
                    examples.not_found(),
                    404,
                )
            ],
        ),
        503: UNAVAILABLE,
    },
)

GET_FACETS = dict(
    operation_id="getTenderFacets",
    summary="Filter vocabulary and counts",
    description="Markets, categories (slug and three names), closing buckets and value bands, "
    "each with its row count in the current snapshot, computed at publication. The values "
    "are exactly what the list filters accept. Takes no parameters.",
    tags=["tenders"],
    parameters=[IF_NONE_MATCH, *response_headers([200, 304, 400])],
    responses={
        200: OpenApiResponse(
            ref("TenderFacets"),
            description="Facets.",
            examples=[
                _example(
                    "facets", examples.facets(), 200, "Abridged: every group lists all its values"
                )
            ],
        ),
        304: NOT_MODIFIED,
        400: OpenApiResponse(ref("Error"), description="invalid_parameter: it takes none."),
        503: UNAVAILABLE,
    },
)

GET_HEALTH = dict(
    # operationId and summary per path: tenders.api.views.HealthSchema
    description="At /api/v1/health and /healthz. 200 when ok or degraded, 503 when "
    "unavailable. Never cached; answers even when the database is down.",
    tags=["feed"],
    parameters=response_headers([200, 503], cached=False, no_store=True),
    responses={
        200: OpenApiResponse(
            ref("FeedHealth"),
            description="ok or degraded.",
            examples=[
                _example(
                    "ok",
                    examples.health(),
                    200,
                )
            ],
        ),
        503: OpenApiResponse(
            ref("FeedHealth"),
            description="unavailable.",
            examples=[
                _example(
                    "unavailable",
                    examples.health(published=False),
                    503,
                )
            ],
        ),
    },
)

SPEC_CODED = dict(
    operation_id="specCodedAccessPath",
    summary="Spec-coded detail (gated)",
    description="Field-level requirement detail beyond the public row is a private beta for "
    "approved counterparties. Every call, for any id, answers 403 SPEC_CODED_GATED with an "
    "access_url explaining the two ways in: a portal account, or the request_tender_access "
    "tool on the MCP server at /mcp.",
    tags=["access"],
    parameters=[AT_ID, *response_headers([403], cached=False)],
    responses={
        403: OpenApiResponse(
            ref("GatedError"),
            description="SPEC_CODED_GATED, always.",
            examples=[
                _example(
                    "gated",
                    examples.gated(),
                    403,
                )
            ],
        )
    },
)

FLAT_FILE = dict(
    operation_id="getFlatFile",
    summary="Flat file of all rows",
    description="Every row of the current snapshot in one JSON document, written once at "
    "publication. Sent gzip-encoded (Content-Encoding: gzip) to clients that accept gzip, "
    "else as plain JSON. Full rows only; the lang parameter does not apply.",
    tags=["tenders"],
    parameters=[IF_NONE_MATCH, *response_headers([200, 304], vary=True)],
    responses={
        200: OpenApiResponse(
            ref("FlatFile"),
            description="The flat file.",
            examples=[
                _example(
                    "file",
                    examples.flat_file(),
                    200,
                )
            ],
        ),
        304: NOT_MODIFIED,
        503: UNAVAILABLE,
    },
)

for _operation in (LIST_TENDERS, GET_TENDER, GET_FACETS, GET_HEALTH, SPEC_CODED, FLAT_FILE):
    _operation["responses"][405] = METHOD_NOT_ALLOWED

__all__ = [
    "FLAT_FILE",
    "GET_FACETS",
    "GET_HEALTH",
    "GET_TENDER",
    "LIST_TENDERS",
    "METHOD_NOT_ALLOWED",
    "NOT_MODIFIED",
    "SPEC_CODED",
    "components",
]

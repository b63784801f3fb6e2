"""The OpenAPI description of the feed's REST surface (operation by operation).

The row, the one-language row, the flat file and the list page are not restated here:
``components()`` embeds the published JSON Schema files of ``tenders_client/schemas/`` (the
hook in ``config.openapi`` adds them to the document), with the rows inside the page and the
flat file replaced by ``$ref`` to the row components; every response below refers to them by
``$ref``.
"""

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse

from tenders import contract
from tenders.buckets import CLOSING_BUCKETS, VALUE_BANDS
from tenders.contract import LANG_META, SNAPSHOT_META
from tenders.filters import DEFAULT_LIMIT, MAX_LIMIT, MAX_Q
from tenders.markets import MARKET_CODES
from tenders.rows import LANGS, SCHEMA_NAME

QUERY, PATH, HEADER = OpenApiParameter.QUERY, OpenApiParameter.PATH, OpenApiParameter.HEADER


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


# --- components -------------------------------------------------------------------------


def object_schema(properties: dict, required=None, description: str = "", **extra) -> dict:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties) if required is None else required,
        "properties": properties,
    }
    if description:
        schema["description"] = description
    schema.update(extra)
    return schema


def _row_or_collapsed() -> dict:
    return {
        "oneOf": [ref("TenderRow"), ref("TenderRowOneLanguage")],
        "description": "A full row, or with lang a row collapsed to one language.",
    }


def _error(codes: list[str] | None = None, description: str = "") -> dict:
    code = {"type": "string", "description": "Machine-readable error code."}
    if codes:
        code["enum"] = codes
    return object_schema(
        {
            "error": object_schema(
                {
                    "code": code,
                    "message": {
                        "type": "string",
                        "description": "What went wrong and what to do, for a person or a model.",
                    },
                    "param": {
                        "type": "string",
                        "description": "The parameter at fault, where there is one.",
                    },
                },
                required=["code", "message"],
            )
        },
        description=description,
    )


def _facet_group(key_name: str, values: list[str] | None, names: bool) -> dict:
    item = {key_name: {"type": "string"}}
    if values:
        item[key_name]["enum"] = values
    if names:
        item.update(
            name_en={"type": "string"}, name_zh={"type": "string"}, name_zht={"type": "string"}
        )
    item["count"] = {"type": "integer", "minimum": 0, "description": "Rows in this snapshot."}
    return {"type": "array", "items": object_schema(item)}


def published(name: str) -> dict:
    """A published schema file as a component, linked to the file it comes from."""
    schema = contract.embedded(contract.load(name))
    schema["externalDocs"] = {
        "description": "The same schema as a JSON Schema file",
        "url": contract.schema_url(name),
    }
    return schema


def components() -> dict:
    # The rows inside the page and the flat file become references to the row components,
    # which is what the files inline; tests compare the two with the references resolved.
    flat_file = published(contract.FLAT_FILE)
    flat_file["properties"]["rows"]["items"] = ref("TenderRow")
    page = published(contract.PAGE)
    page["properties"]["data"]["items"] = _row_or_collapsed()
    one_meta = {**SNAPSHOT_META, "lang": LANG_META}
    facets_meta = {
        **SNAPSHOT_META,
        "rows_total": {"type": "integer", "minimum": 0, "description": "Rows in the snapshot."},
    }
    return {
        "TenderRow": published(contract.ROW),
        "TenderRowOneLanguage": published(contract.LANG_ROW),
        "TenderList": page,
        "TenderOne": object_schema(
            {
                "data": _row_or_collapsed(),
                "meta": object_schema(one_meta, required=list(SNAPSHOT_META)),
            }
        ),
        "TenderFacets": object_schema(
            {
                "data": object_schema(
                    {
                        "markets": _facet_group("code", list(MARKET_CODES), names=True),
                        "categories": _facet_group("slug", None, names=True),
                        "closing_buckets": _facet_group("value", list(CLOSING_BUCKETS), False),
                        "value_bands": _facet_group(
                            "value", [*VALUE_BANDS, "unspecified"], names=False
                        ),
                    },
                    description="Every value a list filter accepts, with its row count. Counts "
                    "cover the whole snapshot, deadline_passed rows included.",
                ),
                "meta": object_schema(facets_meta),
            }
        ),
        "FeedHealth": object_schema(
            {
                "status": {"type": "string", "enum": ["ok", "degraded", "unavailable"]},
                "rows_total": {"type": "integer", "minimum": 0},
                "issue_id": {"type": ["string", "null"], "pattern": r"^\d{4}-W\d{2}$"},
                "generated": {"type": ["string", "null"], "format": "date-time"},
                "feed_fresh": {
                    "type": "boolean",
                    "description": "True when the snapshot is at most 8 days old.",
                },
                "schema": {"type": "string", "const": SCHEMA_NAME},
            },
            description="ok: a current issue at most 8 days old; degraded: older; unavailable: "
            "nothing published or the database does not answer (HTTP 503).",
        ),
        "FlatFile": flat_file,
        "Error": _error(),
        "GatedError": {
            **_error(["SPEC_CODED_GATED"]),
            "required": ["error", "access_url"],
            "properties": {
                **_error()["properties"],
                "access_url": {
                    "type": "string",
                    "format": "uri",
                    "description": "Page explaining how to get access.",
                },
            },
        },
    }


# --- parameters -------------------------------------------------------------------------


def _list_param(name: str, description: str, values: list[str] | None = None):
    # OpenAPI's own spelling of "comma-separated": an array in form style, not exploded.
    item = {"type": "string", "minLength": 1}
    if values:
        item["enum"] = values
    return OpenApiParameter(
        name,
        {"type": "array", "items": item, "minItems": 1},
        QUERY,
        style="form",
        explode=False,
        description=description + " Comma-separated; a row matches any of the values.",
    )


LANG = OpenApiParameter(
    "lang",
    {"type": "string", "enum": list(LANGS)},
    QUERY,
    description="Collapse each row to one language: category becomes {name} and the three "
    "summaries one summary; meta.lang echoes it.",
)
LIST_PARAMETERS = [
    _list_param("market", "Market codes (accepted in any case).", list(MARKET_CODES)),
    _list_param(
        "category",
        "Category slugs, or English (any case), Simplified or Traditional Chinese names, as "
        "listed by /api/v1/tenders/facets. Names containing a comma need the slug.",
    ),
    _list_param(
        "closing_bucket",
        "Time left to the deadline at publication (any case). Default: le_2w,2_4w,gt_4w "
        "(closed listings are left out); all includes deadline_passed.",
        [*CLOSING_BUCKETS, "all"],
    ),
    OpenApiParameter(
        "new",
        {"type": "boolean"},
        QUERY,
        description="true: only rows new in this issue; false: only rows carried over from "
        "earlier issues. Accepts true/false (any case) or 1/0.",
    ),
    OpenApiParameter(
        "lead_ok",
        {"type": "boolean"},
        QUERY,
        description="Filter on lead_ok. Accepts true/false (any case) or 1/0.",
    ),
    _list_param(
        "value_band",
        "Estimated value in USD (any case); unspecified matches rows without a band "
        "(value_band null).",
        [*VALUE_BANDS, "unspecified"],
    ),
    OpenApiParameter(
        "q",
        {"type": "string", "minLength": 1, "maxLength": MAX_Q},
        QUERY,
        description="Case-insensitive substring search over the three summaries and the three "
        "category names. Works for Chinese, including one- and two-character queries "
        "(e.g. 医, 醫療). 1 to 200 characters; no control characters.",
    ),
    LANG,
    OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
        QUERY,
        description=f"Rows per page, 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT}). Larger values "
        "are refused, not clamped.",
    ),
    OpenApiParameter(
        "cursor",
        {"type": "string", "minLength": 1},
        QUERY,
        description="meta.next_cursor of the previous page, unchanged. Send the same filters "
        "with it (lang and limit may change).",
    ),
]
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
    examples=[OpenApiExample("id", value="AT-7K2M9Q4XZC")],
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


# --- examples ---------------------------------------------------------------------------

ROW_EXAMPLE = {
    "asaptic_id": "AT-7K2M9Q4XZC",
    "market": "HK",
    "category": {
        "name_en": "Medical supplies and equipment",
        "name_zh": "医疗用品及设备",
        "name_zht": "醫療用品及設備",
    },
    "summary_en": "Supply of patient monitors. Open tender. Includes a warranty and "
    "maintenance period. Contract term about 36 months.",
    "summary_zh": "供应病人监察仪。公开招标。包括保用及维修保养期。合约期约36个月。",
    "summary_zht": "供應病人監察儀。公開招標。包括保用及維修保養期。合約期約36個月。",
    "value_band": "500k_2m",
    "closing_bucket": "2_4w",
    "lead_ok": True,
    "new_this_issue": True,
    "sort_key": "0a4f9c3e1b7d25686f0e3c9a1d4b7e2f5a8c0d3e6f9a2b5c8d1e4f7a0b3c6d9e",
}
ROW_EXAMPLE_ZHT = {
    "asaptic_id": ROW_EXAMPLE["asaptic_id"],
    "market": "HK",
    "category": {"name": "醫療用品及設備"},
    "summary": ROW_EXAMPLE["summary_zht"],
    "value_band": "500k_2m",
    "closing_bucket": "2_4w",
    "lead_ok": True,
    "new_this_issue": True,
    "sort_key": ROW_EXAMPLE["sort_key"],
}
META_EXAMPLE = {
    "issue_id": "2026-W48",
    "generated": "2026-11-23T06:00:00Z",
    "snapshot_etag": "3f1c9a7e52b04d6e8a1f0c2b9d7e6a54",
    "access": "public",
}


def _example(name: str, value, status: int, summary: str = "") -> OpenApiExample:
    return OpenApiExample(
        name, value=value, status_codes=[status], response_only=True, summary=summary
    )


def _err(code: str, message: str, param: str | None = None, **extra) -> dict:
    error = {"code": code, "message": message}
    if param:
        error["param"] = param
    return {"error": error, **extra}


UNAVAILABLE = OpenApiResponse(
    ref("Error"),
    description="service_unavailable: nothing is published yet, or the database does not "
    "answer (Retry-After is sent then).",
    examples=[
        _example(
            "service_unavailable",
            _err(
                "service_unavailable",
                "No issue of the feed is published yet; try again later "
                "(GET /api/v1/health shows the feed's state).",
            ),
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
            _err(
                "method_not_allowed",
                "Method POST is not allowed here; use GET, HEAD, OPTIONS.",
            ),
            405,
        )
    ],
)
BAD_PARAMETER = _example(
    "invalid_parameter",
    _err(
        "invalid_parameter",
        "market 'XX' is not accepted; give one or more of HK, MO, SG, GB, EU, AU, CA "
        "(any case), comma-separated.",
        "market",
    ),
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
                    {
                        "data": [ROW_EXAMPLE],
                        "meta": {
                            "total": 1342,
                            "returned": 1,
                            "next_cursor": "AQAAAAAAAAAMAAAFPiAzZjFjOWE3ZTUyYjA0ZDZl...",
                            **META_EXAMPLE,
                        },
                    },
                    200,
                    "Full rows",
                ),
                _example(
                    "page in one language",
                    {
                        "data": [ROW_EXAMPLE_ZHT],
                        "meta": {
                            "total": 1,
                            "returned": 1,
                            "next_cursor": None,
                            **META_EXAMPLE,
                            "lang": "zht",
                        },
                    },
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
                    _err(
                        "invalid_cursor",
                        "This cursor belongs to other filters (market=HK&closing_bucket="
                        "le_2w,2_4w,gt_4w). Send it with the same filters as the page that "
                        "gave it, or leave cursor out to start again.",
                        "cursor",
                    ),
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
                    _err(
                        "snapshot_changed",
                        "The feed was republished after this cursor was made (now issue "
                        "2026-W48, snapshot 3f1c9a7e52b04d6e8a1f0c2b9d7e6a54). Start again "
                        "from the first page without cursor.",
                        "cursor",
                    ),
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
            examples=[_example("row", {"data": ROW_EXAMPLE, "meta": META_EXAMPLE}, 200)],
        ),
        304: NOT_MODIFIED,
        400: OpenApiResponse(
            ref("Error"),
            description="invalid_parameter (lang, or an unknown parameter).",
            examples=[
                _example(
                    "invalid_parameter",
                    _err("invalid_parameter", "lang must be one of en, zh, zht; got 'fr'.", "lang"),
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
                    _err(
                        "not_found",
                        "No listing with this id in the current issue. Listing ids look like "
                        "AT-7K2M9Q4XZC; rows come and go with each weekly issue, so list "
                        "/api/v1/tenders for the current ones.",
                    ),
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
                    "facets",
                    {
                        "data": {
                            "markets": [
                                {
                                    "code": "HK",
                                    "name_en": "Hong Kong",
                                    "name_zh": "香港",
                                    "name_zht": "香港",
                                    "count": 412,
                                }
                            ],
                            "categories": [
                                {
                                    "slug": "medical-supplies",
                                    "name_en": "Medical supplies and equipment",
                                    "name_zh": "医疗用品及设备",
                                    "name_zht": "醫療用品及設備",
                                    "count": 97,
                                }
                            ],
                            "closing_buckets": [{"value": "le_2w", "count": 310}],
                            "value_bands": [{"value": "unspecified", "count": 402}],
                        },
                        "meta": {**META_EXAMPLE, "rows_total": 2000},
                    },
                    200,
                    "Abridged: every group lists all its values",
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
                    {
                        "status": "ok",
                        "rows_total": 1342,
                        "issue_id": "2026-W48",
                        "generated": "2026-11-23T06:00:00Z",
                        "feed_fresh": True,
                        "schema": SCHEMA_NAME,
                    },
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
                    {
                        "status": "unavailable",
                        "rows_total": 0,
                        "issue_id": None,
                        "generated": None,
                        "feed_fresh": False,
                        "schema": SCHEMA_NAME,
                    },
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
                    _err(
                        "SPEC_CODED_GATED",
                        "Field-level detail (spec-coded packages) is gated: a private beta for "
                        "approved counterparties. Ask for access with a portal account, or with "
                        "the request_tender_access tool on the MCP server at /mcp; access_url "
                        "explains both.",
                        access_url="https://feed.example.com/access/",
                    ),
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
                    {
                        "generated": "2026-11-23T06:00:00Z",
                        "issue_id": "2026-W48",
                        "total": 1,
                        "withheld": 3,
                        "rows": [ROW_EXAMPLE],
                    },
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

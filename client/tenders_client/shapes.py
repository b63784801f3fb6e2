"""Every public JSON shape of the service, built from the row schema. Pure.

:func:`derive` turns the hand-written row schema into the other published schemas, by file
name. Each is self-contained (no ``$ref``) so any JSON Schema tool can use one alone; the
server embeds them in its OpenAPI components and MCP tool schemas, and the validator checks
documents against them. Vocabularies (markets, buckets, bands) come from the row schema's own
enums, so a value is written once.

No ``type`` arrays: a value that may be null is ``anyOf`` a typed branch and ``null``, which
every tool-schema dialect reads (some model providers map schemas onto a single-type subset).
"""

import copy

DIALECT = "https://json-schema.org/draft/2020-12/schema"
URL_PREFIX = "/schema/"
LANGS = ("en", "zh", "zht")
MAX_LIMIT = 200
MAX_Q = 200
MAX_Q_TERMS = 8

ROW = "service.tender.v1.json"
LANG_ROW = "service.tender.v1.lang.json"
FLAT_FILE = "service.tender.v1.rows.json"
PAGE = "service.tender.v1.page.json"
PAGE_META = "service.tender.v1.meta.json"
ONE = "service.tender.v1.one.json"
FACETS = "service.tender.v1.facets.json"
QUERY = "service.tender.v1.query.json"
HEALTH = "service.health.v1.json"
ERROR = "service.error.v1.json"
LANE = "service.lane.v1.json"
ENGAGEMENT = "service.engagement.v1.json"
CAPABILITIES = "service.capabilities.v1.json"
RFQ_RECEIPT = "service.rfq-receipt.v1.json"
ACCESS_RECEIPT = "service.access-receipt.v1.json"

# The snapshot a response was read from; every envelope of the feed carries these.
SNAPSHOT_META = {
    "issue_id": {
        "type": "string",
        "pattern": "^[0-9]{4}-W[0-9]{2}$",
        "description": "The weekly issue: ISO week of publication, YYYY-Www.",
        "examples": ["2026-W48"],
    },
    "generated": {
        "type": "string",
        "format": "date-time",
        "description": "When this snapshot was published (RFC 3339, UTC).",
    },
    "snapshot_etag": {
        "type": "string",
        "description": "Names this snapshot exactly; also the ETag header. It changes with every "
        "publication, same-week republish or withdrawal.",
    },
    "access": {
        "type": "string",
        "const": "public",
        "description": "Access tier of the response: public (keyless).",
    },
}
LANG_META = {
    "type": "string",
    "enum": list(LANGS),
    "description": "Present when lang was given: the language rows were collapsed to.",
}


def embedded(schema: dict) -> dict:
    """A published schema for use inside another document: without ``$schema`` and ``$id``,
    which would start a new resource there (with a relative base, resolved differently by
    different tools)."""
    return {k: v for k, v in copy.deepcopy(schema).items() if k not in ("$schema", "$id")}


def nullable(schema: dict, description: str = "") -> dict:
    """``schema`` or null, spelled portably."""
    either = {"anyOf": [schema, {"type": "null"}]}
    return {"description": description, **either} if description else either


def _published(name: str, body: dict) -> dict:
    return {"$schema": DIALECT, "$id": URL_PREFIX + name, **body}


def _object(properties: dict, required: list[str] | None = None, **extra) -> dict:
    return {
        **extra,
        "type": "object",
        "additionalProperties": False,
        "required": list(properties) if required is None else required,
        "properties": properties,
    }


def _string(description: str = "", **rules) -> dict:
    return {**({"description": description} if description else {}), "type": "string", **rules}


def _count(description: str) -> dict:
    return {"type": "integer", "minimum": 0, "description": description}


def _strings(description: str, **items) -> dict:
    return {"description": description, "type": "array", "items": {"type": "string", **items}}


def _one_or_more(description: str, values: list[str] | None = None) -> dict:
    """A list filter: one value, or an array of them (REST spells the array "A,B")."""
    item = {"type": "string", "minLength": 1, **({"enum": values} if values else {})}
    return {
        "description": description,
        "anyOf": [item, {"type": "array", "items": item, "minItems": 1}],
    }


def derive(row: dict) -> dict[str, dict]:
    """Every schema derived from the row schema, by file name."""
    full = embedded(row)
    props = full["properties"]
    title = full["title"]
    markets = props["market"]["enum"]
    buckets = props["closing_bucket"]["enum"]
    bands = next(b["enum"] for b in props["value_band"]["anyOf"] if "enum" in b)
    lang_row = _lang_row(full)
    list_meta = {
        "total": _count("Rows matching the query."),
        "returned": _count("Rows in this response."),
        "next_cursor": nullable(
            {"type": "string"},
            "Pass as cursor, with the same filters, for the next page; null on the last page.",
        ),
        **SNAPSHOT_META,
        "lang": LANG_META,
    }
    page_meta = _object(
        list_meta,
        required=[k for k in list_meta if k != "lang"],
        title=f"{title} page meta",
        description="The meta of a listing page: counts, the next cursor and the snapshot.",
    )
    either_row = {
        "oneOf": [full, embedded(lang_row)],
        "description": "A full row, or with lang a row collapsed to one language.",
    }
    shapes = {
        LANG_ROW: lang_row,
        FLAT_FILE: _object(
            {
                "generated": SNAPSHOT_META["generated"],
                "issue_id": SNAPSHOT_META["issue_id"],
                "total": _count("Rows in the file."),
                "withheld": _count("Records eligible for this issue but held back."),
                "rows": {"type": "array", "items": full},
            },
            title=f"{title} flat file",
            description="The flat file /tender/rows.json: every row of the current snapshot in "
            "sort_key order, full rows only.",
        ),
        PAGE: _object(
            {"data": {"type": "array", "items": either_row}, "meta": embedded(page_meta)},
            title=f"{title} page",
            description="One page of the listing (GET /api/v1/tenders, the list_tenders tool), "
            "ordered by sort_key.",
        ),
        PAGE_META: page_meta,
        ONE: _object(
            {
                "data": either_row,
                "meta": _object({**SNAPSHOT_META, "lang": LANG_META}, required=list(SNAPSHOT_META)),
            },
            title=f"{title} one row",
            description="One row of the current snapshot (GET /api/v1/tenders/{at_id}, the "
            "get_tender tool).",
        ),
        FACETS: _facets(title, markets, buckets, bands),
        QUERY: _query(title, markets, buckets, bands),
        HEALTH: _health(title),
        ERROR: _error(),
        **_sourcing(),
        RFQ_RECEIPT: _receipt("RFQ", "request for quote"),
        ACCESS_RECEIPT: _receipt("ACR", "access request"),
    }
    return {name: _published(name, body) for name, body in shapes.items()}


def _lang_row(full: dict) -> dict:
    one = {}
    for name in full["required"]:
        if name == "category":
            one["category"] = _object(
                {"name": {"type": "string", "minLength": 1}},
                description="Procurement category in the requested language.",
            )
        elif name == "summary_en":
            one["summary"] = _string("Sanitized summary in the requested language.", minLength=1)
        elif not name.startswith("summary_"):
            one[name] = full["properties"][name]
    return _object(
        one,
        title=f"{full['title']} (one language)",
        description="One public tender row collapsed to the language asked for with lang "
        "(en, zh or zht): category becomes {name} and the three summaries one summary.",
    )


def _facets(title: str, markets: list, buckets: list, bands: list) -> dict:
    names = {name: _string(minLength=1) for name in ("name_en", "name_zh", "name_zht")}
    count = _count("Rows with this value in the snapshot, deadline_passed rows included.")

    def group(description: str, key: str, key_schema: dict, with_names: bool) -> dict:
        item = {key: key_schema, **(names if with_names else {}), "count": count}
        return {"description": description, "type": "array", "items": _object(item)}

    return _object(
        {
            "data": _object(
                {
                    "markets": group("Markets.", "code", _string(enum=markets), True),
                    "categories": group(
                        "Categories: give the slug (or a name) as the category filter.",
                        "slug",
                        _string(minLength=1),
                        True,
                    ),
                    "closing_buckets": group(
                        "Closing buckets.", "value", _string(enum=buckets), False
                    ),
                    "value_bands": group(
                        "Value bands; unspecified counts rows without one.",
                        "value",
                        _string(enum=[*bands, "unspecified"]),
                        False,
                    ),
                },
                description="Every value a list filter accepts, with its row count.",
            ),
            "meta": _object(
                {
                    **SNAPSHOT_META,
                    "status": _string(
                        "ok: the snapshot is at most 8 days old; degraded: older.",
                        enum=["ok", "degraded"],
                    ),
                    "feed_fresh": {
                        "type": "boolean",
                        "description": "True when the snapshot is at most 8 days old.",
                    },
                    "rows_total": _count("Rows in the snapshot."),
                    "withheld": _count("Records eligible for this issue but held back."),
                }
            ),
        },
        title=f"{title} facets",
        description="The filter vocabulary with row counts (GET /api/v1/tenders/facets, the "
        "tender_facets tool) and the state of the feed.",
    )


def _query(title: str, markets: list, buckets: list, bands: list) -> dict:
    return {
        "title": f"{title} listing parameters",
        "description": "The filters and paging of the listing, as typed values. Every filter is "
        "optional; list filters match any of their values.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "market": _one_or_more("Market codes.", markets),
            "category": _one_or_more(
                "Category slugs, or names in English, Simplified or Traditional Chinese, as "
                "the facets list them."
            ),
            "closing_bucket": _one_or_more(
                "Time left to the deadline at publication; all includes deadline_passed. "
                "Default: every bucket but deadline_passed.",
                [*buckets, "all"],
            ),
            "new": {
                "type": "boolean",
                "description": "true: only rows new in this issue; false: only rows carried "
                "over from earlier issues.",
            },
            "lead_ok": {
                "type": "boolean",
                "description": "true: only rows accepting supplier interest; false: the others.",
            },
            "value_band": _one_or_more(
                "Estimated value in USD; unspecified: no amount known.", [*bands, "unspecified"]
            ),
            "q": _string(
                "Case-insensitive substring search over the summaries and category names, in "
                "English or Chinese (one character is enough; Simplified and Traditional find "
                "each other). Words separated by spaces must all match, each anywhere and in "
                "any order (fleet maintenance); a phrase in double quotes must match as "
                'written ("fleet maintenance"). Chinese needs no spaces: 医疗设备 is one term. '
                f"1 to {MAX_Q} characters, at most {MAX_Q_TERMS} words and phrases, no "
                "control characters.",
                minLength=1,
                maxLength=MAX_Q,
            ),
            "lang": _string(
                "Answer in one language (English, Simplified, Traditional Chinese): rows then "
                "carry category.name and one summary, about a third of the size; meta.lang "
                "echoes it.",
                enum=list(LANGS),
            ),
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "description": f"Rows per page, 1 to {MAX_LIMIT}; more is refused, not clamped.",
            },
            "cursor": _string(
                "meta.next_cursor of the previous page, unchanged, with the same filters "
                "(lang and limit may change).",
                minLength=1,
            ),
        },
    }


HEALTH_REASONS = [
    "feed_stale",
    "flat_file_missing",
    "queue_stalled",
    "replica_lagging",
    "nothing_published",
    "database_unavailable",
]


def _health(title: str) -> dict:
    return _object(
        {
            "status": _string(enum=["ok", "degraded", "unavailable"]),
            "rows_total": _count("Rows in the current snapshot (0 when unavailable)."),
            "issue_id": nullable(SNAPSHOT_META["issue_id"]),
            "generated": nullable(SNAPSHOT_META["generated"]),
            "feed_fresh": {
                "type": "boolean",
                "description": "True when the snapshot is at most 8 days old.",
            },
            "schema": _string("The row schema served.", const=title),
            "reasons": {
                "description": "Present when the status is not ok: why, and what to look at.",
                "type": "array",
                "items": _object(
                    {
                        "code": _string(enum=HEALTH_REASONS),
                        "message": _string("What is wrong and what to do.", minLength=1),
                    }
                ),
            },
        },
        required=["status", "rows_total", "issue_id", "generated", "feed_fresh", "schema"],
        title="Feed health",
        description="ok: a current issue at most 8 days old and nothing wrong; degraded: "
        "older, or something an operator should look at (reasons); unavailable: nothing "
        "published or the database does not answer (HTTP 503).",
    )


def _error() -> dict:
    return _object(
        {
            "error": _object(
                {
                    "code": _string(
                        "Machine-readable: invalid_parameter, invalid_cursor, "
                        "snapshot_changed, not_found, SPEC_CODED_GATED, method_not_allowed, "
                        "invalid_body, idempotency_conflict, rate_limited, "
                        "service_unavailable.",
                        minLength=1,
                    ),
                    "message": _string(
                        "What went wrong and what to do, for a person or a model.", minLength=1
                    ),
                    "param": _string("The parameter, argument, field or header at fault."),
                },
                required=["code", "message"],
            ),
            "access_url": _string(
                "With SPEC_CODED_GATED: the page explaining how to get access.", format="uri"
            ),
            "retry_after": {
                "type": "integer",
                "minimum": 1,
                "description": "With rate_limited and service_unavailable from the intakes: "
                "seconds to wait (also the Retry-After header).",
            },
        },
        required=["error"],
        title="Error",
        description="Every error of every surface: REST bodies and the text of MCP tool errors.",
    )


def _sourcing() -> dict[str, dict]:
    lane = _object(
        {
            "id": _string("Stable lane id.", minLength=1),
            "name": _string(),
            "summary": _string(),
            "sources": _string("What the lane sources, and where from."),
            "markets": _strings("Codes of the markets it serves."),
            "compliance": _strings("Ids of its compliance items (see the capabilities)."),
            "page": _string("Page describing the lane.", format="uri"),
        },
        title="Lane",
        description="A sourcing lane.",
    )
    engagement = _object(
        {
            "model": _string(const="deposit-first"),
            "name": _string(),
            "summary": _string(),
            "reply": _object(
                {
                    "within_hours": {"type": "integer", "minimum": 1},
                    "promise": _string(),
                    "note": _string(),
                }
            ),
            "deposit": _object(
                {
                    "percent": {"type": "integer", "minimum": 1, "maximum": 100},
                    "terms": _string(),
                }
            ),
            "steps": {
                "type": "array",
                "items": _object(
                    {
                        "stage": _string(),
                        "buyer_pays": _string(),
                        "when": _string(),
                        "buyer_gets": _string(),
                    }
                ),
            },
        },
        title="Engagement",
        description="How a buyer engages: what is paid when, what the buyer gets, how fast we "
        "reply.",
    )
    capabilities = {
        "title": "Capabilities",
        "description": "Sourcing lanes, markets served, compliance checks and the engagement "
        "model (GET /agent/capabilities.json).",
        "type": "object",
        "required": ["service", "lanes", "markets", "compliance", "engagement", "links"],
        "properties": {
            "service": _object({"name": _string(), "description": _string()}),
            "lanes": {"type": "array", "items": embedded(lane)},
            "markets": {
                "type": "array",
                "items": _object(
                    {
                        "code": _string(),
                        "name_en": _string(),
                        "name_zh": _string(),
                        "name_zht": _string(),
                        "notes": _string(),
                        "lanes": _strings("Ids of the lanes serving it."),
                    }
                ),
            },
            "compliance": {
                "type": "array",
                "items": _object(
                    {
                        "id": _string(),
                        "name": _string(),
                        "description": _string(),
                        "markets": _strings("Codes of the markets it applies to."),
                    }
                ),
            },
            "engagement": embedded(engagement),
            "links": {"type": "object", "additionalProperties": _string(format="uri")},
        },
    }
    return {LANE: lane, ENGAGEMENT: engagement, CAPABILITIES: capabilities}


def _receipt(prefix: str, noun: str) -> dict:
    return _object(
        {
            "received": {"type": "boolean", "const": True, "description": "Stored."},
            "reference": _string(
                "Quote it in any follow-up. An idempotent retry returns the first reference.",
                pattern=f"^{prefix}-[0-9A-HJKMNP-TV-Z]{{10}}$",
            ),
            "next": _string("What happens next, for a person."),
        },
        title=f"Receipt of a {noun}",
        description=f"The answer to a stored {noun}.",
    )

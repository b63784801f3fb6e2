"""The nine tools of the MCP server: their descriptions, schemas and handlers.

Each handler is a few lines over ``domain`` (the one door to the selectors and services REST
calls); the machinery that checks arguments, calls a handler and encodes its result is
``registry``.
"""

from typing import Any

from rfq.validation import ACCESS_REQUEST_FORM, RFQ_FORM
from tenders import contract
from tenders.buckets import CLOSING_BUCKETS
from tenders.contract import QUERY, embedded_schema
from tenders.markets import MARKET_CODES
from tenders.read.fields import parse_lang
from tenders.read.query import BAND_VALUES, TOOL
from tenders.read.rows import LANGS

from . import domain, render
from .registry import Rendered, Tool, ToolRegistry

# --- schemas ----------------------------------------------------------------------------------
# Every shape is a published schema file of tenders_client (the OpenAPI components embed the
# same files); only the envelopes that exist on this surface alone are composed here.


def _arguments(properties: dict, required: tuple[str, ...] = ()) -> dict:
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def _envelope(data: dict, **meta: dict) -> dict:
    properties = {"data": data}
    if meta:
        properties["meta"] = {"type": "object", "required": list(meta), "properties": meta}
    return {"type": "object", "required": list(properties), "properties": properties}


# Rules a model needs no schema for: the server states them in its refusals (and the published
# files at /schema/ carry them for anyone checking data).
_LIMITS = {"examples", "minLength", "maxLength", "minItems", "pattern", "format"}


def pruned(schema: Any, drop: set[str] | frozenset[str]) -> Any:
    """``schema`` without the keywords in ``drop`` (never a property of that name)."""
    if isinstance(schema, list):
        return [pruned(item, drop) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: (
            {name: pruned(sub, drop) for name, sub in value.items()}
            if key == "properties"
            else pruned(value, drop)
        )
        for key, value in schema.items()
        if key not in drop
    }


def outline(schema: Any, depth: int) -> Any:
    """The types and structure of ``schema`` down to ``depth`` levels of objects and arrays
    (objects there refuse members they do not name); below, each value's type alone."""
    if isinstance(schema, list):
        return [outline(item, depth) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if depth <= 0:
        if "type" in schema:
            return {key: schema[key] for key in ("type", "required") if key in schema}
        either = schema.get("anyOf") or schema.get("oneOf") or ()
        return {"anyOf": [outline(item, 0) for item in either]} if either else {}
    kept = {}
    for key, value in schema.items():
        if key == "properties":
            kept[key] = {name: outline(sub, depth - 1) for name, sub in value.items()}
        elif key in ("items", "anyOf", "oneOf"):
            kept[key] = outline(value, depth - (key == "items"))
        elif key in ("type", "required", "additionalProperties"):
            kept[key] = value
    return kept


def output_schema(name: str, depth: int = 1) -> dict:
    """A published schema as a tool's output schema: its types and structure to ``depth``,
    without prose or rules on values. ``tools/list`` is read by models on every session; the
    published file (at /schema/) keeps the rest."""
    schema = outline(embedded_schema(name), depth)
    schema.pop("additionalProperties", None)  # the envelope: its members are checked
    return schema


def lean_arguments(schema: dict) -> dict:
    """An input schema as ``tools/list`` sends it: types, choices, defaults and what each
    argument means; lengths, patterns and examples are left to the refusals."""
    return pruned(schema, _LIMITS)


def tool_row() -> dict:
    """A row as the tools send it: one language, ``sort_key`` only when asked for. Its members
    by name only (no other member is accepted, so a client's check still refuses anything
    that is not a public field); their types and values are in the published file."""
    row = embedded_schema(contract.LANG_ROW)
    return {
        "type": "object",
        "required": [name for name in row["required"] if name != "sort_key"],
        "propertyNames": {"enum": list(row["properties"])},
    }


def _with_tool_rows(envelope: dict, many: bool) -> dict:
    data = envelope["properties"]["data"]
    if many:
        data["items"] = tool_row()
    else:
        envelope["properties"]["data"] = tool_row()
    return envelope


LIST_ENVELOPE = _with_tool_rows(output_schema(contract.PAGE), many=True)
ONE_ENVELOPE = _with_tool_rows(output_schema(contract.ONE), many=False)
LANE = output_schema(contract.LANE)

# The tools' own spellings of the listing's parameters: the types of the published query
# schema (contract.QUERY, which has the long descriptions), the accepted values in a few words.
_QUERY = embedded_schema(QUERY)["properties"]
DEFAULT_LANG = TOOL.default_lang
# get_tender and tender_facets repeat these without prose: list_tenders explains them.
_BARE_LANG = {"type": "string", "enum": list(LANGS), "default": DEFAULT_LANG}
_BARE_FLAG = {"type": "boolean", "default": False}
AT_ID = {"description": "asaptic_id of a row from list_tenders.", "type": "string"}
_LIST_ARGUMENTS = {
    "market": f"{' '.join(MARKET_CODES)}; any case.",
    "category": "Slugs or names from tender_facets.",
    "closing_bucket": f"{', '.join(CLOSING_BUCKETS)} or all (le_2w: 14 days or less); "
    "default: the first three.",
    "new": "Only rows new this issue (true) or older ones (false).",
    "lead_ok": "Only rows accepting supplier interest (true) or the others.",
    "value_band": f"USD: {', '.join(BAND_VALUES)} (no amount).",
    "q": 'Search in any language: all words, any order; "a phrase" as written.',
    "limit": "1 to 200.",
    "cursor": "meta.next_cursor, with the same filters.",
}


def _list_tenders_arguments() -> dict:
    properties = {}
    for name, schema in _QUERY.items():
        if name == "lang":
            properties[name] = _BARE_LANG
        else:
            properties[name] = {**outline(schema, 1), "description": _LIST_ARGUMENTS[name]}
    properties["limit"]["default"] = TOOL.default_limit
    properties["with_sort_key"] = _BARE_FLAG
    return _arguments(properties)


LIST_TENDERS_ARGUMENTS = _list_tenders_arguments()
# Arguments of the tools alone: how a result is written, never which rows it holds.
TOOL_ONLY = ("with_sort_key",)


def _not_null(field: dict) -> dict:
    """An optional field without its null alternative: a null argument is "not given" anyway
    (``registry.Tool.check_arguments``)."""
    either = [item for item in field.get("anyOf", ()) if item.get("type") != "null"]
    if len(either) != 1:
        return field
    return {**{k: v for k, v in field.items() if k != "anyOf"}, **either[0]}


def _form_arguments(form, described: tuple[str, ...], extra: dict | None = None) -> dict:
    """Tool arguments from an intake form's JSON Schema: the intake service is the one
    validator of these fields (for POST /rfq as well), so its messages are the ones a model
    sees. Only the fields in ``described`` keep their description (the others' names say
    enough, and a refusal says what is accepted)."""
    schema = form.json_schema()
    properties = {
        name: _not_null(field if name in described else pruned(field, {"description"}))
        for name, field in schema["properties"].items()
    }
    properties.update(extra or {})
    return lean_arguments(_arguments(properties, tuple(schema["required"])))


# --- handlers ---------------------------------------------------------------------------------


def read_arguments(arguments: dict, *, leave: tuple[str, ...] = ()) -> dict:
    """A read tool's arguments as the listing's FilterSet takes them: typed, as sent, without
    the tools' own. JSON Schema counts 5.0 as an integer: it is read as 5. The FilterSet
    (``tenders.read.filters.TenderFilterSet``) judges every value with the rules, messages and
    cursors of REST; the tool surface (``TOOL``) answers in English when no lang is given."""
    return {
        name: int(value) if isinstance(value, float) and value.is_integer() else value
        for name, value in arguments.items()
        if name not in (*TOOL_ONLY, *leave)
    }


def _rows_for_tools(rows: list[dict], arguments: dict) -> list[dict]:
    if arguments.get("with_sort_key"):
        return rows
    return [{k: v for k, v in row.items() if k != "sort_key"} for row in rows]


def _list_tenders(arguments: dict) -> Rendered:
    page = domain.list_tenders(read_arguments(arguments)).value()  # shared: read, never changed
    result = {"data": _rows_for_tools(page["data"], arguments), "meta": page["meta"]}
    return Rendered(result, render.page_text(result))


def _get_tender(arguments: dict) -> Rendered:
    one = domain.get_tender(arguments["at_id"], read_arguments(arguments, leave=("at_id",))).value()
    result = {"data": _rows_for_tools([one["data"]], arguments)[0], "meta": one["meta"]}
    return Rendered(result, render.one_text(result))


def _tender_facets(arguments: dict) -> Rendered:
    answer = domain.tender_facets()
    lang = parse_lang(arguments.get("lang", DEFAULT_LANG))
    return Rendered(answer, render.facets_text(answer.value(), lang))


def _get_spec_coded(arguments: dict) -> dict:
    # Gated for every caller: the domain raises SPEC_CODED_GATED with its access_url.
    domain.spec_coded(arguments["at_id"])
    raise AssertionError("spec_coded() must raise the gated error")


def _request_tender_access(arguments: dict) -> dict:
    return domain.request_tender_access(
        at_id=arguments.get("at_id"),
        organisation=arguments["organisation"],
        contact=arguments["contact"],
        purpose=arguments["purpose"],
    )


def _submit_rfq(arguments: dict) -> dict:
    return domain.submit_rfq(
        product=arguments["product"],
        quantity=arguments.get("quantity"),
        target_market=arguments.get("target_market"),
        buyer_contact=arguments["buyer_contact"],
        idempotency_key=arguments.get("idempotency_key"),
        asaptic_id=arguments.get("asaptic_id"),
    )


def _list_sourcing_lanes(arguments: dict) -> dict:
    market = arguments.get("market")
    lanes = domain.sourcing_lanes(market)
    return {"data": lanes, "meta": {"returned": len(lanes), "market": market and market.upper()}}


def _get_lane_capability(arguments: dict) -> dict:
    return {"data": domain.lane_capability(arguments["lane_id"])}


def _get_engagement(arguments: dict) -> dict:
    return {"data": domain.engagement()}


# Only the hints that matter to a client deciding whether to ask the user first (the others
# are MCP's defaults: readOnlyHint false, destructiveHint true, idempotentHint false).
READ_ONLY = {"readOnlyHint": True}
WRITES = {"destructiveHint": False}

TOOLS = (
    Tool(
        name="list_tenders",
        title="List tenders",
        description=(
            "Open public tenders of this week's sanitized feed, "
            f"{TOOL.default_limit} rows a page (one a line in the text), in English unless "
            "lang is zh or zht. Narrow with filters (values: tender_facets) or q. Next page: "
            "meta.next_cursor as cursor, same filters; after snapshot_changed, restart."
        ),
        input_schema=LIST_TENDERS_ARGUMENTS,
        output_schema=LIST_ENVELOPE,
        handler=_list_tenders,
        annotations=READ_ONLY,
    ),
    Tool(
        name="get_tender",
        title="Get a tender",
        description="One row of the current issue by its asaptic_id, as list_tenders gives it.",
        input_schema=_arguments(
            {"at_id": AT_ID, "lang": _BARE_LANG, "with_sort_key": _BARE_FLAG}, ("at_id",)
        ),
        output_schema=ONE_ENVELOPE,
        handler=_get_tender,
        annotations=READ_ONLY,
    ),
    Tool(
        name="tender_facets",
        title="Facets",
        description=(
            "Call first: the values the list_tenders filters accept, each with its row count, "
            "and the feed's state. lang: of the names in the text."
        ),
        input_schema=_arguments({"lang": _BARE_LANG}),
        output_schema=output_schema(contract.FACETS),
        handler=_tender_facets,
        annotations=READ_ONLY,
    ),
    Tool(
        name="get_spec_coded",
        title="Spec-coded detail",
        description=(
            "Technical detail beyond the row. Gated: fails with SPEC_CODED_GATED and an "
            "access_url saying how to get access."
        ),
        input_schema=_arguments({"at_id": {"type": "string"}}, ("at_id",)),
        output_schema=_envelope({"type": "object"}),
        handler=_get_spec_coded,
        annotations=READ_ONLY,
    ),
    Tool(
        name="request_tender_access",
        title="Request access",
        description=(
            "Ask for the gated detail (of at_id, or in general), answered within 4 hours: only "
            "when the user wants it and gave these details."
        ),
        input_schema=_form_arguments(ACCESS_REQUEST_FORM, ()),  # contact: as submit_rfq's
        output_schema=output_schema(contract.ACCESS_RECEIPT),
        handler=_request_tender_access,
        annotations=WRITES,
    ),
    Tool(
        name="submit_rfq",
        title="Request a quote",
        description=(
            "Request a quote, answered within 4 hours: only when the user asks for one and gave "
            "a contact. A retry with the same idempotency_key is stored once."
        ),
        input_schema=_form_arguments(
            RFQ_FORM,
            ("buyer_contact",),
            {"idempotency_key": {"type": "string"}},
        ),
        output_schema=output_schema(contract.RFQ_RECEIPT),
        handler=_submit_rfq,
        annotations=WRITES,
    ),
    Tool(
        name="list_sourcing_lanes",
        title="Sourcing lanes",
        description="What we source: lanes, their markets and compliance; market narrows.",
        input_schema=_arguments({"market": {"type": "string"}}),
        output_schema=_envelope({"type": "array"}, returned={"type": "integer"}),
        handler=_list_sourcing_lanes,
        annotations=READ_ONLY,
    ),
    Tool(
        name="get_lane_capability",
        title="Sourcing lane",
        description="One sourcing lane by the id list_sourcing_lanes gives.",
        input_schema=_arguments({"lane_id": {"type": "string"}}, ("lane_id",)),
        output_schema=_envelope(outline(LANE, 0)),
        handler=_get_lane_capability,
        annotations=READ_ONLY,
    ),
    Tool(
        name="get_engagement",
        title="Engagement model",
        description="How an engagement works: deposit first, from request for quote to delivery.",
        input_schema=_arguments({}),
        output_schema=_envelope(output_schema(contract.ENGAGEMENT, depth=0)),
        handler=_get_engagement,
        annotations=READ_ONLY,
    ),
)

REGISTRY = ToolRegistry(TOOLS)

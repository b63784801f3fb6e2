"""The tools of the MCP server: a registry, argument validation, results, and the nine tools.

A tool is a name, a title, a description written for a model, an input schema that refuses
unknown arguments, an output schema, and a handler of a few lines over ``domain``. Arguments
are checked against the input schema with ``jsonschema`` before the handler runs; a failure
is a tool error (``isError: true``) whose message names the argument, so a model can correct
its call. The schemas shape types only: which values are valid (markets, limits, cursors) is
decided by the shared selectors and services, with the same messages REST gives.

A result carries ``structuredContent`` (matching the output schema) and the same JSON as text.
A tool error carries, as its text, the error body of ``config.errors``:
``{"error": {"code", "message", "param"}}`` plus ``access_url`` where a code has one.
"""

import copy
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from config.database import UNAVAILABLE
from config.errors import ApiError, database_unavailable, error_body
from rfq.validation import ACCESS_REQUEST_FORM, RFQ_FORM
from tenders.buckets import CLOSING_BUCKETS, VALUE_BANDS
from tenders.contract import LANG_META, SNAPSHOT_META, lang_row_schema, page_schema, row_schema
from tenders.markets import MARKET_CODES
from tenders.rows import LANGS

from . import domain

log = logging.getLogger(__name__)

INVALID = "invalid_parameter"


class ToolError(Exception):
    """A tool's own failure: answered as a result with ``isError: true``, never a 500."""

    def __init__(self, message: str, *, code: str = INVALID, param: str | None = None, extra=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.param = param
        self.extra = dict(extra or {})

    def body(self) -> dict:
        return error_body(self.code, self.message, self.param, **self.extra)


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    input_schema: dict
    output_schema: dict
    handler: Callable[[dict], dict]
    annotations: dict = field(default_factory=dict)
    validator: Draft202012Validator = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "validator", Draft202012Validator(self.input_schema))

    def definition(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
            "annotations": {"title": self.title, **self.annotations},
        }

    def check_arguments(self, arguments: dict) -> dict:
        """The arguments to pass to the handler, or a ToolError naming the first bad one.

        A null for a declared optional argument means "not given": several model APIs send
        every declared argument and null the ones they do not use.
        """
        known = self.input_schema.get("properties", {})
        arguments = {k: v for k, v in arguments.items() if not (v is None and k in known)}
        errors = list(self.validator.iter_errors(arguments))
        if errors:
            raise argument_error(self, min(errors, key=_error_rank), arguments)
        return arguments


_KEYWORD_RANK = {"additionalProperties": 0, "required": 1, "type": 2}


def _error_rank(error: ValidationError) -> tuple:
    # Deterministic: unknown names first, then missing ones, then values, in argument order.
    return (
        _KEYWORD_RANK.get(error.validator, 3),
        [str(p) for p in error.absolute_path],
        error.validator,
    )


_JSON_TYPES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def argument_error(tool: Tool, error: ValidationError, arguments: dict) -> ToolError:
    """A message that names the argument at fault and says what would be accepted."""
    path = list(error.absolute_path)
    properties = tool.input_schema.get("properties", {})
    if error.validator == "additionalProperties" and not path:
        name = sorted(set(arguments) - set(properties))[0]
        accepted = ", ".join(properties) if properties else "no arguments"
        return ToolError(f"Unknown argument '{name}'; {tool.name} accepts: {accepted}.", param=name)
    if error.validator == "required" and not path:
        name = next(p for p in error.validator_value if p not in arguments)
        return ToolError(f"Missing required argument '{name}'.", param=name)
    name = str(path[0])
    where = f"Argument '{name}'" + (f" item {path[1]}" if len(path) > 1 else "")
    if error.validator == "type":
        wanted = (
            error.validator_value
            if isinstance(error.validator_value, list)
            else [error.validator_value]
        )
        phrases = [_JSON_TYPES[t] for t in wanted]
        if "array" in wanted and error.schema.get("items", {}).get("type") == "string":
            phrases[wanted.index("array")] = "an array of strings"
        return ToolError(
            f"{where} must be {' or '.join(phrases)}, not {_json_type(error.instance)}.",
            param=name,
        )
    return ToolError(f"{where}: {error.message}.", param=name)


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def error_result(body: dict) -> dict:
    return {"content": [{"type": "text", "text": _text(body)}], "isError": True}


class ToolRegistry:
    """Tools by name, in the order they are listed (deterministic, as 2026-07-28 asks)."""

    def __init__(self, tools: Iterable[Tool]):
        self._tools = {tool.name: tool for tool in tools}

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool:
        return self._tools[name]

    def has(self, name: str) -> bool:
        return name in self._tools

    def definitions(self) -> list[dict]:
        return [tool.definition() for tool in self._tools.values()]

    def call(self, name: str, arguments: dict) -> dict:
        """A ``tools/call`` result. Unexpected exceptions propagate (the dispatcher answers
        -32603); the domain's own refusals, and a database that does not answer (the REST
        503 body, with its retry hint), become tool errors."""
        tool = self._tools[name]
        try:
            structured = tool.handler(tool.check_arguments(arguments))
        except ToolError as exc:
            return error_result(exc.body())
        except ApiError as exc:
            return error_result(exc.body())
        except UNAVAILABLE as exc:
            log.warning("database unavailable in tool %s: %s", name, exc)
            return error_result(database_unavailable().body())
        return {
            "content": [{"type": "text", "text": _text(structured)}],
            "structuredContent": structured,
            "isError": False,
        }


# --- schemas ----------------------------------------------------------------------------------


def _string(description: str) -> dict:
    return {"description": description, "type": "string"}


def _embedded(schema: dict) -> dict:
    """A published schema for use inside another: its own ``$schema``/``$id`` would start a
    new resource with a relative base, which some validators resolve differently."""
    schema = copy.deepcopy(schema)
    schema.pop("$schema", None)
    schema.pop("$id", None)
    return schema


ROW = _embedded(row_schema())
# The lang-collapsed row and the list page are the published schema files as well, so the tool
# schemas, REST's OpenAPI components and the validator cannot drift apart.
ROW_ONE_LANGUAGE = _embedded(lang_row_schema())
ANY_ROW = {"anyOf": [ROW, ROW_ONE_LANGUAGE]}
LIST_ENVELOPE = _embedded(page_schema())

_OPEN_META = {"type": "object", "properties": {**SNAPSHOT_META, "lang": LANG_META}}


def _vocabulary(name: str, key: str, extra: dict) -> dict:
    return {
        "description": f"{name} with their row counts in the current issue.",
        "type": "array",
        "items": {
            "type": "object",
            "required": [key, "count"],
            "properties": {key: {"type": "string"}, "count": {"type": "integer"}, **extra},
        },
    }


_NAMES = {name: {"type": "string"} for name in ("name_en", "name_zh", "name_zht")}

FACETS = {
    "type": "object",
    "required": ["data", "meta"],
    "properties": {
        "data": {
            "type": "object",
            "required": ["markets", "categories", "closing_buckets", "value_bands"],
            "properties": {
                "markets": _vocabulary("Markets", "code", _NAMES),
                "categories": _vocabulary(
                    "Categories (use slug or a name as category)", "slug", _NAMES
                ),
                "closing_buckets": _vocabulary("Closing buckets", "value", {}),
                "value_bands": _vocabulary(
                    "Value bands (unspecified: no amount known)", "value", {}
                ),
            },
        },
        "meta": _OPEN_META,
    },
}

LANE = {
    "title": "Lane",
    "type": "object",
    "required": ["id", "sources", "markets", "compliance", "page"],
    "properties": {
        "id": {"type": "string"},
        "sources": _string("What the lane sources."),
        "markets": {"type": "array", "items": {"type": "string"}},
        "compliance": {"type": "array", "items": {"type": "string"}},
        "page": {"description": "Page describing the lane.", "type": "string", "format": "uri"},
    },
}

RECEIPT = {
    "type": "object",
    "required": ["received", "reference", "next"],
    "properties": {
        "received": {"description": "True once the request is stored.", "type": "boolean"},
        "reference": _string("Quote this reference in any follow-up."),
        "next": _string("What happens next."),
    },
}

RFQ_RECEIPT = {
    **RECEIPT,
    "additionalProperties": False,
    "properties": {
        **RECEIPT["properties"],
        "reference": {
            "description": "Quote this reference in any follow-up.",
            "type": "string",
            "pattern": "^RFQ-[0-9A-HJKMNP-TV-Z]{10}$",
        },
    },
}


def _arguments(properties: dict, required: tuple[str, ...] = ()) -> dict:
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


_RULE_KEYWORDS = {"minLength", "maxLength", "pattern", "format"}


def _form_arguments(form, extra: dict | None = None) -> dict:
    """Tool arguments from an intake form's JSON Schema, kept to types and descriptions.

    The intake service is the one validator of these fields (for POST /rfq as well), so its
    messages, naming the field, are the ones a model sees; the descriptions state the rules.
    """
    schema = form.json_schema()
    properties = {
        name: {k: v for k, v in prop.items() if k not in _RULE_KEYWORDS}
        for name, prop in schema["properties"].items()
    }
    return _arguments({**properties, **(extra or {})}, tuple(schema["required"]))


def _list_of(description: str) -> dict:
    return {
        "description": description + ' One value, several as "A,B", or an array ["A", "B"].',
        "type": ["string", "array"],
        "items": {"type": "string"},
    }


AT_ID = {
    "description": "Listing id (asaptic_id of a row), e.g. AT-7KQ2M9X4PB.",
    "type": "string",
}
LANG = {
    "description": f"Answer in one language: {', '.join(LANGS)} (English, Simplified, "
    "Traditional Chinese). Rows then carry category.name and summary only.",
    "type": "string",
}

LIST_TENDERS_ARGUMENTS = _arguments(
    {
        "market": _list_of(f"Market codes: {', '.join(MARKET_CODES)} (any case)."),
        "category": _list_of(
            "Category slugs or names in any of the three languages (see tender_facets)."
        ),
        "closing_bucket": _list_of(
            f"Time left to the deadline: {', '.join(CLOSING_BUCKETS)}, or all. "
            "By default closed listings (deadline_passed) are left out."
        ),
        "new": {"description": "Only rows new in this week's issue.", "type": "boolean"},
        "lead_ok": {
            "description": "true: only rows accepting supplier interest; false: only the others.",
            "type": "boolean",
        },
        "value_band": _list_of(
            f"Estimated value in USD: {', '.join(VALUE_BANDS)}, or unspecified (no amount known)."
        ),
        "q": {
            "description": "Case-insensitive substring search over the summaries and category "
            "names, in English or Chinese (one character is enough).",
            "type": "string",
        },
        "lang": LANG,
        "limit": {
            "description": "Rows per page: default 50, at most 200 (more is refused, not clamped).",
            "type": "integer",
        },
        "cursor": {
            "description": "meta.next_cursor of the previous page; send it with the same filters. "
            "Cursors of GET /api/v1/tenders work here too.",
            "type": "string",
        },
    }
)


def rest_query(arguments: dict) -> dict[str, str]:
    """Typed tool arguments as the query parameters ``GET /api/v1/tenders`` receives.

    Only the spelling changes (arrays become comma lists, booleans true/false, integers
    digits); every value is then judged by the one shared parser, so REST and the tool give the
    same answers, messages and cursors.
    """
    query = {}
    for name, value in arguments.items():
        if isinstance(value, bool):
            query[name] = "true" if value else "false"
        elif isinstance(value, list):
            query[name] = ",".join(value)
        elif isinstance(value, float) and value.is_integer():
            query[name] = str(int(value))  # JSON Schema counts 5.0 as an integer
        else:
            query[name] = str(value)
    return query


# --- handlers ---------------------------------------------------------------------------------


def _list_tenders(arguments: dict) -> dict:
    return domain.list_tenders(rest_query(arguments))


def _get_tender(arguments: dict) -> dict:
    query = rest_query({k: v for k, v in arguments.items() if k != "at_id"})
    return domain.get_tender(arguments["at_id"], query)


def _tender_facets(arguments: dict) -> dict:
    return domain.tender_facets()


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
    )


def _list_sourcing_lanes(arguments: dict) -> dict:
    market = arguments.get("market")
    lanes = domain.sourcing_lanes(market)
    return {"data": lanes, "meta": {"returned": len(lanes), "market": market and market.upper()}}


def _get_lane_capability(arguments: dict) -> dict:
    return {"data": domain.lane_capability(arguments["lane_id"])}


def _get_engagement(arguments: dict) -> dict:
    return {"data": domain.engagement()}


READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}
WRITES = {
    "readOnlyHint": False,
    "destructiveHint": False,
    "idempotentHint": False,
    "openWorldHint": False,
}

TOOLS = (
    Tool(
        name="list_tenders",
        title="List public tenders",
        description=(
            "List open public-procurement opportunities from this week's sanitized feed (seven "
            "markets, summaries in English, Simplified and Traditional Chinese). Filter by "
            "market, category, closing bucket, value band, new, lead_ok or a text search q; "
            "rows come ordered by sort_key. Page with cursor: pass meta.next_cursor back with "
            "the same filters until it is null. If the weekly issue changes while you page, the "
            "call fails with snapshot_changed: start again without a cursor. Buyer names, "
            "reference numbers, exact deadlines and amounts are never part of a row."
        ),
        input_schema=LIST_TENDERS_ARGUMENTS,
        output_schema=LIST_ENVELOPE,
        handler=_list_tenders,
        annotations=READ_ONLY,
    ),
    Tool(
        name="get_tender",
        title="Get one tender",
        description=(
            "Get one listing of the current issue by its id (asaptic_id). An id that is not in "
            "the current issue answers not_found."
        ),
        input_schema=_arguments({"at_id": AT_ID, "lang": LANG}, ("at_id",)),
        output_schema={
            "type": "object",
            "required": ["data", "meta"],
            "properties": {"data": ANY_ROW, "meta": _OPEN_META},
        },
        handler=_get_tender,
        annotations=READ_ONLY,
    ),
    Tool(
        name="tender_facets",
        title="Tender vocabulary and counts",
        description=(
            "The vocabulary of the list filters with row counts in the current issue: markets, "
            "categories (slug and names), closing buckets and value bands. Use it to choose "
            "list_tenders filters."
        ),
        input_schema=_arguments({}),
        output_schema=FACETS,
        handler=_tender_facets,
        annotations=READ_ONLY,
    ),
    Tool(
        name="get_spec_coded",
        title="Spec-coded detail (gated)",
        description=(
            "Field-level technical detail of a listing beyond its public row. It is gated: "
            "without approved access the call fails with SPEC_CODED_GATED and an access_url "
            "explaining how to get access (a portal account, or request_tender_access)."
        ),
        input_schema=_arguments({"at_id": AT_ID}, ("at_id",)),
        output_schema={
            "type": "object",
            "required": ["data"],
            "properties": {
                "data": {"description": "The spec-coded detail.", "type": "object"},
                "meta": {"type": "object"},
            },
        },
        handler=_get_spec_coded,
        annotations=READ_ONLY,
    ),
    Tool(
        name="request_tender_access",
        title="Request gated access",
        description=(
            "Ask for access to the gated spec-coded detail, for one listing (at_id) or in "
            "general. Staff review each request; the answer gives a reference and what happens "
            "next. Send it only when the user wants access and has given these details."
        ),
        input_schema=_form_arguments(ACCESS_REQUEST_FORM),
        output_schema=RECEIPT,
        handler=_request_tender_access,
        annotations=WRITES,
    ),
    Tool(
        name="submit_rfq",
        title="Submit a request for quote",
        description=(
            "Send a request for quote (RFQ) for a product or sourcing lane; the contact is "
            "answered within 4 hours. Send it only when the user asks for a quote and has given "
            "a contact. Reuse the same idempotency_key when retrying one request so it is "
            "stored once."
        ),
        input_schema=_form_arguments(
            RFQ_FORM,
            {
                "idempotency_key": {
                    "description": "Any unique string; a retry with the same key is stored once.",
                    "type": "string",
                },
            },
        ),
        output_schema=RFQ_RECEIPT,
        handler=_submit_rfq,
        annotations=WRITES,
    ),
    Tool(
        name="list_sourcing_lanes",
        title="List sourcing lanes",
        description=(
            "The sourcing lanes on offer: what each sources, the markets it serves, its "
            "compliance coverage and a page about it. Optionally only the lanes serving one "
            "market."
        ),
        input_schema=_arguments({"market": _string("Only lanes serving this market code.")}),
        output_schema={
            "type": "object",
            "required": ["data", "meta"],
            "properties": {
                "data": {"type": "array", "items": LANE},
                "meta": {
                    "type": "object",
                    "required": ["returned", "market"],
                    "properties": {
                        "returned": {"type": "integer", "minimum": 0},
                        "market": {"type": ["string", "null"]},
                    },
                },
            },
        },
        handler=_list_sourcing_lanes,
        annotations=READ_ONLY,
    ),
    Tool(
        name="get_lane_capability",
        title="Get one sourcing lane",
        description="One sourcing lane by its id (the id field of list_sourcing_lanes).",
        input_schema=_arguments(
            {"lane_id": _string("Lane id from list_sourcing_lanes.")},
            ("lane_id",),
        ),
        output_schema={"type": "object", "required": ["data"], "properties": {"data": LANE}},
        handler=_get_lane_capability,
        annotations=READ_ONLY,
    ),
    Tool(
        name="get_engagement",
        title="Engagement model",
        description=(
            "How an engagement works: the deposit-first model, from request for quote to "
            "delivery. Read it before explaining terms to a buyer."
        ),
        input_schema=_arguments({}),
        output_schema={
            "type": "object",
            "required": ["data"],
            "properties": {"data": {"description": "The engagement model.", "type": "object"}},
        },
        handler=_get_engagement,
        annotations=READ_ONLY,
    ),
)

REGISTRY = ToolRegistry(TOOLS)

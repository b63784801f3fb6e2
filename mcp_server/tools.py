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

import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator, ValidationError
from tenders_client.jsontypes import a_type, explained, wanted

from config.database import UNAVAILABLE
from config.errors import ApiError, database_unavailable, error_body
from rfq.validation import ACCESS_REQUEST_FORM, RFQ_FORM
from tenders import contract
from tenders.contract import QUERY, embedded_schema
from tenders.filters import TOOL

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
        checked = types_only(self.input_schema)
        object.__setattr__(self, "validator", Draft202012Validator(checked))

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


_KEYWORD_RANK = {"additionalProperties": 0, "required": 1, "type": 2, "anyOf": 2}


def _error_rank(error: ValidationError) -> tuple:
    # Deterministic: unknown names first, then missing ones, then values, in argument order.
    return (
        _KEYWORD_RANK.get(error.validator, 3),
        [str(p) for p in error.absolute_path],
        error.validator,
    )


# Rules on values, left to the domain (see types_only).
_VALUE_RULES = {
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "default",
}


def types_only(schema: Any) -> Any:
    """The schema without its rules on values, for checking arguments before the handler.

    The published schema states the values (``enum``, bounds, lengths) for clients and models;
    the server checks only the shape and leaves values to the shared parser and services, so a
    tool refuses exactly what REST refuses, with the same message (``hk`` and ``"HK,SG"`` are
    accepted by both, as REST's any-case, comma-separated spelling).
    """
    if isinstance(schema, list):
        return [types_only(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept = {}
    for key, value in schema.items():
        if key in _VALUE_RULES:
            continue
        if key == "properties":
            kept[key] = {name: types_only(sub) for name, sub in value.items()}
        else:
            kept[key] = types_only(value)
    return kept


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
        return ToolError(f"Missing required argument '{name}' of {tool.name}.", param=name)
    name = str(path[0])
    cause = explained(error) or error
    inner = list(cause.absolute_path)
    where = f"Argument '{name}'" + (f" item {inner[1]}" if len(inner) > 1 else "")
    if cause.validator in ("type", "anyOf"):
        return ToolError(
            f"{where} of {tool.name} must be {wanted(cause.schema)}, not {a_type(cause.instance)}.",
            param=name,
        )
    return ToolError(f"{where} of {tool.name}: {cause.message}.", param=name)


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
        content = [{"type": "text", "text": _text(structured)}]
        message = structured.get("meta", {}).get("message")
        if message:
            # Said again on its own, so a model reading the text cannot miss it.
            content.append({"type": "text", "text": message})
        return {"content": content, "structuredContent": structured, "isError": False}


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


def _list_tenders_arguments() -> dict:
    schema = embedded_schema(QUERY)
    for annotation in ("title", "description"):
        schema.pop(annotation)
    limit = schema["properties"]["limit"]
    limit["default"] = TOOL.default_limit
    limit["description"] = (
        f"Rows per page, 1 to {limit['maximum']} (default {TOOL.default_limit}); "
        "more is refused, not clamped. Follow meta.next_cursor rather than asking for more."
    )
    return schema


_ANNOTATIONS = {"title", "description", "examples"}


def without_annotations(schema: Any) -> Any:
    """A schema without its prose: what a client needs to check a result. Output schemas are
    sent so, as ``tools/list`` is read by models on every session and the prose is in the
    published file (and the arguments' descriptions say what the values mean)."""
    if isinstance(schema, list):
        return [without_annotations(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: (
            {name: without_annotations(sub) for name, sub in value.items()}
            if key == "properties"
            else without_annotations(value)
        )
        for key, value in schema.items()
        if key not in _ANNOTATIONS
    }


def output_schema(name: str) -> dict:
    """A published schema as a tool's output schema."""
    return without_annotations(embedded_schema(name))


LIST_ENVELOPE = output_schema(contract.PAGE)
LIST_TENDERS_ARGUMENTS = _list_tenders_arguments()
_QUERY = LIST_TENDERS_ARGUMENTS["properties"]
LANE = output_schema(contract.LANE)
ROW_ID_PATTERN = LIST_ENVELOPE["properties"]["data"]["items"]["oneOf"][0]["properties"][
    "asaptic_id"
]["pattern"]

AT_ID = {
    "description": "Listing id: the asaptic_id of a row from list_tenders "
    "(AT-, or AT-TEST- for synthetic rows, then 10 characters).",
    "type": "string",
    "pattern": ROW_ID_PATTERN,
}
LANG = _QUERY["lang"]


def _form_arguments(form, extra: dict | None = None) -> dict:
    """Tool arguments from an intake form's JSON Schema: the intake service is the one
    validator of these fields (for POST /rfq as well), so its messages are the ones a model
    sees."""
    schema = form.json_schema()
    return _arguments({**schema["properties"], **(extra or {})}, tuple(schema["required"]))


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
            "Open public-procurement opportunities from this week's sanitized feed (seven "
            "markets; summaries in English, Simplified and Traditional Chinese). Cheap path: "
            "give lang (en, zh or zht) for one language, about a third of the size; narrow "
            "with market, category, closing_bucket, value_band, new or lead_ok (values and "
            "counts from tender_facets) or q (text search; its argument says how words and "
            f'"phrases" match). Pages hold {TOOL.default_limit} rows by default: pass '
            "meta.next_cursor back as cursor with the same filters until it is null. After "
            "snapshot_changed, start again without cursor. Rows never carry buyer names, "
            "references, exact deadlines or amounts."
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
            "One listing of the current issue by its asaptic_id (from list_tenders); give "
            "lang for one language. An id that is not in the current issue answers not_found."
        ),
        input_schema=_arguments({"at_id": AT_ID, "lang": LANG}, ("at_id",)),
        output_schema=output_schema(contract.ONE),
        handler=_get_tender,
        annotations=READ_ONLY,
    ),
    Tool(
        name="tender_facets",
        title="Tender vocabulary and counts",
        description=(
            "Every value the list_tenders filters accept (markets, categories with slug and "
            "names, closing buckets, value bands) with its row count in the current issue, "
            "and in meta the feed's state: status (ok or degraded), feed_fresh, generated, "
            "rows_total, withheld. Call it first to choose filters that match rows."
        ),
        input_schema=_arguments({}),
        output_schema=output_schema(contract.FACETS),
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
        output_schema=_envelope(
            {
                "description": "The spec-coded detail (approved counterparties only).",
                "type": "object",
            }
        ),
        handler=_get_spec_coded,
        annotations=READ_ONLY,
    ),
    Tool(
        name="request_tender_access",
        title="Request gated access",
        description=(
            "Ask for access to the gated spec-coded detail, for one listing (at_id) or in "
            "general. Staff answer within 4 hours with a reference and what happens next. "
            "Send it only when the user wants access and has given these details."
        ),
        input_schema=_form_arguments(ACCESS_REQUEST_FORM),
        output_schema=output_schema(contract.ACCESS_RECEIPT),
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
                    "minLength": 1,
                    "maxLength": 255,
                },
            },
        ),
        output_schema=output_schema(contract.RFQ_RECEIPT),
        handler=_submit_rfq,
        annotations=WRITES,
    ),
    Tool(
        name="list_sourcing_lanes",
        title="List sourcing lanes",
        description=(
            "The sourcing lanes on offer: what each sources, the markets it serves, its "
            "compliance coverage and a page about it; optionally only those serving one market."
        ),
        input_schema=_arguments(
            {
                "market": {
                    "description": "Only lanes serving this market code.",
                    "type": "string",
                    "minLength": 2,
                    "maxLength": 2,
                }
            }
        ),
        output_schema=_envelope(
            {"type": "array", "items": LANE},
            returned={"type": "integer", "minimum": 0},
            market={"anyOf": [{"type": "string"}, {"type": "null"}]},
        ),
        handler=_list_sourcing_lanes,
        annotations=READ_ONLY,
    ),
    Tool(
        name="get_lane_capability",
        title="Get one sourcing lane",
        description="One sourcing lane by its id (the id field of list_sourcing_lanes).",
        input_schema=_arguments(
            {
                "lane_id": {
                    "description": "Lane id from list_sourcing_lanes.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 64,
                }
            },
            ("lane_id",),
        ),
        output_schema=_envelope(LANE),
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
        output_schema=_envelope(output_schema(contract.ENGAGEMENT)),
        handler=_get_engagement,
        annotations=READ_ONLY,
    ),
)

REGISTRY = ToolRegistry(TOOLS)

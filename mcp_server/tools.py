"""The nine tools of the MCP server: their descriptions, schemas and handlers.

Each handler is a few lines over ``domain`` (the one door to the selectors and services REST
calls); the machinery that checks arguments, calls a handler and encodes its result is
``registry``.
"""

from typing import Any

from rfq.validation import ACCESS_REQUEST_FORM, RFQ_FORM
from tenders import contract
from tenders.contract import QUERY, embedded_schema
from tenders.filters import TOOL

from . import domain
from .registry import Tool, ToolRegistry

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


def _list_tenders(arguments: dict) -> Any:
    return domain.list_tenders(rest_query(arguments))


def _get_tender(arguments: dict) -> Any:
    query = rest_query({k: v for k, v in arguments.items() if k != "at_id"})
    return domain.get_tender(arguments["at_id"], query)


def _tender_facets(arguments: dict) -> Any:
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
        per_snapshot=True,
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
        per_snapshot=True,
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

REGISTRY = ToolRegistry(TOOLS, memo=domain)

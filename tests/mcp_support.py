"""Shared by the MCP tests: message builders, a small test-only tool registry, and the list of
tools whose domain functions are not on this branch yet."""

import json

from core.errors import ApiError
from mcp_server.protocol import McpProtocol, ServerInfo
from mcp_server.registry import Tool, ToolError, ToolRegistry

TOOL_NAMES = [
    "list_tenders",
    "get_tender",
    "tender_facets",
    "get_spec_coded",
    "request_tender_access",
    "submit_rfq",
    "list_sourcing_lanes",
    "get_lane_capability",
    "get_engagement",
]

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
SERVER_INFO = ServerInfo(name="test-server", title="Test", version="9.9", instructions="Be kind.")


def body(method: str, params: dict | None = None, id: int | str | None = 1) -> bytes:
    message = {"jsonrpc": "2.0", "method": method}
    if id is not None:
        message["id"] = id
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def modern(method: str, params: dict | None = None, id: int | str = 1) -> tuple[bytes, dict]:
    """A 2026-07-28 request: the _meta envelope and the headers that mirror it."""
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if method == "tools/call":
        headers["Mcp-Name"] = (params or {}).get("name", "")
    return body(method, {**(params or {}), "_meta": META}, id), headers


def _echo(arguments: dict) -> dict:
    text = arguments["text"]
    if text == "fail":
        raise ToolError("Argument 'text' must not be fail.", param="text")
    if text == "gated":
        raise ApiError(403, "SPEC_CODED_GATED", "Gated.", extra={"access_url": "https://x/a"})
    if text == "boom":
        raise RuntimeError("a bug")
    return {"text": text.upper() if arguments.get("upper") else text}


ECHO = Tool(
    name="echo",
    title="Echo",
    description="Says text back.",
    input_schema={
        "type": "object",
        "additionalProperties": False,
        "required": ["text"],
        "properties": {
            "text": {"type": "string"},
            "upper": {"type": "boolean"},
            "tags": {"type": ["string", "array"], "items": {"type": "string"}},
            "count": {"type": "integer", "minimum": 1},
        },
    },
    output_schema={
        "type": "object",
        "additionalProperties": False,
        "required": ["text"],
        "properties": {"text": {"type": "string"}},
    },
    handler=_echo,
    annotations={"readOnlyHint": True},
)

TEST_REGISTRY = ToolRegistry([ECHO])


def make_protocol() -> McpProtocol:
    return McpProtocol(SERVER_INFO, TEST_REGISTRY)


# --- the task every kind of client completes ---------------------------------------------------
# "Find three HK medical tenders closing within two weeks and fetch one": the official SDK client
# (structured content), the MCP Inspector's command line and a client that reads only the text
# content each do it against the running server.

TASK_LIST = {"market": "HK", "closing_bucket": "le_2w", "limit": 3}


def publish_task_feed(t0) -> set[str]:
    """A published issue where four rows answer the task and six come close; returns the ids
    of the four."""
    from datetime import timedelta

    from tenders import publication
    from tests.factories import SourceTenderFactory, category

    medical = category("medical-supplies")
    soon, later = t0 + timedelta(days=5), t0 + timedelta(days=40)
    wanted = [SourceTenderFactory(market="HK", category=medical, deadline=soon) for _ in range(4)]
    SourceTenderFactory(market="HK", category=medical, deadline=later)
    SourceTenderFactory(market="HK", category=medical, deadline=later)
    SourceTenderFactory(market="HK", deadline=soon)  # IT hardware
    SourceTenderFactory(market="HK", deadline=soon)
    SourceTenderFactory(market="SG", category=medical, deadline=soon)
    SourceTenderFactory(market="SG", category=medical, deadline=soon)
    publication.publish_issue(now=t0)
    return {record.listing_id for record in wanted}


def medical_slug(facets_text: str) -> str:
    """The slug of the medical category, read from the text of tender_facets as a model would:
    its category line lists ``slug (name) count``."""
    import re

    line = next(line for line in facets_text.splitlines() if line.startswith("category"))
    return re.search(r"([a-z-]+) \(Medical[^)]*\)", line)[1]


def ids_in(page_text: str) -> list[str]:
    """The listing ids of a list_tenders text: the first column of each row line."""
    return [line.split(" | ")[0] for line in page_text.splitlines() if line.startswith("AT-")]

"""Shared by the MCP tests: message builders, a small test-only tool registry, and the list of
tools whose domain functions are not on this branch yet."""

import json

from config.errors import ApiError
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

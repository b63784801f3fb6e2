"""The tool server's identity and its discovery documents (pure; no request objects)."""

from functools import cache
from importlib.metadata import PackageNotFoundError, version

from .protocol import SUPPORTED_VERSIONS, McpProtocol, ServerInfo
from .registry import ToolRegistry
from .tools import REGISTRY

INSTRUCTIONS = (
    "Public tender feed: a keyless, sanitized, weekly listing of public-procurement "
    "opportunities in seven markets (HK, MO, SG, GB, EU, AU, CA), with summaries in English, "
    "Simplified and Traditional Chinese, plus sourcing lanes and a request-for-quote intake. "
    "Start with tender_facets for the filter vocabulary, then list_tenders (ten rows a page, in "
    "English unless lang is zh or zht; the text is one row a line); follow "
    "meta.next_cursor with the same filters to page, and restart without a cursor after "
    "snapshot_changed. Rows never name buyers, references, exact deadlines or amounts; "
    "field-level detail is gated (get_spec_coded explains access, request_tender_access asks "
    "for it). submit_rfq and request_tender_access store what you send: call them only with the "
    "user's consent and contact details. A failed call explains itself in error.code, "
    "error.message and error.param."
)


def _package_version() -> str:
    try:
        return version("tender-feed")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "0"


@cache
def server_info() -> ServerInfo:
    return ServerInfo(
        name="tender-feed",
        title="Public tender feed",
        version=_package_version(),
        instructions=INSTRUCTIONS,
    )


@cache
def protocol() -> McpProtocol:
    return McpProtocol(server_info(), REGISTRY)


def manifest(endpoint: str, registry: ToolRegistry = REGISTRY) -> dict:
    """What ``GET /mcp`` and ``/.well-known/mcp.json`` answer: enough to configure a client
    without connecting (name, endpoint, transport, protocol revisions, tool names)."""
    info = server_info()
    return {
        "name": info.name,
        "title": info.title,
        "version": info.version,
        "description": INSTRUCTIONS,
        "endpoint": endpoint,
        "transport": "streamable-http",
        "remotes": [{"type": "streamable-http", "url": endpoint}],
        "protocolVersions": list(SUPPORTED_VERSIONS),
        "capabilities": {"tools": {"listChanged": False}},
        "authentication": {"required": False},
        "tools": registry.names(),
    }

"""JSON-RPC 2.0 dispatch for the MCP tool server: pure functions over a body and its headers.

The view hands over the raw POST body and the headers MCP defines; ``McpProtocol.handle`` answers
with an HTTP status and a JSON-RPC body, or no body for a notification (202). Nothing here
knows Django, so every rule is tested with plain values.

Two eras of MCP share the endpoint (a "dual-era" server in the words of revision 2026-07-28):

- the handshake revisions 2025-06-18 and 2025-11-25: ``initialize`` negotiates the version and
  the client sends it back in ``MCP-Protocol-Version`` on every later request;
- the stateless revision 2026-07-28: no handshake; every request carries its version and client
  capabilities in ``params._meta`` and mirrors version, method and tool name into the
  ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` headers; ``server/discover``
  describes the server.

We keep no session in either era: the answer to a request depends on that request only, so any
number of server processes can serve one client and no ``Mcp-Session-Id`` is ever issued.
"""

import base64
import binascii
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.errors import ApiError
from core.jsonbody import parse_json

log = logging.getLogger(__name__)

# Newest first: the order of every "supported" list we publish.
MODERN_VERSIONS = ("2026-07-28",)
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18")
SUPPORTED_VERSIONS = (*MODERN_VERSIONS, *HANDSHAKE_VERSIONS)
LATEST_HANDSHAKE_VERSION = HANDSHAKE_VERSIONS[0]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# Codes of revision 2026-07-28 (basic/index "Error Codes"); also used for the handshake
# revisions, where they carry the same meaning and no other code exists for it.
HEADER_MISMATCH = -32020
UNSUPPORTED_PROTOCOL_VERSION = -32022

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

VERSION_HEADER = "mcp-protocol-version"
METHOD_HEADER = "mcp-method"
NAME_HEADER = "mcp-name"

# The tool list changes only with a deployment; an hour of client-side caching is safe.
TOOLS_TTL_MS = 3_600_000

HANDSHAKE_METHODS = ("initialize", "ping", "tools/list", "tools/call")
MODERN_METHODS = ("server/discover", "tools/list", "tools/call")


class RpcError(Exception):
    """A JSON-RPC error answer: code, message and optional data."""

    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def error(self) -> dict:
        error = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


@dataclass(frozen=True)
class Reply:
    """What the view sends: ``body`` None means 202 Accepted with an empty body."""

    status: int
    body: dict | None


@dataclass(frozen=True)
class ServerInfo:
    name: str
    title: str
    version: str
    instructions: str

    def implementation(self) -> dict:
        return {"name": self.name, "title": self.title, "version": self.version}


class ToolRegistryLike(Protocol):
    """What the dispatcher needs from a tool registry (``mcp_server.registry.ToolRegistry``)."""

    def definitions(self) -> list[dict]: ...

    def has(self, name: str) -> bool: ...

    def call(self, name: str, arguments: dict) -> dict: ...


@dataclass(frozen=True)
class Message:
    method: str
    params: dict
    id: str | int | None
    is_notification: bool


def error_response(request_id: str | int | None, error: RpcError) -> dict:
    """A JSON-RPC error response. ``id`` is null when the request's id could not be read,
    as JSON-RPC 2.0 requires (and the SDK's parser expects the member to be present)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": error.error()}


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _valid_id(value: Any) -> bool:
    # MCP: "a string or integer ID", never null; a JSON boolean is not an integer.
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


@dataclass
class _Context:
    """What an error answer needs to know about the message it answers."""

    request_id: str | int | None = None
    notification: bool = False
    modern: bool = False


def parse_message(body: bytes, context: _Context | None = None) -> Message:
    """One JSON-RPC request or notification from a POST body, or an ``RpcError``.

    ``context`` receives the request id as soon as it is readable, so an error about a later
    member still answers with the id the client sent.
    """
    context = context if context is not None else _Context()
    try:
        value = parse_json(body)  # the one strict reader of POST bodies (also POST /rfq)
    except ApiError as exc:
        raise RpcError(PARSE_ERROR, f"Parse error: {exc.message}") from None
    if isinstance(value, list):
        raise RpcError(
            INVALID_REQUEST,
            "Invalid Request: batches are not supported; send one JSON-RPC message per POST.",
        )
    if not isinstance(value, dict):
        raise RpcError(INVALID_REQUEST, "Invalid Request: the body must be a JSON-RPC object.")

    has_id = "id" in value
    if has_id and _valid_id(value["id"]):
        context.request_id = value["id"]
    context.notification = not has_id
    if value.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0".')
    if "method" not in value:
        if "result" in value or "error" in value:
            raise RpcError(
                INVALID_REQUEST,
                "Invalid Request: this server sends no requests, so it takes no responses.",
            )
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "method" is required.')
    method = value["method"]
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string.')
    if has_id and not _valid_id(value["id"]):
        raise RpcError(
            INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer, not null.'
        )
    params = value.get("params", {})
    if isinstance(params, list):
        raise RpcError(
            INVALID_PARAMS, 'Invalid params: "params" must be an object (MCP names its params).'
        )
    if not isinstance(params, dict):
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "params" must be an object.')
    return Message(
        method=method,
        params=params,
        id=value["id"] if has_id else None,
        is_notification=not has_id,
    )


def decode_header_value(value: str) -> str:
    """A header value as sent, or decoded from the ``=?base64?…?=`` form of 2026-07-28."""
    if value.startswith("=?base64?") and value.endswith("?=") and len(value) >= 11:
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise RpcError(
                HEADER_MISMATCH, "Header mismatch: a base64-encoded header value is malformed."
            ) from None
    return value


def http_status(code: int, context: _Context) -> int:
    """The HTTP status of an error answer.

    Errors about the message itself (it is not JSON, not one request, or names an unsupported
    protocol version or contradicts its headers) are 400 in every era. A notification gets no
    JSON-RPC answer, so any refusal of one is 400. Answers to a well-formed 2026-07-28 request
    follow that revision's transport: -32601 is 404, -32602 is 400. Answers to a well-formed
    request of a handshake revision are ordinary JSON-RPC responses (200), which is what
    clients of those revisions expect for an error from a method.
    """
    if context.notification or code in (
        PARSE_ERROR,
        INVALID_REQUEST,
        HEADER_MISMATCH,
        UNSUPPORTED_PROTOCOL_VERSION,
    ):
        return 400
    if context.modern:
        return {METHOD_NOT_FOUND: 404, INVALID_PARAMS: 400}.get(code, 200)
    return 200


@dataclass
class McpProtocol:
    """The dispatcher: server identity plus a tool registry."""

    info: ServerInfo
    tools: ToolRegistryLike
    _handlers: dict[str, Callable[[dict], dict]] = field(init=False, repr=False)

    def __post_init__(self):
        self._handlers = {
            "initialize": self._initialize,
            "ping": self._ping,
            "server/discover": self._discover,
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
        }

    # --- entry point -------------------------------------------------------------------------

    def handle(self, body: bytes, headers: Mapping[str, str]) -> Reply:
        """Answer one POST. Never raises: an unexpected failure is logged and answered -32603."""
        headers = {name.lower(): value.strip() for name, value in headers.items()}
        context = _Context()
        try:
            message = parse_message(body, context)
            self._check_version_header(headers)
            if message.is_notification:
                # Every notification is accepted and ignored: nothing a client can tell us
                # changes how we answer later requests (we keep no session).
                return Reply(202, None)
            context.modern = self._is_modern(message, headers)
            if context.modern:
                self._check_modern_envelope(message, headers)
            result = self._dispatch(message, modern=context.modern)
            return Reply(200, {"jsonrpc": "2.0", "id": message.id, "result": result})
        except RpcError as exc:
            return Reply(http_status(exc.code, context), error_response(context.request_id, exc))
        except Exception:
            log.exception("MCP request failed")
            error = RpcError(INTERNAL_ERROR, "Internal error: the server failed; try again later.")
            return Reply(
                http_status(INTERNAL_ERROR, context), error_response(context.request_id, error)
            )

    # --- header and envelope rules -------------------------------------------------------------

    @staticmethod
    def _check_version_header(headers: Mapping[str, str]) -> None:
        """A present but unsupported ``MCP-Protocol-Version`` is refused in every era.

        An absent header is allowed: the handshake revisions tell a server without other
        knowledge of the version to assume 2025-03-26, whose requests we answer exactly like
        those of 2025-06-18 (the optional members we add are ignored by such clients).
        """
        version = headers.get(VERSION_HEADER)
        if version is not None and version not in SUPPORTED_VERSIONS:
            raise RpcError(
                UNSUPPORTED_PROTOCOL_VERSION,
                f"Unsupported protocol version {_clip(version)!r}; "
                f"supported: {', '.join(SUPPORTED_VERSIONS)}.",
                {"supported": list(SUPPORTED_VERSIONS), "requested": version},
            )

    @staticmethod
    def _is_modern(message: Message, headers: Mapping[str, str]) -> bool:
        meta = message.params.get("_meta")
        return (
            headers.get(VERSION_HEADER) in MODERN_VERSIONS
            or message.method == "server/discover"
            or (isinstance(meta, dict) and META_PROTOCOL_VERSION in meta)
        )

    @staticmethod
    def _check_modern_envelope(message: Message, headers: Mapping[str, str]) -> None:
        """The per-request envelope of 2026-07-28 and the headers that mirror it."""
        meta = message.params.get("_meta")
        required = (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES)
        if not isinstance(meta, dict):
            raise RpcError(
                INVALID_PARAMS,
                f"Invalid params: protocol revision {MODERN_VERSIONS[0]} needs params._meta "
                f"with {required[0]!r} and {required[1]!r} on every request, and the same "
                "version in the MCP-Protocol-Version header.",
            )
        missing = [key for key in required if key not in meta]
        if missing:
            raise RpcError(
                INVALID_PARAMS,
                f"Invalid params: params._meta is missing {', '.join(map(repr, missing))}.",
            )
        version = meta[META_PROTOCOL_VERSION]
        if not isinstance(version, str):
            raise RpcError(
                INVALID_PARAMS, f"Invalid params: params._meta[{required[0]!r}] must be a string."
            )
        header = headers.get(VERSION_HEADER)
        if header is None:
            raise RpcError(
                HEADER_MISMATCH,
                "Header mismatch: the MCP-Protocol-Version header is required and must equal "
                f"params._meta[{required[0]!r}].",
            )
        if header != version:
            raise RpcError(
                HEADER_MISMATCH,
                f"Header mismatch: MCP-Protocol-Version {_clip(header)!r} does not match "
                f"params._meta version {_clip(version)!r}.",
            )
        method_header = headers.get(METHOD_HEADER)
        if method_header != message.method:
            raise RpcError(
                HEADER_MISMATCH,
                "Header mismatch: the Mcp-Method header is required and must equal the "
                f"method {_clip(message.method)!r}.",
            )
        name = message.params.get("name")
        if message.method == "tools/call" and isinstance(name, str):
            sent = headers.get(NAME_HEADER)
            if sent is None or decode_header_value(sent) != name:
                raise RpcError(
                    HEADER_MISMATCH,
                    "Header mismatch: the Mcp-Name header is required and must equal the tool "
                    f"name {_clip(name)!r}.",
                )
        if version not in MODERN_VERSIONS:
            raise RpcError(
                UNSUPPORTED_PROTOCOL_VERSION,
                f"Unsupported protocol version {_clip(version)!r} for a per-request envelope: "
                f"{version} uses the initialize handshake; send {MODERN_VERSIONS[0]} instead.",
                {"supported": list(SUPPORTED_VERSIONS), "requested": version},
            )

    # --- methods -------------------------------------------------------------------------------

    def _dispatch(self, message: Message, *, modern: bool) -> dict:
        methods = MODERN_METHODS if modern else HANDSHAKE_METHODS
        if message.method not in methods:
            if modern and message.method in HANDSHAKE_METHODS:
                detail = (
                    f"{message.method!r} is not part of the stateless revision "
                    f"{MODERN_VERSIONS[0]}, which has no handshake"
                )
            else:
                detail = f"{_clip(message.method)!r} is not a method of this server"
            raise RpcError(
                METHOD_NOT_FOUND,
                f"Method not found: {detail}. Methods: {', '.join(methods)}.",
            )
        result = self._handlers[message.method](message.params)
        if not modern:
            return result
        # 2026-07-28: every result says its type and SHOULD name the server; list and
        # discovery results carry caching hints (server/utilities/caching).
        cache = (
            {"ttlMs": TOOLS_TTL_MS, "cacheScope": "public"}
            if message.method in ("server/discover", "tools/list")
            else {}
        )
        head = {"resultType": "complete"}
        tail = {**cache, "_meta": {META_SERVER_INFO: self.info.implementation()}}
        return {**head, **result, **tail}

    def _initialize(self, params: dict) -> dict:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise RpcError(
                INVALID_PARAMS,
                'Invalid params: "protocolVersion" is required and must be a string.',
            )
        for member in ("capabilities", "clientInfo"):
            if member in params and not isinstance(params[member], dict):
                raise RpcError(INVALID_PARAMS, f'Invalid params: "{member}" must be an object.')
        # Echo a handshake revision we speak, else offer our newest one (lifecycle, "Version
        # Negotiation"); 2026-07-28 is never a handshake answer, it has no initialize.
        version = requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE_VERSION
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": self.info.implementation(),
            "instructions": self.info.instructions,
        }

    @staticmethod
    def _ping(params: dict) -> dict:
        return {}

    def _discover(self, params: dict) -> dict:
        return {
            "supportedVersions": list(SUPPORTED_VERSIONS),
            "capabilities": {"tools": {"listChanged": False}},
            "instructions": self.info.instructions,
        }

    def _tools_list(self, params: dict) -> dict:
        if params.get("cursor") is not None:
            # All tools fit on one page, so no cursor was ever issued.
            raise RpcError(
                INVALID_PARAMS, "Invalid params: unknown cursor; tools/list has one page."
            )
        return {"tools": self.tools.definitions()}

    def _tools_call(self, params: dict) -> dict:
        name = params.get("name")
        if not isinstance(name, str):
            raise RpcError(
                INVALID_PARAMS, 'Invalid params: "name" (the tool name) is required, a string.'
            )
        if not self.tools.has(name):
            raise RpcError(
                INVALID_PARAMS,
                f"Unknown tool: {_clip(name)!r}. Call tools/list for the tools of this server.",
            )
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, 'Invalid params: "arguments" must be an object.')
        return self.tools.call(name, arguments)

"""The JSON-RPC dispatcher, without Django: every method, error code and header rule."""

import base64
import json
import logging

import pytest
from mcp_types import methods as wire

from mcp_server.protocol import Reply
from mcp_server.registry import Tool, ToolRegistry
from mcp_server.server import protocol as real_protocol
from tests.mcp_support import ECHO, META, MODERN, TOOL_NAMES, body, make_protocol, modern

SUPPORTED = ["2026-07-28", "2025-11-25", "2025-06-18"]
SERVER = {"name": "test-server", "title": "Test", "version": "9.9"}
SERVER_META = {"io.modelcontextprotocol/serverInfo": SERVER}


def handle(raw: bytes, headers: dict | None = None) -> Reply:
    return make_protocol().handle(raw, headers or {})


def error(code: int, message: str, id=1, data=None) -> dict:
    err = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": id, "error": err}


def result(value: dict, id=1) -> dict:
    return {"jsonrpc": "2.0", "id": id, "result": value}


def text_result(value: dict, *, is_error: bool) -> dict:
    out = {"content": [{"type": "text", "text": json.dumps(value, separators=(",", ":"))}]}
    if not is_error:
        out["structuredContent"] = value
    out["isError"] = is_error
    return out


# --- parse errors and invalid requests (-32700, -32600) ------------------------------------------


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            b"{",
            "Parse error: The body is not valid JSON: Expecting property name enclosed in "
            "double quotes at line 1 column 2.",
        ),
        (b"", "Parse error: The body is empty. Send a JSON object."),
        (b"\xff\xfe", "Parse error: The body is not valid UTF-8 (byte 0)."),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": NaN}',
            "Parse error: The body is not valid JSON: NaN is not a JSON number.",
        ),
        # Strict like POST /rfq (one reader): a repeated member is refused, never "last wins".
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "method": "tools/list"}',
            'Parse error: The body repeats the member "method". Send each field once.',
        ),
    ],
)
def test_a_body_that_is_not_json_is_a_parse_error(raw, message):
    assert handle(raw) == Reply(400, error(-32700, message, None))


@pytest.mark.parametrize("raw", [b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', b"[]"])
def test_a_batch_is_an_invalid_request(raw):
    assert handle(raw) == Reply(
        400,
        error(
            -32600,
            "Invalid Request: batches are not supported; send one JSON-RPC message per POST.",
            None,
        ),
    )


@pytest.mark.parametrize(
    ("message", "reply_id", "text"),
    [
        ("ping", None, "Invalid Request: the body must be a JSON-RPC object."),
        ({"id": 7, "method": "ping"}, 7, 'Invalid Request: "jsonrpc" must be "2.0".'),
        (
            {"jsonrpc": "1.0", "id": "a", "method": "ping"},
            "a",
            'Invalid Request: "jsonrpc" must be "2.0".',
        ),
        ({"jsonrpc": "2.0", "id": 3}, 3, 'Invalid Request: "method" is required.'),
        (
            {"jsonrpc": "2.0", "id": 3, "method": 5},
            3,
            'Invalid Request: "method" must be a non-empty string.',
        ),
        (
            {"jsonrpc": "2.0", "id": 3, "method": ""},
            3,
            'Invalid Request: "method" must be a non-empty string.',
        ),
        (
            {"jsonrpc": "2.0", "id": None, "method": "ping"},
            None,
            'Invalid Request: "id" must be a string or an integer, not null.',
        ),
        (
            {"jsonrpc": "2.0", "id": True, "method": "ping"},
            None,
            'Invalid Request: "id" must be a string or an integer, not null.',
        ),
        (
            {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
            None,
            'Invalid Request: "id" must be a string or an integer, not null.',
        ),
        (
            {"jsonrpc": "2.0", "id": 4, "method": "ping", "params": "x"},
            4,
            'Invalid Request: "params" must be an object.',
        ),
        (
            {"jsonrpc": "2.0", "id": 4, "result": {}},
            4,
            "Invalid Request: this server sends no requests, so it takes no responses.",
        ),
    ],
)
def test_malformed_messages_are_invalid_requests(message, reply_id, text):
    assert handle(json.dumps(message).encode()) == Reply(400, error(-32600, text, reply_id))


def test_positional_params_are_invalid_params():
    raw = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": [1]}).encode()
    assert handle(raw) == Reply(
        200, error(-32602, 'Invalid params: "params" must be an object (MCP names its params).', 2)
    )


# --- notifications ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "method", ["notifications/initialized", "notifications/cancelled", "notifications/anything"]
)
def test_every_notification_is_accepted_without_a_body(method):
    assert handle(body(method, {"requestId": 1}, id=None)) == Reply(202, None)
    assert handle(body(method, id=None), {"MCP-Protocol-Version": "2025-06-18"}) == Reply(202, None)
    assert handle(body(method, id=None), {"MCP-Protocol-Version": MODERN}) == Reply(202, None)


def test_a_refused_notification_is_400_with_a_null_id():
    assert handle(
        body("notifications/initialized", id=None), {"MCP-Protocol-Version": "2024-11-05"}
    ) == Reply(
        400,
        error(
            -32022,
            "Unsupported protocol version '2024-11-05'; supported: 2026-07-28, 2025-11-25, 2025-06-18.",
            None,
            data={"supported": SUPPORTED, "requested": "2024-11-05"},
        ),
    )
    raw = json.dumps({"jsonrpc": "2.0", "method": "notifications/x", "params": []}).encode()
    assert handle(raw) == Reply(
        400,
        error(-32602, 'Invalid params: "params" must be an object (MCP names its params).', None),
    )


# --- the handshake revisions --------------------------------------------------------------------


INITIALIZED = {
    "capabilities": {"tools": {"listChanged": False}},
    "serverInfo": SERVER,
    "instructions": "Be kind.",
}


@pytest.mark.parametrize(
    ("requested", "answered"),
    [
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("2025-03-26", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
    ],
)
def test_initialize_echoes_a_supported_revision_else_offers_the_latest(requested, answered):
    params = {
        "protocolVersion": requested,
        "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"},
    }
    assert handle(body("initialize", params)) == Reply(
        200, result({"protocolVersion": answered, **INITIALIZED})
    )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (None, 'Invalid params: "protocolVersion" is required and must be a string.'),
        (
            {"protocolVersion": 20250618},
            'Invalid params: "protocolVersion" is required and must be a string.',
        ),
        (
            {"protocolVersion": "2025-06-18", "capabilities": []},
            'Invalid params: "capabilities" must be an object.',
        ),
        (
            {"protocolVersion": "2025-06-18", "clientInfo": "c"},
            'Invalid params: "clientInfo" must be an object.',
        ),
    ],
)
def test_initialize_with_bad_params_is_invalid_params(params, message):
    assert handle(body("initialize", params)) == Reply(200, error(-32602, message))


def test_ping_answers_an_empty_result():
    assert handle(body("ping", id="p")) == Reply(200, result({}, "p"))


def test_tools_list_lists_the_definitions():
    assert handle(body("tools/list"), {"MCP-Protocol-Version": "2025-11-25"}) == Reply(
        200,
        result(
            {
                "tools": [
                    {
                        "name": "echo",
                        "title": "Echo",
                        "description": "Says text back.",
                        "inputSchema": ECHO.input_schema,
                        "outputSchema": ECHO.output_schema,
                        "annotations": {"readOnlyHint": True},
                    }
                ]
            }
        ),
    )


def test_tools_list_has_one_page_so_any_cursor_is_invalid():
    assert handle(body("tools/list", {"cursor": "abc"})) == Reply(
        200, error(-32602, "Invalid params: unknown cursor; tools/list has one page.")
    )


def test_tools_call_answers_structured_content_and_a_text_copy():
    reply = handle(
        body("tools/call", {"name": "echo", "arguments": {"text": "héllo", "upper": True}})
    )
    assert reply == Reply(
        200,
        result(
            {
                "content": [{"type": "text", "text": '{"text":"HÉLLO"}'}],
                "structuredContent": {"text": "HÉLLO"},
                "isError": False,
            }
        ),
    )


def test_a_result_is_one_text_copy_whatever_its_meta_holds():
    # No member of a result is repeated as a text block of its own: the text is the JSON copy.
    said = {"data": [], "meta": {"message": "Read this.", "returned": 0}}
    note = Tool(
        "note", "Note", "Says a page.", {"type": "object"}, {"type": "object"}, lambda a: said
    )
    result = ToolRegistry([note]).call("note", {})
    assert result == {
        "content": [{"type": "text", "text": json.dumps(said, separators=(",", ":"))}],
        "structuredContent": said,
        "isError": False,
    }


@pytest.mark.parametrize(
    ("arguments", "error_body"),
    [
        (
            {"text": "hi", "colour": "red"},
            {
                "code": "invalid_parameter",
                "message": "Unknown argument 'colour'; echo accepts: text, upper, tags, count.",
                "param": "colour",
            },
        ),
        (
            {},
            {
                "code": "invalid_parameter",
                "message": "Missing required argument 'text' of echo.",
                "param": "text",
            },
        ),
        (
            {"text": None},
            {
                "code": "invalid_parameter",
                "message": "Missing required argument 'text' of echo.",
                "param": "text",
            },
        ),
        (
            {"text": 5},
            {
                "code": "invalid_parameter",
                "message": "Argument 'text' of echo must be a string, not an integer.",
                "param": "text",
            },
        ),
        (
            {"text": "a", "upper": "yes"},
            {
                "code": "invalid_parameter",
                "message": "Argument 'upper' of echo must be true or false, not a string.",
                "param": "upper",
            },
        ),
        (
            {"text": "a", "tags": {"a": 1}},
            {
                "code": "invalid_parameter",
                "message": "Argument 'tags' of echo must be a string or an array of strings, not an "
                "object.",
                "param": "tags",
            },
        ),
        (
            {"text": "a", "tags": ["x", 2]},
            {
                "code": "invalid_parameter",
                "message": "Argument 'tags' item 1 of echo must be a string, not an integer.",
                "param": "tags",
            },
        ),
        (
            {"text": "fail"},
            {
                "code": "invalid_parameter",
                "message": "Argument 'text' must not be fail.",
                "param": "text",
            },
        ),
    ],
)
def test_bad_arguments_are_tool_errors_naming_the_argument(arguments, error_body):
    reply = handle(body("tools/call", {"name": "echo", "arguments": arguments}))
    assert reply == Reply(200, result(text_result({"error": error_body}, is_error=True)))


def test_rules_on_values_are_the_handlers_not_the_schemas():
    # minimum 1 is published for clients; the domain judges values, with REST's messages.
    reply = handle(body("tools/call", {"name": "echo", "arguments": {"text": "a", "count": 0}}))
    assert reply == Reply(200, result(text_result({"text": "a"}, is_error=False)))


def test_a_null_optional_argument_counts_as_absent():
    reply = handle(body("tools/call", {"name": "echo", "arguments": {"text": "a", "upper": None}}))
    assert reply.body["result"]["structuredContent"] == {"text": "a"}


def test_a_domain_error_keeps_its_code_and_extra_members():
    reply = handle(body("tools/call", {"name": "echo", "arguments": {"text": "gated"}}))
    assert reply == Reply(
        200,
        result(
            text_result(
                {
                    "error": {"code": "SPEC_CODED_GATED", "message": "Gated."},
                    "access_url": "https://x/a",
                },
                is_error=True,
            )
        ),
    )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"arguments": {}}, 'Invalid params: "name" (the tool name) is required, a string.'),
        ({"name": 3}, 'Invalid params: "name" (the tool name) is required, a string.'),
        ({"name": "nope"}, "Unknown tool: 'nope'. Call tools/list for the tools of this server."),
        ({"name": "echo", "arguments": ["a"]}, 'Invalid params: "arguments" must be an object.'),
    ],
)
def test_tools_call_protocol_errors_are_invalid_params(params, message):
    assert handle(body("tools/call", params)) == Reply(200, error(-32602, message))


def test_missing_arguments_are_an_empty_object():
    reply = handle(body("tools/call", {"name": "echo", "arguments": None}))
    assert json.loads(reply.body["result"]["content"][0]["text"])["error"]["param"] == "text"


def test_a_failing_handler_is_an_internal_error_and_is_logged(caplog):
    with caplog.at_level(logging.ERROR, logger="mcp_server.protocol"):
        reply = handle(body("tools/call", {"name": "echo", "arguments": {"text": "boom"}}, id=9))
    assert reply == Reply(
        200, error(-32603, "Internal error: the server failed; try again later.", 9)
    )
    assert "MCP request failed" in caplog.text and "a bug" in caplog.text


def test_an_unknown_method_is_method_not_found():
    assert handle(body("resources/list")) == Reply(
        200,
        error(
            -32601,
            "Method not found: 'resources/list' is not a method of this server. "
            "Methods: initialize, ping, tools/list, tools/call.",
        ),
    )


# --- MCP-Protocol-Version on the handshake revisions -------------------------------------------


@pytest.mark.parametrize("value", ["2025-03-26", "2024-11-05", "", "latest"])
def test_an_unsupported_protocol_version_header_is_400(value):
    assert handle(body("tools/list"), {"MCP-Protocol-Version": value}) == Reply(
        400,
        error(
            -32022,
            f"Unsupported protocol version {value!r}; supported: 2026-07-28, 2025-11-25, 2025-06-18.",
            1,
            {"supported": SUPPORTED, "requested": value},
        ),
    )


@pytest.mark.parametrize(
    "headers", [{}, {"MCP-Protocol-Version": "2025-06-18"}, {"mcp-protocol-version": "2025-11-25"}]
)
def test_an_absent_or_supported_header_is_served(headers):
    assert handle(body("ping"), headers) == Reply(200, result({}))


# --- the stateless revision 2026-07-28 ----------------------------------------------------------


def test_server_discover_describes_the_server():
    assert handle(*modern("server/discover", id="d")) == Reply(
        200,
        result(
            {
                "resultType": "complete",
                "supportedVersions": SUPPORTED,
                "capabilities": {"tools": {"listChanged": False}},
                "instructions": "Be kind.",
                "ttlMs": 3600000,
                "cacheScope": "public",
                "_meta": SERVER_META,
            },
            "d",
        ),
    )


def test_modern_tools_list_and_call_carry_result_type_and_server_info():
    listed = handle(*modern("tools/list"))
    assert listed.status == 200
    assert listed.body["result"] == {
        "resultType": "complete",
        "tools": [ECHO.definition()],
        "ttlMs": 3600000,
        "cacheScope": "public",
        "_meta": SERVER_META,
    }
    called = handle(*modern("tools/call", {"name": "echo", "arguments": {"text": "x"}}))
    assert called == Reply(
        200,
        result(
            {
                "resultType": "complete",
                "content": [{"type": "text", "text": '{"text":"x"}'}],
                "structuredContent": {"text": "x"},
                "isError": False,
                "_meta": SERVER_META,
            }
        ),
    )
    failed = handle(*modern("tools/call", {"name": "echo", "arguments": {}}))
    assert (failed.status, failed.body["result"]["isError"]) == (200, True)


@pytest.mark.parametrize(
    ("method", "detail"),
    [
        ("ping", "'ping' is not part of the stateless revision 2026-07-28, which has no handshake"),
        (
            "initialize",
            "'initialize' is not part of the stateless revision 2026-07-28, which has no handshake",
        ),
        ("prompts/list", "'prompts/list' is not a method of this server"),
    ],
)
def test_modern_unknown_methods_are_404(method, detail):
    assert handle(*modern(method)) == Reply(
        404,
        error(
            -32601, f"Method not found: {detail}. Methods: server/discover, tools/list, tools/call."
        ),
    )


def test_modern_unknown_tool_is_400():
    assert handle(*modern("tools/call", {"name": "nope"})) == Reply(
        400, error(-32602, "Unknown tool: 'nope'. Call tools/list for the tools of this server.")
    )


ENVELOPE_NEEDED = (
    "Invalid params: protocol revision 2026-07-28 needs params._meta with "
    "'io.modelcontextprotocol/protocolVersion' and 'io.modelcontextprotocol/clientCapabilities' "
    "on every request, and the same version in the MCP-Protocol-Version header."
)


@pytest.mark.parametrize(
    ("raw", "headers", "message"),
    [
        (
            body("tools/list"),
            {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"},
            ENVELOPE_NEEDED,
        ),
        (body("server/discover"), {}, ENVELOPE_NEEDED),
        (
            body("server/discover", {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}),
            {"MCP-Protocol-Version": MODERN, "Mcp-Method": "server/discover"},
            "Invalid params: params._meta is missing 'io.modelcontextprotocol/clientCapabilities'.",
        ),
        (
            body(
                "server/discover",
                {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": 2026}},
            ),
            {"Mcp-Method": "server/discover"},
            "Invalid params: params._meta['io.modelcontextprotocol/protocolVersion'] must be a string.",
        ),
    ],
)
def test_a_modern_request_without_its_envelope_is_invalid_params(raw, headers, message):
    assert handle(raw, headers) == Reply(400, error(-32602, message))


def _with(headers: dict, **changes) -> dict:
    headers = dict(headers)
    for name, value in changes.items():
        name = name.replace("_", "-")
        if value is None:
            headers.pop(name, None)
        else:
            headers[name] = value
    return headers


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"MCP_Protocol_Version": None},
            "Header mismatch: the MCP-Protocol-Version header is required and must equal "
            "params._meta['io.modelcontextprotocol/protocolVersion'].",
        ),
        (
            {"MCP_Protocol_Version": "2025-11-25"},
            "Header mismatch: MCP-Protocol-Version '2025-11-25' does not match params._meta version '2026-07-28'.",
        ),
        (
            {"Mcp_Method": None},
            "Header mismatch: the Mcp-Method header is required and must equal the method 'tools/call'.",
        ),
        (
            {"Mcp_Method": "tools/list"},
            "Header mismatch: the Mcp-Method header is required and must equal the method 'tools/call'.",
        ),
        (
            {"Mcp_Name": None},
            "Header mismatch: the Mcp-Name header is required and must equal the tool name 'echo'.",
        ),
        (
            {"Mcp_Name": "other"},
            "Header mismatch: the Mcp-Name header is required and must equal the tool name 'echo'.",
        ),
        (
            {"Mcp_Name": "=?base64?!!?="},
            "Header mismatch: a base64-encoded header value is malformed.",
        ),
    ],
)
def test_modern_headers_must_mirror_the_body(changes, message):
    raw, headers = modern("tools/call", {"name": "echo", "arguments": {"text": "x"}})
    assert handle(raw, _with(headers, **changes)) == Reply(400, error(-32020, message))


def test_a_base64_encoded_tool_name_is_decoded_before_comparing():
    raw, headers = modern("tools/call", {"name": "echo", "arguments": {"text": "x"}})
    headers["Mcp-Name"] = "=?base64?" + base64.b64encode(b"echo").decode() + "?="
    assert handle(raw, headers).body["result"]["structuredContent"] == {"text": "x"}


def test_a_handshake_version_in_a_modern_envelope_is_unsupported():
    raw = body(
        "server/discover",
        {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "2025-11-25"}},
    )
    headers = {"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "server/discover"}
    assert handle(raw, headers) == Reply(
        400,
        error(
            -32022,
            "Unsupported protocol version '2025-11-25' for a per-request envelope: 2025-11-25 uses "
            "the initialize handshake; send 2026-07-28 instead.",
            data={"supported": SUPPORTED, "requested": "2025-11-25"},
        ),
    )


def test_an_unexpected_failure_anywhere_is_an_internal_error(monkeypatch):
    server = make_protocol()

    def broken():
        raise KeyError("x")

    monkeypatch.setattr(server.tools, "definitions", broken)
    assert server.handle(body("tools/list", id="z"), {}) == Reply(
        200, error(-32603, "Internal error: the server failed; try again later.", "z")
    )


# --- conformance with the SDK's per-revision wire models -----------------------------------------


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_handshake_results_match_the_revision_schema(version):
    server = real_protocol()
    headers = {"MCP-Protocol-Version": version}
    init = server.handle(body("initialize", {"protocolVersion": version}), {}).body["result"]
    wire.validate_server_result("initialize", version, init)
    wire.validate_server_result(
        "ping", version, server.handle(body("ping"), headers).body["result"]
    )
    listed = server.handle(body("tools/list"), headers).body["result"]
    wire.validate_server_result("tools/list", version, listed)
    assert [tool["name"] for tool in listed["tools"]] == TOOL_NAMES
    failed = server.handle(body("tools/call", {"name": "get_tender", "arguments": {}}), headers)
    wire.validate_server_result("tools/call", version, failed.body["result"])
    called = make_protocol().handle(
        body("tools/call", {"name": "echo", "arguments": {"text": "a"}}), headers
    )
    wire.validate_server_result("tools/call", version, called.body["result"])


def test_modern_results_match_the_revision_schema():
    server = real_protocol()
    for method in ("server/discover", "tools/list"):
        reply = server.handle(*modern(method))
        wire.validate_server_result(method, MODERN, reply.body["result"])
    failed = server.handle(*modern("tools/call", {"name": "get_tender", "arguments": {}}))
    wire.validate_server_result("tools/call", MODERN, failed.body["result"])
    called = make_protocol().handle(
        *modern("tools/call", {"name": "echo", "arguments": {"text": "a"}})
    )
    wire.validate_server_result("tools/call", MODERN, called.body["result"])

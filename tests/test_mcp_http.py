"""/mcp and /.well-known/mcp.json over HTTP: the rules that belong to the view."""

import json

import pytest

from mcp_server.server import INSTRUCTIONS
from tests.mcp_support import TOOL_NAMES, body, modern

INIT = body(
    "initialize",
    {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
)
BOTH = "application/json, text/event-stream"


def post(client, raw: bytes = INIT, *, content_type="application/json", **headers):
    return client.generic("POST", "/mcp", raw, content_type=content_type, headers=headers)


def rpc_error(message: str, code: int = -32600, id=None) -> dict:
    return {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}


MANIFEST = {
    "name": "tender-feed",
    "title": "Public tender feed",
    "version": "1.0.0",
    "description": INSTRUCTIONS,
    "endpoint": "http://testserver/mcp",
    "transport": "streamable-http",
    "remotes": [{"type": "streamable-http", "url": "http://testserver/mcp"}],
    "protocolVersions": ["2026-07-28", "2025-11-25", "2025-06-18"],
    "capabilities": {"tools": {"listChanged": False}},
    "authentication": {"required": False},
    "tools": TOOL_NAMES,
}


def test_a_request_is_answered_with_one_json_object_and_no_session(client):
    response = post(client, Accept=BOTH)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    assert "Mcp-Session-Id" not in response
    assert response.json()["result"]["protocolVersion"] == "2025-06-18"


def test_a_notification_is_202_with_an_empty_body(client):
    response = post(
        client,
        body("notifications/initialized", id=None),
        Accept=BOTH,
        **{"MCP-Protocol-Version": "2025-06-18"},
    )
    assert response.status_code == 202
    assert response.content == b""
    assert "Content-Type" not in response


def test_a_session_id_sent_by_a_client_is_ignored(client):
    response = post(
        client, body("ping"), **{"Mcp-Session-Id": "abc", "MCP-Protocol-Version": "2025-11-25"}
    )
    assert response.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert "Mcp-Session-Id" not in response


def test_protocol_errors_keep_their_http_status(client):
    assert post(client, b"[]").status_code == 400
    unsupported = post(client, body("ping"), **{"MCP-Protocol-Version": "2024-11-05"})
    assert unsupported.status_code == 400 and unsupported.json()["error"]["code"] == -32022
    raw, headers = modern("resources/list")
    assert post(client, raw, **headers).status_code == 404
    assert post(client, body("resources/list")).status_code == 200


JSON_PLEASE = "Send the body as JSON with the header Content-Type: application/json"


@pytest.mark.parametrize(
    "content_type, message",
    [
        ("text/plain", f"{JSON_PLEASE} (got text/plain)."),
        (
            "application/x-www-form-urlencoded",
            f"{JSON_PLEASE} (got application/x-www-form-urlencoded).",
        ),
        ("application/json; charset=latin-1", "Send the JSON body in UTF-8, not latin-1."),
        ("", f"{JSON_PLEASE} (got none)."),
    ],
)
def test_a_body_that_is_not_json_by_its_content_type_is_415(client, content_type, message):
    # The one body reader of POST /rfq too (core.jsonbody): the same messages.
    response = post(client, content_type=content_type)
    assert response.status_code == 415
    assert response.json() == rpc_error(message)


def test_json_with_a_utf8_charset_is_fine(client):
    assert post(client, content_type="application/json; charset=UTF-8").status_code == 200


@pytest.mark.parametrize(
    "accept", ["text/html", "text/event-stream", "application/json;q=0, */*", "image/*"]
)
def test_a_client_that_does_not_accept_json_gets_406(client, accept):
    response = post(client, Accept=accept)
    assert response.status_code == 406
    assert response.json() == rpc_error(
        "Not Acceptable: this server answers with application/json; accept it."
    )


@pytest.mark.parametrize(
    "accept", [BOTH, "application/json", "*/*", "application/*", "text/html, */*;q=0.1"]
)
def test_accept_headers_that_allow_json(client, accept):
    response = post(client, Accept=accept)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response.json()["result"]["serverInfo"]["name"] == "tender-feed"


def test_a_body_over_the_limit_is_413(client, settings):
    settings.MCP_MAX_BODY_BYTES = 64
    response = post(client, body("ping", {"padding": "x" * 64}))
    assert response.status_code == 413
    assert response.json() == rpc_error(
        "The body is larger than 64 bytes. Send only the documented fields, within their "
        "maximum lengths."
    )
    assert post(client, body("ping")).status_code == 200


# --- Origin ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "origin",
    ["https://evil.example", "null", "http://testserver.evil.example", "http://localhost:6274"],
)
def test_a_foreign_origin_is_refused_for_every_method(client, origin):
    expected = rpc_error(f"Forbidden: requests from origin {origin!r} are not allowed.")
    for method in ("POST", "GET", "OPTIONS", "DELETE"):
        response = client.generic(
            method, "/mcp", INIT, content_type="application/json", headers={"Origin": origin}
        )
        assert (response.status_code, response.json()) == (403, expected)


def test_the_same_origin_and_listed_origins_are_allowed(client, settings):
    same = post(client, Origin="http://testserver")
    assert same.status_code == 200 and "Access-Control-Allow-Origin" not in same
    settings.MCP_ALLOWED_ORIGINS = ["http://localhost:6274/"]
    listed = post(client, Origin="http://localhost:6274")
    assert listed.status_code == 200
    assert listed["Access-Control-Allow-Origin"] == "http://localhost:6274"
    assert listed["Vary"] == "Origin"


def test_a_listed_origin_gets_a_cors_preflight(client, settings):
    settings.MCP_ALLOWED_ORIGINS = ["http://localhost:6274"]
    response = client.options(
        "/mcp",
        headers={
            "Origin": "http://localhost:6274",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, mcp-protocol-version, mcp-method, mcp-name",
        },
    )
    assert response.status_code == 204 and response.content == b""
    assert response["Access-Control-Allow-Origin"] == "http://localhost:6274"
    assert response["Access-Control-Allow-Methods"] == "GET, POST"
    assert (
        response["Access-Control-Allow-Headers"]
        == "content-type, mcp-protocol-version, mcp-method, mcp-name"
    )
    assert response["Allow"] == "GET, HEAD, POST, OPTIONS"


def test_a_missing_origin_is_fine(client):
    response = post(client)
    assert response.status_code == 200
    assert response.json()["result"]["serverInfo"]["name"] == "tender-feed"
    assert "Access-Control-Allow-Origin" not in response


# --- GET, other methods, the well-known document ----------------------------------------------


@pytest.mark.parametrize("accept", [None, "application/json", BOTH, "*/*"])
def test_get_answers_the_discovery_manifest_to_json_clients(client, accept):
    response = client.get("/mcp", headers={"Accept": accept} if accept else {})
    assert response.status_code == 200
    assert response.json() == MANIFEST
    assert response["Cache-Control"] == "public, max-age=300"


def test_get_asking_only_for_an_event_stream_is_405(client):
    response = client.get("/mcp", headers={"Accept": "text/event-stream"})
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, POST, OPTIONS"
    assert response.json() == rpc_error(
        "Method Not Allowed: this server opens no event stream; POST JSON-RPC messages."
    )


def test_get_accepting_neither_is_406(client):
    response = client.get("/mcp", headers={"Accept": "text/html"})
    assert (response.status_code, response.json()) == (
        406,
        rpc_error("Not Acceptable: the discovery manifest is application/json."),
    )


@pytest.mark.parametrize("method", ["DELETE", "PUT", "PATCH", "TRACE"])
def test_other_methods_are_405_with_allow(client, method):
    response = client.generic(method, "/mcp", headers={"Mcp-Session-Id": "abc"})
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, POST, OPTIONS"
    assert response.json() == rpc_error(
        "Method Not Allowed: POST JSON-RPC messages; GET returns the discovery manifest. "
        "This server keeps no sessions, so there is none to delete."
    )


def test_the_well_known_document_describes_the_server(client, settings):
    response = client.get("/.well-known/mcp.json")
    assert response.status_code == 200
    assert response.json() == MANIFEST
    assert response["Access-Control-Allow-Origin"] == "*"
    settings.PUBLIC_BASE_URL = "https://tenders.example"
    document = client.get("/.well-known/mcp.json").json()
    assert document["endpoint"] == "https://tenders.example/mcp"
    assert document["remotes"] == [
        {"type": "streamable-http", "url": "https://tenders.example/mcp"}
    ]
    assert client.post("/.well-known/mcp.json").status_code == 405


def test_chinese_text_is_sent_as_utf8(client):
    # A tool error message about a Chinese argument keeps its characters (no \\u escapes).
    raw = body(
        "tools/call",
        {"name": "get_tender", "arguments": {"at_id": "AT-TEST-0000000001", "语言": "zh"}},
    )
    response = post(client, raw)
    text = response.json()["result"]["content"][0]["text"]
    assert "'语言'" in json.loads(text)["error"]["message"]
    assert "语言".encode() in response.content

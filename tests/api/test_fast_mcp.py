"""Results of the read tools remembered per snapshot (mcp_server.registry, on real PostgreSQL).

A call answered from the memo gives the very bytes the whole way gives, in both protocol eras,
without checking arguments or calling the handler; failures are never remembered; a new
snapshot is never answered from the memo; the reply's bytes are what ``json.dumps`` writes.
"""

import json

import pytest

from mcp_server import registry, views
from mcp_server.server import protocol
from mcp_server.tools import REGISTRY
from mcp_server.written import Written, envelope, with_members
from tenders import publication
from tests.mcp_support import modern

BOTH = "application/json, text/event-stream"
HANDSHAKE = {"HTTP_MCP_PROTOCOL_VERSION": "2025-11-25"}


def call(client, name: str, arguments: dict, *, id=1, era="handshake"):
    params = {"name": name, "arguments": arguments}
    if era == "modern":
        raw, headers = modern("tools/call", params, id)
        extra = {"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers.items()}
    else:
        raw = json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
        extra = HANDSHAKE
    response = client.post("/mcp", raw, content_type="application/json", HTTP_ACCEPT=BOTH, **extra)
    assert response.status_code == 200, response.content
    return response


@pytest.fixture
def handlers_count(monkeypatch):
    """How many calls reached a tool's argument check (the whole way)."""
    checked = []
    check = registry.Tool.check_arguments

    def counted(tool, arguments):
        checked.append(tool.name)
        return check(tool, arguments)

    monkeypatch.setattr(registry.Tool, "check_arguments", counted)
    return checked


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_a_remembered_result_is_the_same_bytes_without_the_whole_way(
    client, feed, handlers_count, era
):
    _, rows = feed
    client.get("/api/v1/health")  # the process knows which snapshot is current
    calls = [
        ("list_tenders", {"limit": 3, "market": ["HK", "SG"], "lang": "zh"}),
        ("list_tenders", {"q": "疫苗", "closing_bucket": "all"}),
        ("get_tender", {"at_id": rows[0]["asaptic_id"], "lang": "en"}),
    ]
    first = [call(client, name, arguments, id=7, era=era) for name, arguments in calls]
    assert len(handlers_count) == 3
    for (name, arguments), expected in zip(calls, first, strict=True):
        again = call(client, name, arguments, id=7, era=era)
        assert again.content == expected.content
        assert sorted(again.items()) == sorted(expected.items())
        other_id = call(client, name, dict(reversed(arguments.items())), id="x-1", era=era)
        assert json.loads(other_id.content)["id"] == "x-1"
        assert json.loads(other_id.content)["result"] == json.loads(expected.content)["result"]
    assert len(handlers_count) == 3
    result = json.loads(first[0].content)["result"]
    text = result["content"][0]["text"].splitlines()
    assert text[0].startswith(f"{result['structuredContent']['meta']['total']} rows match; 3 shown")
    assert [line.split(" | ")[0] for line in text[1:4]] == [
        row["asaptic_id"] for row in result["structuredContent"]["data"]
    ]


def test_failures_and_other_tools_take_the_whole_way_every_time(client, feed, handlers_count):
    client.get("/api/v1/health")
    for _ in range(2):
        bad = call(client, "list_tenders", {"market": "XX"})
        assert json.loads(bad.content)["result"]["isError"] is True
        missing = call(client, "get_tender", {"at_id": "AT-TEST-9999999999"})
        assert json.loads(missing.content)["result"]["isError"] is True
        call(client, "tender_facets", {})  # changes with time within a snapshot: never kept
    assert len(handlers_count) == 6


def test_a_new_snapshot_is_never_answered_from_the_memo(client, feed, t0):
    _, rows = feed
    gone = rows[0]["asaptic_id"]
    arguments = {"closing_bucket": "all", "limit": 100}
    client.get("/api/v1/health")
    old = REGISTRY.call("list_tenders", arguments)
    assert REGISTRY.call("list_tenders", arguments) is old  # remembered
    assert REGISTRY.call("get_tender", {"at_id": gone})["isError"] is False
    publication.withdraw_row(listing_id=gone, reason="leak")
    new = REGISTRY.call("list_tenders", arguments)["structuredContent"]
    assert new["meta"]["snapshot_etag"] != old["structuredContent"]["meta"]["snapshot_etag"]
    assert gone not in [row["asaptic_id"] for row in new["data"]]
    assert REGISTRY.call("get_tender", {"at_id": gone})["isError"] is True
    publication.publish_issue(now=t0.replace(hour=7))
    newest = REGISTRY.call("list_tenders", arguments)["structuredContent"]
    assert newest["meta"]["snapshot_etag"] != new["meta"]["snapshot_etag"]


@pytest.mark.parametrize("request_id", [1, "醫-\u2028\"'", 2**70])
def test_a_reply_written_around_a_remembered_result_is_what_the_whole_way_writes(
    client, feed, request_id
):
    client.get("/api/v1/health")
    result = REGISTRY.call("list_tenders", {"limit": 2})
    assert REGISTRY.call("list_tenders", {"limit": 2}) is result
    body, raw = envelope(request_id, result)
    assert body["result"] is result
    whole_way = {"jsonrpc": "2.0", "id": request_id, "result": dict(result)}
    assert raw is not None and raw == registry.encode_json(whole_way)
    assert json.loads(raw) == json.loads(json.dumps(whole_way))


def test_a_modern_reply_around_a_remembered_result_is_what_the_whole_way_writes(client, feed):
    client.get("/api/v1/health")
    raw_body, headers = modern("tools/call", {"name": "list_tenders", "arguments": {"limit": 2}})
    replies = [protocol().handle(raw_body, headers) for _ in range(2)]
    assert replies[1].raw is not None and replies[1].raw == replies[0].raw
    result = replies[1].body["result"]
    whole_way = {"jsonrpc": "2.0", "id": 1, "result": dict(result)}
    assert replies[1].raw == registry.encode_json(whole_way)
    assert list(json.loads(replies[1].raw)["result"]) == [
        "resultType",
        "content",
        "structuredContent",
        "isError",
        "_meta",
    ]


@pytest.mark.parametrize(
    ("head", "result", "tail"),
    [
        ({"resultType": "complete"}, {"a": [1, "醫"], "b": None}, {"_meta": {"x": "y"}}),
        ({}, {"a": 1}, {}),
        ({"h": 1}, {}, {"t": 2}),
        ({"a": 0}, {"a": 1}, {}),  # a shared member: merged as a dict merges
    ],
)
def test_members_are_written_as_json_dumps_writes_them(head, result, tail):
    carried = Written(result)
    carried.json = json.dumps(result, ensure_ascii=False).encode()
    merged = with_members(head, carried, tail)
    assert merged == {**head, **result, **tail}
    raw = getattr(merged, "json", None)
    if len(merged) == len(head) + len(result) + len(tail):
        assert raw == json.dumps({**head, **result, **tail}, ensure_ascii=False).encode()
    else:
        assert raw is None


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_a_repeated_call_is_answered_before_the_middleware_with_its_own_id(
    client, feed, monkeypatch, era
):
    client.get("/api/v1/health")
    arguments = {"limit": 3, "lang": "en"}
    call(client, "list_tenders", arguments, id=1, era=era)  # remembered by the registry
    whole = call(client, "list_tenders", arguments, id=2, era=era)  # and by the middleware
    reached = []
    post = views._post
    monkeypatch.setattr(views, "_post", lambda request: reached.append(1) or post(request))
    for request_id in (2, "醫-\u2028", 10**30):
        short = call(client, "list_tenders", arguments, id=request_id, era=era)
        expected = whole.content.replace(b'"id": 2,', b'"id": ' + _spelled(request_id) + b",", 1)
        assert short.content == expected
        headers = {**dict(whole.items()), "Content-Length": str(len(expected))}
        assert dict(short.items()) == headers
    assert reached == []
    # Another argument or a failure takes the whole way.
    call(client, "list_tenders", {"limit": 4, "lang": "en"}, era=era)
    call(client, "list_tenders", {"market": "XX"}, era=era)
    call(client, "list_tenders", {"market": "XX"}, era=era)
    assert len(reached) == 3


def _spelled(request_id) -> bytes:
    return json.dumps(request_id, ensure_ascii=False).encode()


def test_a_new_snapshot_is_never_answered_before_the_middleware(client, feed):
    client.get("/api/v1/health")
    for request_id in range(3):
        before = json.loads(call(client, "list_tenders", {"limit": 2}, id=request_id).content)
    publication.publish_issue(now=feed[0].generated.replace(hour=7))
    after = json.loads(call(client, "list_tenders", {"limit": 2}, id=9).content)
    etag = after["result"]["structuredContent"]["meta"]["snapshot_etag"]
    assert etag != before["result"]["structuredContent"]["meta"]["snapshot_etag"]

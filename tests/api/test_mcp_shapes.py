"""The short way of ``POST /mcp`` by a body's shape (mcp_server.short, on real PostgreSQL).

A body whose bytes but for the id were seen before is answered without parsing it, with its
own id; bytes that differ otherwise (spacing, order of members), an id spelled otherwise than
``json.dumps`` spells it, another header or a nested member named ``id`` are parsed, and every
answer is the one the whole way gives.
"""

import json

import pytest

from mcp_server import short
from tenders.read import answers

BOTH = "application/json, text/event-stream"
VERSION = "2025-11-25"


def post(client, raw: bytes, accept: str = BOTH, version: str = VERSION):
    return client.post(
        "/mcp",
        raw,
        content_type="application/json",
        HTTP_ACCEPT=accept,
        HTTP_MCP_PROTOCOL_VERSION=version,
    )


def spelled(id_: str, arguments: str = '{"limit": 3}') -> bytes:
    """A list_tenders call with its id written as ``id_`` (raw JSON)."""
    return (
        '{"jsonrpc": "2.0", "id": ' + id_ + ', "method": "tools/call", '
        '"params": {"name": "list_tenders", "arguments": ' + arguments + "}}"
    ).encode()


@pytest.fixture
def parses(monkeypatch):
    """The bodies the short way parsed to find their call."""
    seen = []
    parse = short._parsed

    def counted(body, headers):
        seen.append(body)
        return parse(body, headers)

    monkeypatch.setattr(short, "_parsed", counted)
    return seen


@pytest.fixture
def known(client, feed):
    client.get("/api/v1/health")  # the process knows which snapshot is current
    return feed


def whole_way(client, raw: bytes, **headers):
    """What the stack answers with nothing of the short way remembered."""
    answers.memo().clear()
    return post(client, raw, **headers)


def kept(client, raw: bytes) -> None:
    """The call of ``raw`` remembered by the registry, then by the short way."""
    for _ in range(2):
        assert post(client, raw).status_code == 200


def test_a_known_shape_is_answered_with_its_own_id_without_parsing(client, known, parses):
    kept(client, spelled("1"))
    parses.clear()
    replies = {id_: post(client, spelled(id_)) for id_ in ("1", "42", "-7", '"call-9"', '""')}
    assert parses == []
    for id_, reply in replies.items():
        assert json.loads(reply.content)["id"] == json.loads(id_)
        assert reply["Content-Length"] == str(len(reply.content))
    expected = {id_: whole_way(client, spelled(id_)) for id_ in replies}
    for id_, reply in replies.items():
        assert reply.content == expected[id_].content
        assert sorted(reply.items()) == sorted(expected[id_].items())


@pytest.mark.parametrize(
    "other",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
        b'"params":{"name":"list_tenders","arguments":{"limit":3}}}',
        b'{"method": "tools/call", "params": {"arguments": {"limit": 3}, '
        b'"name": "list_tenders"}, "id": 1, "jsonrpc": "2.0"}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
        b'"params": {"name": "list_\\u0074enders", "arguments": {"limit": 3}}}',
    ],
    ids=["spacing", "order", "escape"],
)
def test_other_bytes_of_the_same_call_are_parsed_once_then_known(client, known, parses, other):
    kept(client, spelled("1"))
    expected = post(client, spelled("5"))
    parses.clear()
    first = post(client, other.replace(b'"id": 1', b'"id": 5').replace(b'"id":1', b'"id":5'))
    assert len(parses) == 1  # not the first body's shape: parsed, found by its meaning
    assert first.content == expected.content
    again = post(client, other.replace(b'"id": 1', b'"id": 6').replace(b'"id":1', b'"id":6'))
    assert len(parses) == 1  # its own shape now
    assert json.loads(again.content)["id"] == 6
    assert json.loads(again.content)["result"] == json.loads(expected.content)["result"]


@pytest.mark.parametrize(
    "id_",
    [
        '"a\\"b"',  # escapes: spelled again by json.dumps
        '"x\\\\y"',
        '"\\u0041"',
        '"醫"',
        '"\\u2028"',
        "-0",  # read as 0
        "7.0",  # a float: no id of ours
        "1e2",
        "true",
        "null",
        "01",  # not JSON
        '"open',
        "1 2",
    ],
)
def test_an_id_spelled_otherwise_is_answered_as_the_whole_way_answers(client, known, parses, id_):
    kept(client, spelled("1"))
    parses.clear()
    reply = post(client, spelled(id_))
    assert parses  # never answered by the shape
    expected = whole_way(client, spelled(id_))
    assert (reply.status_code, reply.content) == (expected.status_code, expected.content)


def test_the_same_bytes_with_other_headers_take_their_own_way(client, known, parses):
    kept(client, spelled("1"))
    parses.clear()
    refused = post(client, spelled("1"), accept="text/event-stream")
    assert refused.status_code == 406
    other = post(client, spelled("2"), version="2025-06-18")
    assert len(parses) == 2
    assert other.content == whole_way(client, spelled("2"), version="2025-06-18").content
    # The refusal is the whole way's own (a JSON-RPC error), not a replay of the kept reply.
    whole = whole_way(client, spelled("1"), accept="text/event-stream")
    assert (refused.status_code, refused.content) == (whole.status_code, whole.content)
    assert "error" in json.loads(refused.content) and "result" not in json.loads(refused.content)


def test_a_nested_member_named_id_is_not_taken_for_the_message_id(client, known, parses):
    def nested(inner: str, outer: str) -> bytes:
        return (
            '{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "list_tenders", '
            '"arguments": {"limit": 3}, "_meta": {"id": ' + inner + '}}, "id": ' + outer + "}"
        ).encode()

    kept(client, nested("5", "7"))
    parses.clear()
    by_shape = post(client, nested("5", "8"))
    assert parses == []
    assert json.loads(by_shape.content)["id"] == 8
    inner_changed = post(client, nested("6", "7"))
    assert len(parses) == 1
    assert json.loads(inner_changed.content)["id"] == 7
    assert by_shape.content == whole_way(client, nested("5", "8")).content


def test_a_shape_is_never_answered_for_a_new_snapshot(client, known, parses, t0):
    from tenders import publication

    kept(client, spelled("1"))
    before = json.loads(post(client, spelled("2")).content)
    publication.publish_issue(now=t0.replace(hour=7))
    after = json.loads(post(client, spelled("3")).content)
    etags = [m["result"]["structuredContent"]["meta"]["snapshot_etag"] for m in (before, after)]
    assert etags[0] != etags[1]


@pytest.mark.parametrize(
    ("body", "ids"),
    [
        (b'{"id": 12, "x": {"id": "a b"}}', [b"12", b'"a b"']),
        (b'{"id" :\n-3}', [b"-3"]),
        (b'{"id": 1.5, "b": {"id": 1e3}, "c": {"id": -0}, "d": {"id": 012}}', []),
        (b'{"id": "q\\"", "e": {"id": "\xc3\xa9"}}', []),
        (b'{"xid": 1, "id\\"": 2}', []),
    ],
)
def test_the_places_an_id_may_be_cut_out(body, ids):
    cuts = list(short._cuts(body))
    assert [spelled_id for _, spelled_id in cuts] == ids
    for shape, spelled_id in cuts:
        assert shape.count(short.CUT) == 1
        assert shape.replace(short.CUT, spelled_id) == body

"""The one response cache (tenders.api.cache): a repeated listing, row or read-tool call is
answered with what the whole stack sent before, without a query, on PostgreSQL and on SQLite.

A hit gives the bytes and headers the whole way gives (a call with its own id), without
reaching the view; errors are never kept; a Host the stack refuses is refused however often
asked; a new snapshot, published here or by another process, is never answered from the cache.
"""

import json
import os
import subprocess
import sys
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.db import connections
from django.test import Client
from django.test.utils import CaptureQueriesContext

from mcp_server import views as mcp_views
from tenders import publication
from tenders.read import answers, selectors
from tests.api.feed import publish_feed, snapshot_rows
from tests.api.test_current import publish_elsewhere
from tests.mcp_support import modern

ROOT = Path(__file__).resolve().parent.parent
URL = "/api/v1/tenders"
BOTH = "application/json, text/event-stream"
HANDSHAKE = {"HTTP_MCP_PROTOCOL_VERSION": "2025-11-25"}


@pytest.fixture
def feed(db, t0):
    """The published feed of tests.api.feed: (issue, every snapshot row in sort_key order)."""
    issue = publish_feed(t0)
    return issue, snapshot_rows(issue)


def whole(response) -> tuple:
    """Everything a client receives: status, headers and body."""
    return response.status_code, sorted(response.items()), response.content


@contextmanager
def no_queries():
    """Fails unless the block sends no query on any connection."""
    with ExitStack() as stack:
        captured = [
            stack.enter_context(CaptureQueriesContext(connections[alias])) for alias in connections
        ]
        yield
    assert [query["sql"] for queries in captured for query in queries] == []


@pytest.fixture
def whole_way_fails(monkeypatch):
    """Once called, a request that reaches a view or the tool server fails the test."""
    taken = []

    def refuse(*args, **kwargs):
        taken.append(args)
        raise AssertionError("the whole way was taken")

    def active():
        for name in ("require_current_issue", "plan_list", "tender_answer", "list_answer"):
            monkeypatch.setattr(selectors, name, refuse)
        monkeypatch.setattr(mcp_views, "_post", refuse)
        return taken

    return active


def call(client, name: str, arguments: dict, *, id=1, era="handshake", **headers):
    params = {"name": name, "arguments": arguments}
    if era == "modern":
        raw, sent = modern("tools/call", params, id)
        extra = {"HTTP_" + k.upper().replace("-", "_"): v for k, v in sent.items()}
    else:
        raw = json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
        extra = HANDSHAKE
    sent = {"HTTP_ACCEPT": BOTH, **extra, **headers}
    return client.post("/mcp", raw, content_type="application/json", **sent)


def spelled(request_id) -> bytes:
    return json.dumps(request_id, ensure_ascii=False).encode()


def with_id(response, request_id) -> tuple:
    """``whole(response)`` of the same reply with another id."""
    status, headers, body = whole(response)
    old = b'"id": ' + spelled(json.loads(body)["id"]) + b","
    body = body.replace(old, b'"id": ' + spelled(request_id) + b",", 1)
    headers = [(k, str(len(body)) if k == "Content-Length" else v) for k, v in headers]
    return status, headers, body


# --- REST --------------------------------------------------------------------------------


def test_a_repeated_listing_or_row_is_served_by_the_cache_without_a_query(
    client, feed, whole_way_fails
):
    _, rows = feed
    at_id = rows[0]["asaptic_id"]
    cursor = client.get(URL, {"limit": 2, "closing_bucket": "all"}).json()["meta"]["next_cursor"]
    etag = client.get(URL)["ETag"]
    answers.reset()  # nothing kept: the whole way's 304
    not_modified = whole(client.get(URL, HTTP_IF_NONE_MATCH=etag))
    assert not_modified[0] == 304
    cases = [
        ("get", URL, {}),
        ("get", URL, {"market": "HK,sg", "lang": "zh", "limit": "3"}),
        ("get", URL, {"q": "疫苗", "closing_bucket": "all"}),
        ("get", URL, {"q": '"public hospitals"', "lang": "zht"}),
        ("get", URL, {"limit": "2", "closing_bucket": "all", "cursor": cursor}),
        ("head", URL, {"new": "true"}),
        ("get", f"{URL}/{at_id}", {}),
        ("get", f"{URL}/{at_id}", {"lang": "en"}),
        ("head", f"{URL}/{at_id}", {}),
    ]
    answered = []
    for method, path, params in cases:
        response = getattr(client, method)(path, params)
        assert response.status_code == 200, response.content
        answered.append(whole(response))

    taken = whole_way_fails()
    with no_queries():
        for (method, path, params), expected in zip(cases, answered, strict=True):
            assert whole(getattr(client, method)(path, params)) == expected, (method, path)
        assert whole(client.get(URL, HTTP_IF_NONE_MATCH=etag)) == not_modified
        assert whole(client.get(URL, HTTP_IF_NONE_MATCH=f'"x", W/{etag}')) == not_modified
    assert taken == []
    # Another spelling of the same request is another entry: it takes the whole way.
    assert client.get(URL, {"market": "hk,SG", "lang": "zh", "limit": "3"}).status_code == 500
    assert len(taken) == 1


def test_a_host_the_stack_refuses_is_refused_however_often_asked(client, feed):
    assert client.get(URL).status_code == 200
    assert client.get(URL).status_code == 200  # kept
    for _ in range(2):
        refused = client.get(URL, HTTP_HOST="elsewhere.example")
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_request"
    for _ in range(2):
        assert call(client, "list_tenders", {"limit": 2}).status_code == 200
    assert (
        call(client, "list_tenders", {"limit": 2}, HTTP_HOST="elsewhere.example").status_code == 400
    )


def test_the_scheme_is_part_of_the_key(client, feed, settings):
    settings.SECURE_HSTS_SECONDS = 3600
    for _ in range(2):
        assert "Strict-Transport-Security" in client.get(URL, secure=True)
        assert "Strict-Transport-Security" not in client.get(URL)
    settings.SECURE_SSL_REDIRECT = True
    answers.reset()  # a process started with these settings (the middleware reads them once)
    started = Client()
    for _ in range(2):
        assert started.get(URL).status_code == 301
        assert started.get(URL, secure=True).status_code == 200
        assert call(started, "list_tenders", {"limit": 2}).status_code == 301
        assert call(started, "list_tenders", {"limit": 2}, secure=True).status_code == 200


def test_errors_take_the_whole_way_every_time(client, feed, monkeypatch):
    planned = []
    plan_list = selectors.plan_list
    monkeypatch.setattr(
        selectors, "plan_list", lambda *a, **k: planned.append(1) or plan_list(*a, **k)
    )
    for _ in range(2):
        assert client.get(URL, {"market": "XX"}).status_code == 400
        assert client.get(URL, {"cursor": "nonsense"}).status_code == 400
        assert client.get(f"{URL}/AT-TEST-9999999999").status_code == 404
        failed = json.loads(call(client, "list_tenders", {"market": "XX"}).content)
        assert failed["result"]["isError"] is True
    assert len(planned) == 6
    # Other methods are the view's: a POST is refused as before.
    response = client.post(URL)
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD, OPTIONS"


# --- MCP ---------------------------------------------------------------------------------


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_a_repeated_read_tool_call_is_served_by_the_cache_with_its_own_id(
    client, feed, whole_way_fails, era
):
    _, rows = feed
    calls = [
        ("list_tenders", {"limit": 3, "market": ["HK", "SG"], "lang": "zh"}),
        ("list_tenders", {"q": "疫苗", "closing_bucket": "all"}),
        ("get_tender", {"at_id": rows[0]["asaptic_id"], "lang": "en"}),
    ]
    first = [call(client, name, arguments, id=1, era=era) for name, arguments in calls]
    for response in first:
        assert response.status_code == 200 and b'"isError": false' in response.content

    taken = whole_way_fails()
    with no_queries():
        for (name, arguments), expected in zip(calls, first, strict=True):
            for request_id in (1, "醫-\u2028", 10**30, ""):
                reply = call(client, name, arguments, id=request_id, era=era)
                assert whole(reply) == with_id(expected, request_id)
                assert reply["Content-Length"] == str(len(reply.content))
    assert taken == []
    # The same call written otherwise (order of members, spacing) is the same call.
    if era == "handshake":
        name, arguments = calls[0]
        message = {
            "params": {"arguments": arguments, "name": name},
            "method": "tools/call",
            "id": 7,
            "jsonrpc": "2.0",
        }
        reordered = client.post(
            "/mcp",
            json.dumps(message, indent=1),
            content_type="application/json",
            HTTP_ACCEPT=BOTH,
            **HANDSHAKE,
        )
        assert whole(reordered) == with_id(first[0], 7)
    # Another header, an Origin or another argument takes the whole way (answered 500 here).
    name, arguments = calls[0]
    for headers in ({"HTTP_ACCEPT": "application/json"}, {"HTTP_ORIGIN": "http://testserver"}):
        assert call(client, name, arguments, era=era, **headers).status_code == 500
    assert call(client, name, {**arguments, "limit": 4}, era=era).status_code == 500
    assert len(taken) == 3


def test_other_methods_and_tools_take_the_whole_way(client, feed, monkeypatch):
    reached = []
    post = mcp_views._post
    monkeypatch.setattr(mcp_views, "_post", lambda request: reached.append(1) or post(request))
    for _ in range(2):
        assert call(client, "tender_facets", {}).status_code == 200
        listed = client.post(
            "/mcp",
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            content_type="application/json",
            HTTP_ACCEPT=BOTH,
            **HANDSHAKE,
        )
        assert listed.status_code == 200
    assert len(reached) == 4


# --- new snapshots -----------------------------------------------------------------------


def tool_etag(response) -> str:
    return json.loads(response.content)["result"]["structuredContent"]["meta"]["snapshot_etag"]


def test_a_new_snapshot_is_never_answered_from_the_cache(client, feed, t0):
    _, rows = feed
    gone = rows[0]["asaptic_id"]
    params = {"closing_bucket": "all", "limit": 200}
    old = client.get(URL, params).json()
    assert client.get(f"{URL}/{gone}").status_code == 200
    assert client.get(URL, params).json() == old  # kept
    for request_id in range(2):
        assert (
            tool_etag(call(client, "list_tenders", {"limit": 2}, id=request_id))
            == old["meta"]["snapshot_etag"]
        )

    publication.withdraw_row(listing_id=gone, reason="leak")
    withdrawn = client.get(URL, params).json()
    assert withdrawn["meta"]["snapshot_etag"] != old["meta"]["snapshot_etag"]
    assert gone not in [row["asaptic_id"] for row in withdrawn["data"]]
    assert client.get(f"{URL}/{gone}").status_code == 404
    assert client.get(f"{URL}/{gone}").status_code == 404
    etag = withdrawn["meta"]["snapshot_etag"]
    assert tool_etag(call(client, "list_tenders", {"limit": 2}, id=5)) == etag

    publication.publish_issue(now=t0.replace(hour=7))
    published = client.get(URL, params).json()
    assert published["meta"]["snapshot_etag"] not in (
        old["meta"]["snapshot_etag"],
        withdrawn["meta"]["snapshot_etag"],
    )
    assert client.get(URL, params).json() == published
    assert (
        tool_etag(call(client, "list_tenders", {"limit": 2}, id=6))
        == published["meta"]["snapshot_etag"]
    )


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_switch_committed_by_another_process_is_never_answered_from_the_cache(
    client, t0, tmp_path
):
    publish_feed(t0)
    before = client.get(URL, {"limit": 2})
    assert whole(client.get(URL, {"limit": 2})) == whole(before)  # kept
    called = [call(client, "list_tenders", {"limit": 2}, id=n) for n in range(2)]
    assert tool_etag(called[1]) == before["ETag"].strip('"')
    publish_elsewhere(tmp_path, "2026-11-23T07:00:00Z")
    after = client.get(URL, {"limit": 2})
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    assert after.json()["meta"]["snapshot_etag"] == after["ETag"].strip('"')
    assert tool_etag(call(client, "list_tenders", {"limit": 2}, id=3)) == after["ETag"].strip('"')


# --- SQLite ------------------------------------------------------------------------------


def test_on_sqlite_repeats_cost_no_query_and_a_publication_elsewhere_is_seen(tmp_path):
    """The run command's database: another process (tests/cache_probe.py) answers through the
    whole stack on a SQLite file, while a third one publishes."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(TENDERS_VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings")

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True
        )
        return done.stdout

    run("manage.py", "migrate", "--noinput", "-v", "0")
    run("manage.py", "setup_demo", "--rows", "40")
    later = (datetime.now(UTC) + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    seen = json.loads(run("-m", "tests.cache_probe", later).splitlines()[-1])
    before, after = seen["before"], seen["after"]
    for probe in (before, after):
        assert probe["listing"]["status"] == 200 and probe["listing"]["same"]
        assert probe["list_tenders"]["status"] == 200 and probe["list_tenders"]["same"]
        assert probe["listing"]["queries"] == 0 and probe["list_tenders"]["queries"] == 0
        assert probe["list_tenders"]["id"] == "second"
        assert probe["listing"]["etag"] == probe["list_tenders"]["etag"]
    assert after["listing"]["etag"] != before["listing"]["etag"]
    assert (tmp_path / "db.sqlite3.current").exists()

"""Which issue is current, known in process and told of switches (tenders.read.current).

On the real PostgreSQL of the tests: a request whose answer is cached costs no query; a switch
committed by another process (``manage.py publish_issue`` in a subprocess) is seen by the
next request; a process that has not yet read a switch's notification answers a cursor or an
``If-None-Match`` of the newer snapshot after asking the database, never with a false 409;
a terminated listener costs one query per request, one warning, and is made again; health
always asks.
"""

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tenders import publication
from tenders.read import current
from tests.api.feed import publish_feed
from tests.worker_support import worker_database_url

URL = "/api/v1/tenders"
ROOT = Path(__file__).resolve().parents[2]
PARAMS = {"closing_bucket": "all", "limit": 2}


def issue_asked(queries) -> int:
    """How many of the captured queries asked which issue is current."""
    return sum(q["sql"] == current._SQL for q in queries.captured_queries)


def page(client, params=PARAMS, **headers) -> tuple[int, dict | None, str]:
    """(status, body or None for a 304, ETag) of one listing request."""
    response = client.get(URL, params, **headers)
    body = response.json() if response.status_code != 304 else None
    return response.status_code, body, response.get("ETag", "").strip('"')


def publish_elsewhere(tmp_path, at: str) -> None:
    """Publish from another process, committed against the test database."""
    env = {**os.environ, "DATABASE_URL": worker_database_url(), "TENDERS_VAR_DIR": str(tmp_path)}
    subprocess.run(
        [sys.executable, "manage.py", "publish_issue", "--at", at, "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )


def test_a_hit_asks_nothing_and_the_process_keeps_listening(client, feed):
    status, first, etag = page(client)
    assert status == 200 and etag == first["meta"]["snapshot_etag"]
    for _ in range(3):
        with CaptureQueriesContext(connection) as queries:
            assert page(client) == (200, first, etag)
        assert len(queries) == 0
    assert current._listener.conn is not None and current._listener.value[1] == etag


def test_a_process_that_has_not_read_the_switch_yet_asks_before_refusing_a_cursor(client, feed, t0):
    _, old, old_etag = page(client)
    stale = current._listener.value
    publication.publish_issue(now=t0.replace(hour=7))  # changed(): this process asks again
    _, new, new_etag = page(client)
    assert new_etag != old_etag
    # Another process: it served the old issue and the switch's notification is not read yet.
    current._listener.value = stale
    assert page(client)[2] == old_etag  # what it believes, until something says otherwise
    with CaptureQueriesContext(connection) as queries:
        status, body, etag = page(client, {**PARAMS, "cursor": new["meta"]["next_cursor"]})
    assert (status, etag, body["meta"]["returned"]) == (200, new_etag, 2)
    assert issue_asked(queries) == 1
    assert page(client)[2] == new_etag  # and it keeps what the database said
    # An old cursor is then refused, naming the issue that is current.
    status, body, _ = page(client, {**PARAMS, "cursor": old["meta"]["next_cursor"]})
    assert (status, body["error"]["code"]) == (409, "snapshot_changed")
    assert new_etag in body["error"]["message"]


def test_a_process_that_has_not_read_the_switch_yet_asks_before_a_304(client, feed, t0):
    _, _, old_etag = page(client)
    stale = current._listener.value
    publication.publish_issue(now=t0.replace(hour=7))
    _, _, new_etag = page(client)
    for path in (URL, URL + "/facets", "/tender/rows.json", "/feeds/tenders.atom"):
        tag = client.get(path)["ETag"]  # the facets' ETag may carry -degraded
        assert new_etag in tag
        current._listener.value = stale  # the notification is not read yet
        response = client.get(path, HTTP_IF_NONE_MATCH=tag)
        assert (response.status_code, response["ETag"]) == (304, tag), path
    # A client naming only the snapshot the process believes current is answered by that
    # belief: a 304 without a query (the notification's short way is the only window).
    current._listener.value = stale
    with CaptureQueriesContext(connection) as queries:
        status, _, etag = page(client, HTTP_IF_NONE_MATCH=f'W/"{old_etag}"')
    assert (status, etag, issue_asked(queries)) == (304, old_etag, 0)
    # Naming anything else asks, and the process keeps what it learnt.
    status, _, etag = page(client, HTTP_IF_NONE_MATCH='"unknown"')
    assert (status, etag) == (200, new_etag)
    status, _, etag = page(client, HTTP_IF_NONE_MATCH=f'"{old_etag}"')
    assert (status, etag) == (200, new_etag)


def test_health_always_asks_the_database(client, feed):
    page(client)
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/api/v1/health").json()["status"] in ("ok", "degraded")
        assert issue_asked(queries) == 1


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_switch_committed_by_another_process_is_seen_by_the_next_request(client, t0, tmp_path):
    publish_feed(t0)
    _, before, etag = page(client)
    with CaptureQueriesContext(connection) as queries:
        assert page(client)[2] == etag
    assert len(queries) == 0  # known in process: nothing but the notification can change it
    publish_elsewhere(tmp_path, "2026-11-23T07:00:00Z")
    with CaptureQueriesContext(connection) as queries:
        status, after, new_etag = page(client)
    assert status == 200 and new_etag not in ("", etag)
    assert after["meta"]["snapshot_etag"] == new_etag and issue_asked(queries) == 1
    # The next cursor of the new issue is answered; one of the old issue is refused.
    status, body, _ = page(client, {**PARAMS, "cursor": after["meta"]["next_cursor"]})
    assert (status, body["meta"]["snapshot_etag"]) == (200, new_etag)
    status, body, _ = page(client, {**PARAMS, "cursor": before["meta"]["next_cursor"]})
    assert (status, body["error"]["code"]) == (409, "snapshot_changed")
    with CaptureQueriesContext(connection) as queries:
        assert page(client)[2] == new_etag
    assert len(queries) == 0


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_terminated_listener_costs_a_query_per_request_until_it_is_made_again(
    client, t0, tmp_path, caplog
):
    publish_feed(t0)
    _, _, etag = page(client)
    listener = current._listener
    listener.retry_after = 3600.0  # no new listener during the outage...
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [listener.conn.pgconn.backend_pid])
    publish_elsewhere(tmp_path, "2026-11-23T07:00:00Z")  # a switch nobody could tell it of
    with caplog.at_level(logging.WARNING, logger="tenders.read.current"):
        for _ in range(3):
            with CaptureQueriesContext(connection) as queries:
                status, _, new_etag = page(client)
            assert status == 200 and new_etag != etag and issue_asked(queries) == 1
    warnings = [r.getMessage() for r in caplog.records if r.name == "tenders.read.current"]
    assert len(warnings) == 1 and "Not listening" in warnings[0]
    assert listener.conn is None
    listener.retry_at = 0.0  # ... until the backoff has passed
    with caplog.at_level(logging.INFO, logger="tenders.read.current"):
        with CaptureQueriesContext(connection) as queries:
            assert page(client)[2] == new_etag
        assert issue_asked(queries) == 1  # a new listener: asked once more, then known
        with CaptureQueriesContext(connection) as queries:
            assert page(client)[2] == new_etag
        assert len(queries) == 0
    assert listener.conn is not None and not listener.lost
    assert any(
        "again" in r.getMessage() for r in caplog.records if r.name == "tenders.read.current"
    )


def test_a_listener_made_before_a_fork_is_left_to_the_parent(client, feed, monkeypatch):
    page(client)
    inherited = current._listener.conn
    monkeypatch.setattr(os, "getpid", lambda: -1)  # a gunicorn worker forked after it was made
    with CaptureQueriesContext(connection) as queries:
        assert page(client)[0] == 200
    assert issue_asked(queries) == 1
    assert current._listener.conn is not inherited and not inherited.closed
    assert current._listener.orphans == [inherited]
    monkeypatch.undo()
    inherited.close()  # the "parent" closes its own; this process closes the one it made
    current._listener.orphans.clear()
    current._listener.pid = os.getpid()


def test_other_backends_ask_on_every_request(client, feed, monkeypatch):
    monkeypatch.setattr(current, "listens", lambda: False)
    page(client)
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            assert page(client)[0] == 200
        assert issue_asked(queries) == 1

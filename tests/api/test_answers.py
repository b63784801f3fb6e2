"""The answer cache of the public read path (tenders.read.answers, tenders.read.current).

Pure tests of the tiers first, then the cache on the published feed of tests.api.feed: hits
are byte-identical to misses and cost no query (which issue is current is known in process);
a new snapshot is seen at once by every process; a cursor of a newer issue is never refused as stale; the
shared tier in Redis (a real server) is shared by processes; a shared tier that is missing or
down only costs time, with one warning.
"""

import logging
import shutil
import socket
import subprocess
import time
import uuid

import pytest
import redis
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.renderers import JSONRenderer

from core.errors import ApiError
from mcp_server.tools import REGISTRY
from tenders import publication
from tenders.read import answers, current
from tenders.read.answers import Answer, LocalTier

URL = "/api/v1/tenders"
ANSWERS_LOG = "tenders.read.answers"


# --- pure -------------------------------------------------------------------------------------


def test_the_local_tier_drops_the_least_recently_used_beyond_its_bytes():
    tier = LocalTier(max_bytes=3 * (100 + 1 + answers.ENTRY_OVERHEAD))
    for name in "abc":
        tier.put(name, Answer(b"x" * 100))
    assert tier.get("a") == Answer(b"x" * 100)  # now the most recently used
    tier.put("d", Answer(b"y" * 100))
    assert [tier.get(name) is not None for name in "abcd"] == [True, False, True, True]
    tier.put("huge", Answer(b"z" * tier.max_bytes))
    assert tier.get("huge") is None and tier.size <= tier.max_bytes


def test_bodies_are_the_bytes_drf_renders():
    body = {"data": [{"summary": '醫療\u2028line\u2029para "q" </script>', "n": 1.5}], "x": None}
    assert answers.encode(body) == JSONRenderer().render(body)


def test_an_error_answer_gives_back_its_error():
    gated = ApiError(403, "SPEC_CODED_GATED", "Gated.", extra={"access_url": "https://x/a"})
    invalid = ApiError(400, "invalid_parameter", "No.", param="q")
    for error in (gated, invalid):
        answer = answers.error_answer(error)
        assert answer.status == error.status and answer.error() == error


def test_keys_name_the_snapshot_and_stay_short_whatever_the_request():
    key = answers.key(7, "e" * 32, "list", "q=" + "醫" * 200)
    assert key.startswith(f"7:{'e' * 32}:list:") and len(key) < 100
    assert key != answers.key(8, "e" * 32, "list", "q=" + "醫" * 200)


# --- on the published feed ----------------------------------------------------------------


def get(client, path, params=None) -> bytes:
    response = client.get(path, params or {})
    assert response.status_code in (200, 404), response.content
    return response.content


SURFACE_REQUESTS = [
    (URL, {}),
    (URL, {"market": "HK", "lang": "zh", "limit": 3}),
    (URL, {"q": "vaccines", "closing_bucket": "all"}),
    (URL + "/facets", {}),
    (URL + "/AT-TEST-0000000003", {"lang": "en"}),
    (URL + "/AT-TEST-9999999999", {}),
]


@pytest.mark.parametrize(("path", "params"), SURFACE_REQUESTS)
def test_a_hit_is_byte_identical_to_the_answer_computed_afresh_and_costs_no_query(
    client, feed, path, params, django_assert_num_queries
):
    first = get(client, path, params)
    with django_assert_num_queries(0):  # the current issue is known in process
        assert get(client, path, params) == first
    answers.reset()
    caches["answers"].clear()
    assert get(client, path, params) == first  # nothing cached anywhere: the same bytes


def test_a_cursor_page_is_cached_like_a_first_page(client, feed, django_assert_num_queries):
    cursor = client.get(URL, {"limit": 2}).json()["meta"]["next_cursor"]
    second = get(client, URL, {"limit": 2, "cursor": cursor})
    with django_assert_num_queries(0):
        assert get(client, URL, {"limit": 2, "cursor": cursor}) == second


def test_the_mcp_tools_share_the_answers_and_cost_no_query(client, feed, django_assert_num_queries):
    rest = client.get(URL, {"limit": 10, "lang": "en"}).json()
    calls = [
        ("list_tenders", {"lang": "en"}),
        ("get_tender", {"at_id": rest["data"][0]["asaptic_id"]}),
        ("tender_facets", {}),
    ]
    for name, arguments in calls:
        first = REGISTRY.call(name, arguments)
        with django_assert_num_queries(0):
            assert REGISTRY.call(name, arguments) == first
    # The tool's page is REST's English page of ten, its rows without sort_key.
    tool = REGISTRY.call("list_tenders", {"lang": "en"})["structuredContent"]
    assert tool["meta"] == rest["meta"]
    assert tool["data"] == [
        {k: v for k, v in row.items() if k != "sort_key"} for row in rest["data"]
    ]


def test_the_count_of_a_search_is_shared_by_its_pages(client, feed):
    params = {"q": "public", "closing_bucket": "all"}
    total = client.get(URL, {**params, "limit": 2}).json()["meta"]["total"]
    assert total > 0
    with CaptureQueriesContext(connection) as queries:
        for lang in ("en", "zh"):
            assert client.get(URL, {**params, "lang": lang}).json()["meta"]["total"] == total
    assert not [q for q in queries.captured_queries if 'COUNT(*) AS "__count"' in q["sql"]]


def _slow_counts(seconds: float):
    """Every count of rows takes ``seconds`` more in the database (a term found in nearly every
    row of a large snapshot)."""

    def execute(run, sql, params, many, context):
        if 'COUNT(*) AS "__count"' in sql:
            sql = f"SELECT counted.* FROM ({sql}) AS counted CROSS JOIN pg_sleep({seconds})"
        return run(sql, params, many, context)

    return connection.execute_wrapper(execute)


def test_a_search_count_may_outlast_the_request_limit_and_is_kept(client, feed, settings):
    # A public request waits 0.3 s for each answer, but the count of a search 5 s: given up on,
    # it would be given up on by every request after (nothing kept), a 503 for good.
    settings.DATABASE_ANSWER_LIMITS = {**settings.DATABASE_ANSWER_LIMITS, "public": 0.3}
    settings.DATABASE_ANSWER_LIMITS["search count"] = 5
    params = {"q": "public", "closing_bucket": "all"}
    with _slow_counts(0.6):
        first = client.get(URL, {**params, "limit": 2})
        assert first.status_code == 200, first.content
        total = first.json()["meta"]["total"]
        assert total > 2
        # Kept for the snapshot: the next request (another language and page size) is not
        # counted again, so it is not slow either.
        with CaptureQueriesContext(connection) as queries:
            again = client.get(URL, {**params, "lang": "zh"})
        assert again.status_code == 200, again.content
    assert again.json()["meta"]["total"] == total
    assert not [q for q in queries.captured_queries if 'COUNT(*) AS "__count"' in q["sql"]]


def test_a_withdrawal_is_seen_at_once_by_a_process_that_served_the_old_snapshot(client, feed):
    _, rows = feed
    gone = rows[0]["asaptic_id"]
    old = client.get(URL, {"closing_bucket": "all", "limit": 200}).json()
    assert gone in [row["asaptic_id"] for row in old["data"]]
    assert client.get(f"{URL}/{gone}").status_code == 200
    serving = answers.answer_cache()  # this process: it holds the old snapshot's answers
    answers.reset()  # the staff's process, which withdraws
    publication.withdraw_row(listing_id=gone, reason="leak")
    answers._cache = serving  # back to the process that served the old snapshot
    new = client.get(URL, {"closing_bucket": "all", "limit": 200}).json()
    assert new["meta"]["snapshot_etag"] != old["meta"]["snapshot_etag"]
    assert [row["asaptic_id"] for row in new["data"]] == [
        row["asaptic_id"] for row in old["data"] if row["asaptic_id"] != gone
    ]
    assert client.get(f"{URL}/{gone}").status_code == 404
    assert (
        client.get(URL + "/facets").json()["meta"]["snapshot_etag"] == new["meta"]["snapshot_etag"]
    )


def test_a_cursor_of_a_newer_issue_is_never_refused_by_a_process_that_served_the_old_one(
    client, feed, t0
):
    params = {"closing_bucket": "all", "limit": 2}
    old_cursor = client.get(URL, params).json()["meta"]["next_cursor"]
    assert client.get(URL, {**params, "cursor": old_cursor}).status_code == 200
    lagging = answers.answer_cache()
    answers.reset()
    current.forget()  # another process publishes and serves the new issue first
    publication.publish_issue(now=t0.replace(hour=7))
    new_cursor = client.get(URL, params).json()["meta"]["next_cursor"]
    answers._cache = lagging
    response = client.get(URL, {**params, "cursor": new_cursor})
    assert response.status_code == 200 and response.json()["meta"]["returned"] == 2
    assert client.get(URL, {**params, "cursor": old_cursor}).json()["error"]["code"] == (
        "snapshot_changed"
    )


def tables_read(queries) -> list[str]:
    tables = ("tenders_issue", "tenders_answer_cache", "tenders_snapshotrow", "tenders_issuecount")
    return [
        t
        for q in queries.captured_queries
        for t in tables
        if f'"{t}"' in q["sql"] or f" {t} " in q["sql"]
    ]


def test_publication_warms_the_first_pages_for_every_process(client, feed):
    answers.reset()  # a server process that has answered nothing yet
    client.get("/api/v1/health")  # it knows the issue now (health asks the database)
    calls = [
        lambda p=p: client.get(URL, p)
        for p in (
            {},
            {"market": "SG"},
            {"lang": "zht"},
            {"lang": "en", "limit": 200, "new": "true"},
        )
    ]
    calls.append(lambda: REGISTRY.call("list_tenders", {"market": "HK"}))
    calls.append(lambda: client.get("/zh-hant/tenders/"))
    calls.append(lambda: client.get("/feeds/tenders.atom"))
    for call in calls:
        with CaptureQueriesContext(connection) as queries:
            call()
        # answers from the shared tier: no rows or counts read, the current issue is known
        assert set(tables_read(queries)) == {"tenders_answer_cache"}


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_current_issue_check_is_the_connections_health_check(monkeypatch):
    connection.ensure_connection()
    assert connection.health_check_enabled  # CONN_HEALTH_CHECKS, as deployed
    checks = []
    monkeypatch.setattr(connection, "is_usable", lambda: checks.append(1) or True)
    # Whenever the question is asked (here always: fresh=True, as health asks)...
    connection.close_if_unusable_or_obsolete()  # a new request on the kept connection
    assert current.current_snapshot(fresh=True) is None and checks == []  # no SELECT 1 first
    connection.close_if_unusable_or_obsolete()
    connection.connection.close()  # the server went away since the last request
    assert current.current_snapshot(fresh=True) is None and checks == []  # reconnected, asked
    assert connection.connection is not None and not connection.connection.closed


# --- a shared tier that is missing or down --------------------------------------------------


def answers_warnings(caplog) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == ANSWERS_LOG and r.levelno == logging.WARNING
    ]


def test_a_missing_answer_table_costs_time_not_answers_with_one_warning(client, feed, caplog):
    params = {"q": "vaccines", "closing_bucket": "all", "lang": "en"}
    expected = get(client, URL, params)
    answers.reset()
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE tenders_answer_cache")
    with caplog.at_level(logging.WARNING, logger=ANSWERS_LOG):
        for _ in range(2):
            assert get(client, URL, params) == expected
            answers.answer_cache().local.clear()
        assert get(client, URL, {"market": "HK"})
    assert len(answers_warnings(caplog)) == 1
    assert "answering without it" in answers_warnings(caplog)[0]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_dead_redis_costs_time_not_answers_with_one_warning(client, feed, settings, caplog):
    expected = get(client, URL, {"market": "GB", "lang": "zht"})
    settings.CACHES = {
        **settings.CACHES,
        "answers": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        },
    }
    answers.reset()
    with caplog.at_level(logging.WARNING, logger=ANSWERS_LOG):
        for _ in range(3):
            assert get(client, URL, {"market": "GB", "lang": "zht"}) == expected
            answers.answer_cache().local.clear()
    assert len(answers_warnings(caplog)) == 1


# --- the shared tier in a real Redis --------------------------------------------------------


@pytest.fixture(scope="module")
def redis_server():
    """A Redis: the one on 127.0.0.1:6379 if it answers, else ``redis-server`` started on a
    spare port. Without either, the Redis tests are skipped (the in-process and database tiers
    are tested above)."""
    try:
        redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=1).ping()
    except redis.RedisError:
        pass
    else:
        yield "redis://127.0.0.1:6379/13"
        return
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("no Redis on 127.0.0.1:6379 and no redis-server to start")
    port = free_port()
    server = subprocess.Popen(
        [binary, "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis(host="127.0.0.1", port=port).ping()
                break
            except redis.RedisError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture
def answers_in_redis(settings, redis_server):
    prefix = f"tenders-test-{uuid.uuid4().hex[:8]}"
    settings.CACHES = {
        **settings.CACHES,
        "answers": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_server,
            "KEY_PREFIX": prefix,
            "TIMEOUT": 600,
        },
    }
    answers.reset()
    yield redis.Redis.from_url(redis_server), prefix
    client = redis.Redis.from_url(redis_server)
    for name in client.scan_iter(f"{prefix}:*"):
        client.delete(name)


def test_processes_share_answers_through_redis(
    client, feed, answers_in_redis, django_assert_num_queries
):
    server, prefix = answers_in_redis
    params = {"market": "EU", "closing_bucket": "all", "limit": 5}
    first = get(client, URL, params)  # computed by one process, kept in Redis
    assert any(server.scan_iter(f"{prefix}:*"))
    answers.reset()  # another process (or app server): its own memory is empty
    current.forget()
    with django_assert_num_queries(2):  # the current issue, its record; the answer: Redis
        assert get(client, URL, params) == first


def test_a_publication_warms_redis_for_every_app_server(
    client, feed, t0, answers_in_redis, django_assert_num_queries
):
    publication.publish_issue(now=t0.replace(hour=8))
    answers.reset()
    client.get("/api/v1/health")  # the process knows the current issue
    with django_assert_num_queries(0):  # the answer comes from Redis
        body = client.get(URL, {"market": "MO"}).json()
    with django_assert_num_queries(0):
        assert [
            row["asaptic_id"]
            for row in REGISTRY.call("list_tenders", {"market": "MO"})["structuredContent"]["data"]
        ] == [row["asaptic_id"] for row in body["data"][:10]]

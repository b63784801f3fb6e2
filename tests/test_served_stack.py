"""The served stack (gunicorn with the run command's settings) on a throwaway PostgreSQL cluster
of its own: chunked request bodies, then the whole server frozen by SIGSTOP (a hung primary or
a partition: the kernel still accepts connections and acknowledges bytes, nothing answers),
then thawed.

The cluster is started the way ``dev.py test`` starts one (initdb/pg_ctl, as the ``postgres``
account when run as root), so freezing it touches no other database on the machine.
"""

import contextlib
import http.client
import importlib.util
import json
import os
import runpy
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote, urlencode

import psycopg
import pytest

from tenders.read import cursors
from tenders.read.filters import parse_list_params
from tenders.read.query import Vocabulary

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

# Each request must be answered within these seconds (the client gives up after them, which
# fails the test): health within 2 s, every other surface within 3 s.
HEALTH_WITHIN = 2.0
SURFACE_WITHIN = 3.0


def _dev():
    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Stack:
    def __init__(self, base: str, cluster, log: Path, database_url: str = ""):
        self.base = base
        self.cluster = cluster
        self.log = log
        self.database_url = database_url

    def request(self, path, *, method="GET", body=None, headers=None, within=SURFACE_WITHIN):
        """(status, headers, body bytes, seconds taken)."""
        request = urllib.request.Request(
            self.base + path, data=body, method=method, headers=headers or {}
        )
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=within) as response:
                answer = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            answer = error.code, error.headers, error.read()
        return (*answer, time.monotonic() - started)

    def postgres_pids(self) -> list[int]:
        """The postmaster and every process it started (none if it never started)."""
        pid_file = self.cluster.dir / "data" / "postmaster.pid"
        if not pid_file.exists():
            return []
        postmaster = int(pid_file.read_text().split()[0])
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == postmaster:
                children.append(int(stat.parent.name))
        return [postmaster, *children]

    def signal_postgres(self, signum: int) -> None:
        for pid in self.postgres_pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    dev = _dev()
    cluster = dev.ThrowawayCluster()
    if not cluster.available():
        pytest.fail("initdb and pg_ctl are needed (the Debian package 'postgresql')")
    tmp = tmp_path_factory.mktemp("stack")
    port = dev.free_port()
    env = {
        **os.environ,
        # initdb makes the "postgres" database (with C.UTF-8 character classes); use it.
        "DATABASE_URL": cluster.start().rsplit("/", 1)[0] + "/postgres",
        "TENDERS_VAR_DIR": str(tmp),
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "2",
        "RFQ_RATE_LIMIT": "",
    }
    server = None
    log = tmp / "gunicorn.log"
    output = log.open("w")
    try:
        for command in (
            # migrate makes every table, the caches' too (no createcachetable).
            ["migrate", "--noinput", "-v", "0"],
            ["load_demo", "--rows", "40", "--replace", "-v", "0"],
            ["publish_issue", "--at", "2026-11-23T06:00:00Z", "-v", "0"],
        ):
            subprocess.run(
                [sys.executable, "manage.py", *command],
                cwd=ROOT,
                env=env,
                check=True,
            )
        server = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("gunicorn")),
                "-c",
                "config/gunicorn.conf.py",
                "config.wsgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        stack = Stack(f"http://127.0.0.1:{port}", cluster, log, env["DATABASE_URL"])
        stack.env = env
        deadline = time.monotonic() + 60
        while True:
            try:
                if stack.request("/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                pytest.fail("gunicorn did not start:\n" + log.read_text())
            time.sleep(0.3)
        yield stack
    finally:
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        output.close()
        if cluster.dir:
            Stack("", cluster, log).signal_postgres(signal.SIGCONT)
        cluster.stop()


def mcp_call(stack: Stack, tool: str, arguments: dict, *, within=SURFACE_WITHIN):
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    return stack.request(
        "/mcp",
        method="POST",
        body=json.dumps(message).encode(),
        headers={"Content-Type": "application/json", "MCP-Protocol-Version": "2025-11-25"},
        within=within,
    )


def post_chunked(stack: Stack, path: str, parts: list[bytes], **headers) -> tuple[int, dict]:
    host, port = stack.base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=SURFACE_WITHIN)
    try:
        connection.request(
            "POST",
            path,
            body=iter(parts),
            headers={"Content-Type": "application/json", **headers},
            encode_chunked=True,
        )
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_chunked_bodies_are_read_by_the_intake_and_the_tool_server(stack):
    parts = [b'{"product": "Chunked pumps", ', b'"buyer_contact": "b@example.com"}']
    key = {"Idempotency-Key": "chunked-1"}
    status, receipt = post_chunked(stack, "/rfq", parts, **key)
    assert status == 200 and receipt["received"] is True
    # Stored: a plain retry of the same content under the key replays that very record.
    status, _, replay, _ = stack.request(
        "/rfq",
        method="POST",
        body=b"".join(parts),
        headers={"Content-Type": "application/json", **key},
    )
    assert (status, json.loads(replay)) == (200, receipt)
    ping = [b'{"jsonrpc": "2.0", "id": 1, ', b'"method": "ping"}']
    assert post_chunked(stack, "/mcp", ping) == (200, {"jsonrpc": "2.0", "id": 1, "result": {}})
    # Strict on both: a repeated member is refused, never "last wins".
    twice = [b'{"jsonrpc": "2.0", "id": 1, "method": "ping", ', b'"method": "tools/list"}']
    status, answer = post_chunked(stack, "/mcp", twice)
    assert (status, answer["error"]["code"]) == (400, -32700)


def test_the_longest_legitimate_request_fits_far_below_the_front_servers_limit(stack):
    """Every filter with every category in its longest spelling, a 200-character Chinese q
    and a cursor: answered by the API (not a 414 from gunicorn), in under half of gunicorn's
    request-line limit. Beyond that limit the front server refuses, as documented."""
    categories = json.loads(stack.request("/api/v1/tenders/facets")[2])["data"]["categories"]
    spellings = [
        max((c["name_en"], c["name_zh"], c["name_zht"]), key=lambda n: len(quote(n)))
        for c in categories
    ]
    params = {
        "market": "HK,MO,SG,GB,EU,AU,CA",
        "category": ",".join(spellings),
        "closing_bucket": "all",
        "value_band": "lt_500k,500k_2m,2m_10m,gt_10m,unspecified",
        "new": "true",
        "lead_ok": "true",
        "q": "醫" * 200,
        "lang": "zht",
        "limit": "200",
    }
    with psycopg.connect(stack.database_url) as connection:
        pk, etag = connection.execute(
            "SELECT id, snapshot_etag FROM tenders_issue WHERE is_current"
        ).fetchone()
    canonical = parse_list_params(
        params, Vocabulary.from_facets({"categories": categories})
    ).filters_key()
    cursor = cursors.encode(cursors.Cursor(pk, etag, cursors.fingerprint(canonical), "0" * 64, 0))
    url = "/api/v1/tenders?" + urlencode({**params, "cursor": cursor})
    line = f"GET {url} HTTP/1.1"
    print(f"\nlongest legitimate request line: {len(line)} bytes")
    assert len(line) <= limit_request_line() // 2
    status, _, body, _ = stack.request(url)
    assert (status, json.loads(body)["meta"]["returned"]) == (200, 0)
    # An oversized cursor is the API's own JSON error...
    status, _, body, _ = stack.request("/api/v1/tenders?cursor=" + "A" * 4200)
    assert (status, json.loads(body)["error"]["code"]) == (400, "invalid_cursor")
    # ... and past the documented limit the front server answers 414.
    assert stack.request("/api/v1/tenders?q=" + "x" * limit_request_line())[0] == 414


def limit_request_line() -> int:
    settings = runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))
    return settings["limit_request_line"]


def test_every_worker_serves_a_new_snapshot_at_once(stack):
    """Two gunicorn workers keep answers of the current snapshot in memory (and in the shared
    tier, a table that migrate made): a publication is seen by the very next request, whichever
    worker answers, and a cursor of the new snapshot is never refused as stale."""

    def page(path: str) -> tuple[str, dict]:
        status, headers, body, _ = stack.request(path)
        assert status == 200, body
        return headers["ETag"], json.loads(body)

    def listed() -> set[str]:
        status, _, body, _ = mcp_call(stack, "list_tenders", {"limit": 3})
        assert status == 200
        return {json.loads(body)["result"]["structuredContent"]["meta"]["snapshot_etag"]}

    old = {page("/api/v1/tenders?limit=3")[0] for _ in range(10)}
    assert len(old) == 1 and len(set.union(*(listed() for _ in range(6)))) == 1
    subprocess.run(
        [sys.executable, "manage.py", "publish_issue", "--at", "2026-11-23T07:00:00Z", "-v", "0"],
        cwd=ROOT,
        env=stack.env,
        check=True,
    )
    etag, first = page("/api/v1/tenders?limit=3")
    assert etag not in old and first["meta"]["snapshot_etag"] == etag.strip('"')
    assert {page("/api/v1/tenders?limit=3")[0] for _ in range(10)} == {etag}
    assert set.union(*(listed() for _ in range(6))) == {etag.strip('"')}
    cursor = first["meta"]["next_cursor"]
    for _ in range(10):
        assert page(f"/api/v1/tenders?limit=3&cursor={cursor}")[1]["meta"]["returned"] == 3
    assert "answer cache" not in stack.log.read_text()
    with psycopg.connect(stack.database_url) as connection:
        kept = connection.execute("SELECT count(*) FROM tenders_answer_cache").fetchone()[0]
        limits = connection.execute("SELECT to_regclass('django_cache')").fetchone()[0]
    assert kept > 0  # warmed at publication, filled by the workers
    assert limits == "django_cache"  # the rate limits' table, made by migrate too


def test_a_frozen_database_is_answered_fast_and_the_service_recovers(stack):
    # Every worker holds a connection to the server that is about to hang.
    for _ in range(6):
        assert stack.request("/api/v1/tenders?limit=1")[0] == 200
        assert mcp_call(stack, "tender_facets", {})[0] == 200
    held = {}
    for path in ("/api/v1/tenders/facets", "/tender/rows.json"):
        status, _, held[path], _ = stack.request(path)
        assert status == 200
    stack.signal_postgres(signal.SIGSTOP)
    try:
        taken = {}
        unavailable = {
            "error": {
                "code": "service_unavailable",
                "message": "The service cannot reach its database just now; try again in 10 "
                "seconds.",
            }
        }
        for path in ("/api/v1/health", "/healthz"):
            status, headers, body, taken[path] = stack.request(path, within=HEALTH_WITHIN)
            assert (status, json.loads(body)["status"]) == (503, "unavailable")
            assert headers["Content-Type"] == "application/json"
        # What no worker has answered yet needs the database: 503.
        for path in ("/api/v1/tenders?limit=5", "/api/v1/tenders/AT-TEST-0000000001"):
            status, headers, body, taken[path] = stack.request(path)
            assert (status, json.loads(body)) == (503, unavailable), path
            assert headers["Retry-After"] == "10"
        # What a worker holds in memory it may serve (it knows the current issue, and nothing
        # can switch while the database is frozen); a worker that does not hold it says 503.
        for path in ("/api/v1/tenders/facets", "/tender/rows.json"):
            status, headers, body, taken[path] = stack.request(path)
            if status == 200:
                assert body == held[path], path
            else:
                assert (status, json.loads(body)) == (503, unavailable), path
                assert headers["Retry-After"] == "10"
        status, _, body, taken["/agent/capabilities.json"] = stack.request(
            "/agent/capabilities.json"
        )
        assert (status, json.loads(body)["error"]["code"]) == (503, "service_unavailable")
        status, headers, body, taken["POST /rfq"] = stack.request(
            "/rfq",
            method="POST",
            body=json.dumps({"product": "Pumps", "buyer_contact": "b@example.com"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        assert (status, json.loads(body)["error"]["code"]) == (503, "service_unavailable")
        # A tool call: a tool error with the same body and its retry hint, not -32603.
        status, _, body, taken["MCP list_tenders"] = mcp_call(stack, "list_tenders", {})
        result = json.loads(body)["result"]
        assert (status, result["isError"]) == (200, True)
        assert json.loads(result["content"][0]["text"]) == unavailable
        # Whatever needs no database keeps answering.
        for path in (
            "/openapi.json",
            "/llms.txt",
            "/.well-known/mcp.json",
            "/mcp",
            "/schema/service.tender.v1.json",
            "/api/v1/spec-coded/AT-TEST-0000000001",
        ):
            status, _, _, taken[path] = stack.request(path)
            assert status == (403 if "spec-coded" in path else 200), path
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"\nanswered while PostgreSQL was frozen (seconds; load average {load}):")
        for what, seconds in taken.items():
            print(f"  {seconds:5.2f}  {what}")
    finally:
        stack.signal_postgres(signal.SIGCONT)
    # Recovery by itself: the next requests connect afresh.
    deadline = time.monotonic() + 20
    while stack.request("/api/v1/health")[0] != 200:
        assert time.monotonic() < deadline, "the service did not recover"
        time.sleep(0.2)
    status, _, body, _ = stack.request("/api/v1/tenders?limit=2")
    assert status == 200 and len(json.loads(body)["data"]) == 2
    status, _, body, _ = mcp_call(stack, "list_tenders", {"limit": 2})
    assert status == 200 and json.loads(body)["result"]["isError"] is False
    # No worker was killed for hanging: every request was answered by the application.
    assert "WORKER TIMEOUT" not in stack.log.read_text()

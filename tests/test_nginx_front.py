"""The shipped nginx front (``deploy/nginx/tenders.conf``) before two gunicorn servers on a
throwaway PostgreSQL cluster: the micro-cache, what passes uncached, protocol errors as JSON,
a killed app server, and a publication reaching readers through it.

nginx runs this very file with only its three "edit:" lines changed (the app servers, the
cache folder, the listen address). Debian's ``nginx`` is needed; ``dev.py test`` installs it.
"""

import concurrent.futures
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from core import middleware
from tests.served import dev, local_nginx, start_gunicorn, wait_for

ROOT = Path(__file__).resolve().parent.parent
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

pytestmark = pytest.mark.slow


class Front:
    def __init__(self, base: str, servers: dict, logs: dict, env: dict):
        self.base, self.servers, self.logs, self.env = base, servers, logs, env

    def get(self, path: str, headers: dict | None = None, *, method="GET", body=None):
        request = urllib.request.Request(
            self.base + path, data=body, method=method, headers=headers or {}
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    def upstream_hits(self, fragment: str, expected: int) -> int:
        """How many requests whose line holds ``fragment`` the app servers logged. A server
        logs just after it answers: wait 0.2 s, then up to 1 s for ``expected`` to be reached
        (a larger count is returned as soon as it is seen)."""
        time.sleep(0.2)
        deadline = time.monotonic() + 1
        while True:
            count = sum(log.read_text().count(fragment) for log in self.logs.values())
            if count >= expected or time.monotonic() > deadline:
                return count
            time.sleep(0.05)


@pytest.fixture(scope="module")
def front(tmp_path_factory):
    if not Path(NGINX).exists():
        pytest.fail("nginx is needed (Debian's package 'nginx'; dev.py test installs it as root)")
    cluster = dev.ThrowawayCluster()
    if not cluster.available():
        pytest.fail("initdb and pg_ctl are needed (the Debian package 'postgresql')")
    tmp = tmp_path_factory.mktemp("front")
    processes: list[subprocess.Popen] = []
    nginx_conf = tmp / "nginx.conf"  # written below; stopped in finally if it exists
    try:
        env = {
            **os.environ,
            "DATABASE_URL": cluster.start().rsplit("/", 1)[0] + "/postgres",
            "TENDERS_VAR_DIR": str(tmp),
            "WEB_CONCURRENCY": "2",
            "RFQ_RATE_LIMIT": "",
        }
        for command in (
            ["migrate", "--noinput", "-v", "0"],
            ["load_demo", "--rows", "60", "--replace", "-v", "0"],
            ["publish_issue", "-v", "0"],
        ):
            subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True)
        ports = {"a": dev.free_port(), "b": dev.free_port()}
        logs = {name: tmp / f"gunicorn-{name}.log" for name in ports}
        # Each server has a folder of its own, as on machines of their own: nothing on disk is
        # shared (the flat file is in the database).
        servers = {
            name: start_gunicorn({**env, "TENDERS_VAR_DIR": str(tmp / name)}, port, logs[name])
            for name, port in ports.items()
        }
        processes += servers.values()
        for name, port in ports.items():
            wait_for(f"http://127.0.0.1:{port}/healthz", servers[name], f"gunicorn {name}")
        listen = dev.free_port()
        nginx_conf = local_nginx.write(tmp, list(ports.values()), listen)
        subprocess.run([NGINX, "-t", "-q", "-c", nginx_conf, "-p", tmp], check=True)
        subprocess.run([NGINX, "-c", nginx_conf, "-p", tmp], check=True)
        wait_for(f"http://127.0.0.1:{listen}/healthz", None, "nginx")
        front = Front(f"http://127.0.0.1:{listen}", servers, logs, env)
        front.ports = ports
        yield front
    finally:
        if nginx_conf.exists():
            subprocess.run([NGINX, "-c", nginx_conf, "-p", tmp, "-s", "stop"], check=False)
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        cluster.stop()


def test_the_json_paths_are_the_apps_own():
    """nginx's map of JSON paths is the middleware's list (JSON_PREFIXES, JSON_PATHS)."""
    text = local_nginx.SITE.read_text()
    block = text[text.index("map $uri $tenders_error {") :]
    block = block[: block.index("}")]
    prefixes = re.search(r"~\^/\(([^)]+)\)/ json;", block).group(1).split("|")
    paths = set(re.findall(r"^\s+(/\S+) json;", block, flags=re.MULTILINE))
    assert sorted(f"/{p}/" for p in prefixes) == sorted(middleware.JSON_PREFIXES)
    assert paths == set(middleware.JSON_PATHS)


def test_a_burst_of_one_request_reaches_the_app_once(front):
    path = "/api/v1/tenders?limit=3&market=HK&lang=en"
    # Start just after a second turns, so the whole burst falls within one second's key.
    time.sleep(1 - time.time() % 1 + 0.02)
    with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(lambda _: front.get(path), range(40)))
    assert {status for status, _, _ in answers} == {200}
    assert len({body for _, _, body in answers}) == 1
    assert front.upstream_hits("GET /api/v1/tenders?limit=3&market=HK&lang=en ", 1) == 1
    statuses = sorted(headers["X-Micro-Cache"] for _, headers, _ in answers)
    assert statuses.count("MISS") == 1, statuses
    # The same path a second later is asked again: no answer outlives its second.
    time.sleep(1.05)
    assert front.get(path)[1]["X-Micro-Cache"] == "MISS"
    assert front.upstream_hits("GET /api/v1/tenders?limit=3&market=HK&lang=en ", 2) == 2


def test_staff_intakes_tools_and_health_pass_uncached(front):
    for path in ("/admin/login/", "/healthz", "/api/v1/health", "/tender/rows.json"):
        status, headers, _ = front.get(path)
        assert status == 200 and "X-Micro-Cache" not in headers, path
    mcp = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    status, headers, body = front.get(
        "/mcp",
        {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        method="POST",
        body=mcp,
    )
    assert status == 200 and json.loads(body)["id"] == 1 and "X-Micro-Cache" not in headers
    # A visitor holding a session or a CSRF cookie is never served from, or stored in, the cache.
    for cookie in ("sessionid=abc", "csrftoken=abc"):
        status, headers, _ = front.get("/api/v1/tenders/facets", {"Cookie": cookie})
        assert status == 200 and headers["X-Micro-Cache"] == "BYPASS", cookie


def test_the_flat_file_is_served_whole_by_either_server(front):
    """Written by the publishing command, read by two servers that share no folder."""
    _, _, through = front.get("/tender/rows.json")
    for port in front.ports.values():
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/tender/rows.json") as direct:
            assert direct.read() == through
    assert json.loads(through)["total"] == len(json.loads(through)["rows"]) > 0


def raw(front: Front, request: bytes) -> tuple[int, str, bytes]:
    """Send bytes as they are; (status, content type, body)."""
    host, port = front.base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(request)
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    if fields.get("Transfer-Encoding") == "chunked":
        size, _, rest = body.partition(b"\r\n")
        body = rest[: int(size, 16)]
    return int(lines[0].split()[1]), fields.get("Content-Type", ""), body


HOSTILE = [
    # (what, request bytes, status) — each on a JSON path must get the API's error body.
    ("request line over 8 KB", b"GET /api/v1/tenders?q=" + b"a" * 9000 + b" HTTP/1.1\r\n", 414),
    ("header over 8 KB", b"GET /api/v1/tenders HTTP/1.1\r\nX-Big: " + b"b" * 9000 + b"\r\n", 400),
    (
        "headers over 32 KB",
        b"GET /mcp HTTP/1.1\r\n" + b"".join(b"X-H%d: %s\r\n" % (i, b"d" * 7000) for i in range(6)),
        400,
    ),
    ("not HTTP", b"HELLO THERE\r\n", 400),
    ("unknown version", b"GET /api/v1/tenders HTTP/9.9\r\n", 505),
    ("body over 1 MB", b"POST /rfq HTTP/1.1\r\nContent-Length: 2000000\r\n", 413),
    ("bad Host", b"GET /api/v1/tenders HTTP/1.1\r\nHost: evil.example\r\n", 400),
    ("space in path", b"GET /api/v1/ten ders HTTP/1.1\r\n", 400),
    ("NUL in path", b"GET /tender/rows.json%00 HTTP/1.1\r\n", 400),
]


@pytest.mark.parametrize("what, start, status", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_protocol_errors_come_back_as_json_on_json_paths(front, what, start, status):
    request = start
    if b"Host:" not in request and b"HTTP/1.1" in request:
        request += b"Host: 127.0.0.1\r\n"
    request += b"Connection: close\r\n\r\n"
    got, content_type, body = raw(front, request)
    assert got == status, (got, body[:200])
    assert content_type.startswith("application/json"), (content_type, body[:200])
    error = json.loads(body)["error"]
    assert error["code"] in {"bad_request", "invalid_body", "not_found"} and error["message"]


def test_a_protocol_error_on_a_page_is_a_page(front):
    request = b"GET /en/tenders/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"b" * 9000
    status, content_type, body = raw(front, request + b"\r\nConnection: close\r\n\r\n")
    assert status == 400 and content_type.startswith("text/plain")
    assert body.decode().startswith("Bad request")


def test_a_killed_app_server_loses_no_request(front):
    """Server b dies; every request after it, cached or not, is answered by a."""
    os.killpg(front.servers["b"].pid, signal.SIGKILL)
    front.servers["b"].wait(timeout=10)
    answers = [front.get(f"/api/v1/tenders?limit={n % 20 + 1}&lang=zh") for n in range(40)]
    answers += [
        front.get(
            "/mcp",
            {"Content-Type": "application/json"},
            method="POST",
            body=b'{"jsonrpc":"2.0","id":2,"method":"ping"}',
        )
        for _ in range(10)
    ]
    assert [status for status, _, _ in answers] == [200] * 50


def test_a_publication_reaches_readers_through_the_front_within_two_seconds(front):
    path = "/api/v1/tenders?limit=5"
    before = json.loads(front.get(path)[2])["meta"]["snapshot_etag"]
    subprocess.run(
        [sys.executable, "manage.py", "publish_issue", "-v", "0"],
        cwd=ROOT,
        env={**front.env, "BIND": ""},
        check=True,
    )
    published = time.monotonic()
    etag = before
    while etag == before and time.monotonic() - published < 5:
        etag = json.loads(front.get(path)[2])["meta"]["snapshot_etag"]
    seen_after = time.monotonic() - published
    assert etag != before
    assert seen_after <= 2.0, f"the new issue reached the reader after {seen_after:.2f} s"

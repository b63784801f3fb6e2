"""Several machines on one: a primary and a streaming replica (two clusters, pg_basebackup), two
gunicorn servers (b reads the snapshot from the replica), one job worker, the shipped nginx in
front. Through nginx: a publication by the worker reaches every reader within 2 s, a crawl
across it has no duplicate and no missing row, stopping the replica sends b's reads to the
primary within 2 s, and stopping the primary gives JSON 503s and recovery without a restart.
"""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import psycopg
import pytest

from tests.served import ROOT, Replica, dev, local_nginx, start_gunicorn, wait_for

pytestmark = pytest.mark.slow
NGINX = "/usr/sbin/nginx"


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


class Machines:
    pass


@pytest.fixture(scope="module")
def machines(tmp_path_factory):
    primary = dev.ThrowawayCluster()
    if not primary.available():
        pytest.fail("initdb and pg_ctl are needed (the Debian package 'postgresql')")
    tmp = tmp_path_factory.mktemp("machines")
    processes: list[subprocess.Popen] = []
    replica = nginx_conf = None
    try:
        url = primary.start().rsplit("/", 1)[0] + "/postgres"
        env = {**os.environ, "DATABASE_URL": url, "TENDERS_VAR_DIR": str(tmp / "worker")}
        env.update(WEB_CONCURRENCY="2", RFQ_RATE_LIMIT="")
        for command in (
            ["migrate", "--noinput", "-v", "0"],
            ["load_demo", "--rows", "90", "--replace", "-v", "0"],
            ["publish_issue", "-v", "0"],
        ):
            subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True)
        replica = Replica(primary)
        m = Machines()
        m.primary, m.replica, m.env, m.tmp = primary, replica, env, tmp
        m.ports = {"a": dev.free_port(), "b": dev.free_port()}
        m.logs = {name: tmp / f"gunicorn-{name}.log" for name in m.ports}
        own = {
            "a": {"TENDERS_VAR_DIR": str(tmp / "a")},
            "b": {"TENDERS_VAR_DIR": str(tmp / "b"), "DATABASE_REPLICA_URLS": replica.url},
        }
        m.servers = {
            name: start_gunicorn({**env, **own[name]}, port, m.logs[name])
            for name, port in m.ports.items()
        }
        processes += m.servers.values()
        worker_log = (tmp / "worker.log").open("w")
        m.worker = subprocess.Popen(
            [sys.executable, "manage.py", "run_worker", "--no-startup-delay"],
            cwd=ROOT,
            env=env,
            stdout=worker_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        processes.append(m.worker)
        for name, port in m.ports.items():
            wait_for(f"http://127.0.0.1:{port}/healthz", m.servers[name], f"gunicorn {name}")
        listen = dev.free_port()
        nginx_conf = local_nginx.write(tmp, list(m.ports.values()), listen)
        subprocess.run([NGINX, "-c", nginx_conf, "-p", tmp], check=True)
        m.front = f"http://127.0.0.1:{listen}"
        m.direct = {name: f"http://127.0.0.1:{port}" for name, port in m.ports.items()}
        wait_for(f"{m.front}/healthz", None, "nginx")
        yield m
    finally:
        if nginx_conf is not None:
            subprocess.run([NGINX, "-c", nginx_conf, "-p", tmp, "-s", "stop"], check=False)
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=60)
        if replica is not None:
            with contextlib.suppress(subprocess.CalledProcessError):
                replica.pause()
        primary.stop()


def replica_queries_since(m, since=None):
    """The replica's clock now, or how many client connections to it (only server b makes them)
    ran a query after `since`. Counting connections alone proved flaky: b's workers keep theirs
    open, so a request can reach the replica through a connection that was already there."""
    with psycopg.connect(m.replica.url, autocommit=True) as db:
        if since is None:
            return db.execute("SELECT clock_timestamp()").fetchone()[0]
        return db.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = 'postgres' "
            "AND backend_type = 'client backend' AND pid <> pg_backend_pid() "
            "AND query_start > %s",
            [since],
        ).fetchone()[0]


def publish_by_the_worker(m) -> None:
    queued = subprocess.run(
        [sys.executable, "manage.py", "publish_issue", "--enqueue"],
        cwd=ROOT,
        env=m.env,
        capture_output=True,
        text=True,
        check=True,
    )
    job = int(queued.stdout.split("job #", 1)[1].split(";", 1)[0])
    deadline = time.monotonic() + 90
    with psycopg.connect(m.env["DATABASE_URL"], autocommit=True) as db:
        while time.monotonic() < deadline:
            state = db.execute("SELECT state FROM tenders_job WHERE id = %s", [job]).fetchone()[0]
            if state in {"succeeded", "failed"}:
                break
            time.sleep(0.1)
    assert state == "succeeded", (m.tmp / "worker.log").read_text()[-3000:]


def etag_of(base: str, limit: int = 5) -> str:
    status, body = get(f"{base}/api/v1/tenders?limit={limit}")
    assert status == 200, body
    return body["meta"]["snapshot_etag"]


def test_server_b_reads_the_snapshot_from_the_replica(machines):
    since = replica_queries_since(machines)
    for limit in range(1, 8):  # new answers each: they reach the database
        assert get(f"{machines.direct['b']}/api/v1/tenders?limit={limit}&lang=en")[0] == 200
    assert replica_queries_since(machines, since) >= 1
    health = get(f"{machines.direct['b']}/api/v1/health")[1]
    assert health["status"] == "ok" and "reasons" not in health


def test_a_publication_by_the_worker_reaches_every_reader_within_two_seconds(machines):
    before = etag_of(machines.front)
    publish_by_the_worker(machines)
    published = time.monotonic()
    seen = {}
    while len(seen) < 3 and time.monotonic() - published < 5:
        for name, base in {"front": machines.front, **machines.direct}.items():
            if name not in seen and etag_of(base, limit=3) != before:
                seen[name] = time.monotonic() - published
        time.sleep(0.05)
    assert set(seen) == {"front", "a", "b"}, seen
    assert max(seen.values()) <= 2.0, seen


def crawl(base: str, *, during=None) -> tuple[list[str], str]:
    """Every id of one snapshot (closed ones too, as the flat file), 7 a page; a 409 starts
    again from page 1.
    ``during`` runs once, after the first page."""
    ids, cursor, etag = [], None, None
    while True:
        url = f"{base}/api/v1/tenders?limit=7&lang=en&closing_bucket=all"
        url += f"&cursor={cursor}" if cursor else ""
        status, body = get(url)
        if status == 409:
            assert body["error"]["code"] == "snapshot_changed"
            ids, cursor = [], None
            continue
        assert status == 200, body
        ids += [row["asaptic_id"] for row in body["data"]]
        etag = body["meta"]["snapshot_etag"]
        if during is not None:
            during()
            during = None
        cursor = body["meta"]["next_cursor"]
        if not cursor:
            return ids, etag


def test_a_crawl_across_a_publication_has_no_duplicate_and_no_missing_row(machines):
    ids, etag = crawl(machines.front, during=lambda: publish_by_the_worker(machines))
    with urllib.request.urlopen(f"{machines.front}/tender/rows.json") as response:
        flat = json.loads(response.read())
    assert etag == etag_of(machines.front)
    assert len(ids) == len(set(ids)) == flat["total"]
    assert set(ids) == {row["asaptic_id"] for row in flat["rows"]}


def test_stopping_the_replica_sends_reads_to_the_primary_within_two_seconds(machines):
    machines.replica.pause()
    try:
        # From the first request on: new answers each, so each reaches a database.
        answers = [
            get(f"{machines.direct['b']}/api/v1/tenders?limit={limit}")[0] for limit in range(8, 40)
        ]
        assert answers == [200] * 32
        health = get(f"{machines.direct['b']}/api/v1/health")[1]
        assert health["status"] == "degraded"
        assert [r["code"] for r in health["reasons"]] == ["replica_lagging"]
    finally:
        machines.replica.resume()
    deadline = time.monotonic() + 10
    while get(f"{machines.direct['b']}/api/v1/health")[1]["status"] != "ok":
        assert time.monotonic() < deadline, "server b did not take the replica back"
        time.sleep(0.5)


def test_stopping_the_primary_gives_json_503s_and_recovery_without_a_restart(machines):
    machines.primary.pause()
    try:
        time.sleep(1.1)  # past the front's micro-cache
        for path in ("/api/v1/tenders?limit=41", "/api/v1/health", "/tender/rows.json"):
            status, body = get(machines.front + path)
            assert status == 503, (path, body)
            assert "error" in body or body.get("status") == "unavailable", body
    finally:
        machines.primary.resume()
    deadline = time.monotonic() + 30
    while get(f"{machines.front}/api/v1/tenders?limit=42")[0] != 200:
        assert time.monotonic() < deadline, "no recovery within 30 s"
        time.sleep(0.5)
    assert all(get(f"{base}/healthz")[0] == 200 for base in machines.direct.values())
    assert machines.worker.poll() is None or machines.worker.returncode == 1

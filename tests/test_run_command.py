"""The README's run command, end to end, on the embedded SQLite default."""

import json
import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url: str):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.headers, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read())


def fetch_status(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.headers, response.read()


def test_run_command_serves_the_demo_on_sqlite(tmp_path):
    port = free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "SECRET_KEY", "TENDERS_SORT_KEY_SECRET", "DJANGO_DEBUG"}
    }
    env.update(PORT=str(port), TENDERS_VAR_DIR=str(tmp_path), DEMO_ROWS="300", WEB_CONCURRENCY="2")
    # curation: the demo staff account comes from the environment, never from the repo.
    env.update(
        DJANGO_SUPERUSER_USERNAME="curator", DJANGO_SUPERUSER_PASSWORD=secrets.token_urlsafe(12)
    )
    log = open(tmp_path / "run.log", "w")  # noqa: SIM115 (closed in finally)
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "dev.py"), "run"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 240
        status = body = None
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail("run command exited:\n" + (tmp_path / "run.log").read_text())
            try:
                status, headers, body = fetch(f"http://127.0.0.1:{port}/healthz")
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.5)
        assert status == 200, (tmp_path / "run.log").read_text()
        assert body["status"] == "ok" and body["schema"] == "service.tender.v1"
        assert body["rows_total"] > 200 and body["feed_fresh"] is True
        assert headers["Cache-Control"] == "no-store"
        assert (tmp_path / "db.sqlite3").exists()
        output = (tmp_path / "run.log").read_text()
        assert "Created 300 demo records" in output and "Published: issue" in output
        assert f"http://127.0.0.1:{port}/api/v1/tenders" in output
        assert "Creating staff account curator" in output
        with sqlite3.connect(tmp_path / "db.sqlite3") as db:
            staff = db.execute(
                "SELECT is_staff, is_superuser FROM auth_user WHERE username = 'curator'"
            ).fetchall()
        assert staff == [(1, 1)]
        status, _, _ = fetch_status(f"http://127.0.0.1:{port}/admin/login/")
        assert status == 200
        _served_like_a_deployment(port)
        _manage_py_finds_the_run_commands_secrets(port, env, tmp_path)

        _a_worker_beside_the_server_publishes(env, tmp_path, body)

        # Ctrl-C reaches the run command alone (its children have groups of their own); it
        # stops the server and the worker, and nothing of ours is left running.
        os.killpg(process.pid, signal.SIGINT)
        assert process.wait(timeout=30) == 0
        assert ours(tmp_path) == []
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        log.close()


def _served_like_a_deployment(port: int) -> None:
    """DEBUG is off: no debug page reveals settings, paths or URL patterns; static files are
    still served (by WhiteNoise) so the admin keeps its styles."""
    base = f"http://127.0.0.1:{port}"
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{base}/no-such-page", timeout=5)
    page = missing.value.read().decode()
    assert missing.value.code == 404
    assert "URLconf" not in page and "DEBUG = True" not in page and "urlpatterns" not in page
    status, headers, css = fetch_status(f"{base}/static/admin/css/base.css")
    assert status == 200 and headers["Content-Type"].startswith("text/css") and len(css) > 1000
    # A bad Host header: Django's DisallowedHost, which with DEBUG on showed the settings dump.
    request = urllib.request.Request(
        f"{base}/mcp",
        data=b"{}",
        headers={"Host": "evil.example", "Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    body = refused.value.read().decode()
    assert refused.value.code == 400
    assert "ALLOWED_HOSTS" not in body and "SECRET" not in body and "Traceback" not in body


def _manage_py_finds_the_run_commands_secrets(port: int, env: dict, tmp_path) -> None:
    """manage.py in a new shell (no secrets in its environment) signs with the run command's
    keys: it reads a cursor the server made."""
    _, _, page = fetch(f"http://127.0.0.1:{port}/api/v1/tenders?limit=1")
    cursor = page["meta"]["next_cursor"]
    assert cursor
    assert "SECRET_KEY" not in env and (tmp_path / "dev-secrets.json").exists()
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "manage.py"),
            "shell",
            "--no-imports",
            "-c",
            f"from tenders.read import cursors; print(cursors.decode({cursor!r}).total)",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(page["meta"]["total"])


def _a_worker_beside_the_server_publishes(env: dict, tmp_path, health: dict) -> None:
    """The worker takes a publication queued from the command line off the SQLite queue."""
    queued = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "publish_issue", "--enqueue"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    # Job #1 builds the search postings of the first issue (queued as it became current).
    assert queued.stdout.startswith("Queued the publication as job #2;"), queued.stderr
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with sqlite3.connect(tmp_path / "db.sqlite3") as db:
            state, message = db.execute(
                "SELECT state, message FROM tenders_job WHERE id = 2"
            ).fetchone()
        if state in {"succeeded", "failed"}:
            break
        time.sleep(0.3)
    assert state == "succeeded", message + (tmp_path / "run.log").read_text()
    assert message.startswith(f"Published {health['issue_id']}: {health['rows_total']:,} rows (")
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        kind, state, message = db.execute(
            "SELECT kind, state, message FROM tenders_job WHERE id = 1"
        ).fetchone()
    assert (kind, state) == ("postings", "succeeded"), message
    assert f"over {health['rows_total']:,} rows" in message
    assert len(ours(tmp_path)) >= 3  # run, the web server (master and workers), the worker


def ours(var_dir: Path) -> list[int]:
    """Processes started with this test's TENDERS_VAR_DIR (the run command and its children)."""
    marker = f"TENDERS_VAR_DIR={var_dir}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if marker in (proc / "environ").read_bytes().split(b"\0"):
                found.append(int(proc.name))
        except OSError:
            continue
    return found

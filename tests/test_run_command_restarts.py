"""The run command keeps its word on PostgreSQL: started twice on the same database it serves the
same issue and publishes nothing; when PostgreSQL stops for 30 s and comes back, the server
answers again and the job worker takes jobs again, without a restart.

The database is a throwaway cluster of this test's own (``dev.ThrowawayCluster``), so stopping
it touches no other database on the machine.
"""

import importlib.util
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def _dev():
    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def health(port: int) -> tuple[int, dict | None]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/health", timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return 0, None


class RunCommand:
    def __init__(self, env: dict, log: Path):
        self.env, self.log = env, log
        self.process: subprocess.Popen | None = None

    def start(self) -> dict:
        """Start ``dev.py run`` and wait until it serves; the health body."""
        with self.log.open("a") as out:
            out.write("\n----- dev.py run -----\n")
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "dev.py"), "run"],
            cwd=ROOT,
            env=self.env,
            stdout=self.log.open("a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"dev.py run exited {self.process.returncode}:\n{self.output()}")
            status, body = health(int(self.env["PORT"]))
            if status == 200:
                return body
            time.sleep(0.5)
        pytest.fail("dev.py run did not serve within 300 s:\n" + self.output())

    def stop(self) -> int:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            return self.process.wait(timeout=60)
        return self.process.returncode if self.process else 0

    def output(self) -> str:
        return self.log.read_text()


@pytest.fixture
def cluster():
    dev = _dev()
    cluster = dev.ThrowawayCluster()
    if not cluster.available():
        pytest.fail("initdb and pg_ctl are needed (the Debian package 'postgresql')")
    url = cluster.start()
    # initdb makes the "postgres" database with C.UTF-8 character classes; use it.
    cluster.url = url.rsplit("/", 1)[0] + "/postgres"
    yield cluster
    cluster.stop()


def test_second_start_serves_the_same_issue_and_survives_a_database_outage(cluster, tmp_path):
    port = _dev().free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "TENDERS_SORT_KEY_SECRET", "DJANGO_DEBUG"}
    }
    env.update(
        DATABASE_URL=cluster.url,
        PORT=str(port),
        TENDERS_VAR_DIR=str(tmp_path),
        DEMO_ROWS="60",
        WEB_CONCURRENCY="2",
        DJANGO_SUPERUSER_USERNAME="curator",
        DJANGO_SUPERUSER_PASSWORD=secrets.token_urlsafe(12),
    )
    run = RunCommand(env, tmp_path / "run.log")
    try:
        first = run.start()
        assert "Creating staff account curator" in run.output()
        assert run.stop() == 0

        second = run.start()
        output = run.output().split("----- dev.py run -----")[-1]
        assert second["issue_id"] == first["issue_id"]
        assert second["generated"] == first["generated"]
        assert f"The database has a current issue ({first['issue_id']}); serving it" in output
        assert "Staff account curator exists; left as it is" in output
        assert "demo records" not in output and "Published" not in output
        with psycopg.connect(cluster.url) as db:
            issues = db.execute("SELECT count(*) FROM tenders_issue").fetchone()[0]
            staff = db.execute("SELECT count(*) FROM auth_user").fetchone()[0]
        assert (issues, staff) == (1, 1)

        # PostgreSQL stops for 30 s: the server answers (503, JSON), the run command stays up.
        cluster.pause()
        down_until = time.monotonic() + 30
        while time.monotonic() < down_until:
            status, body = health(port)
            assert (status, body["status"]) == (503, "unavailable"), (status, body)
            assert run.process.poll() is None, run.output()
            time.sleep(1)
        cluster.resume()
        deadline = time.monotonic() + 60
        while health(port)[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.5)
        status, body = health(port)
        assert status == 200 and body["issue_id"] == first["issue_id"], run.output()
        assert run.process.poll() is None

        # The job worker is back too: it takes a publication queued now.
        queued = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "publish_issue", "--enqueue"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        assert queued.returncode == 0, queued.stderr
        job = int(queued.stdout.split("job #", 1)[1].split(";", 1)[0])
        deadline = time.monotonic() + 90
        state = None
        while time.monotonic() < deadline:
            with psycopg.connect(cluster.url) as db:
                state, message = db.execute(
                    "SELECT state, message FROM tenders_job WHERE id = %s", [job]
                ).fetchone()
            if state in {"succeeded", "failed"}:
                break
            time.sleep(0.5)
        assert state == "succeeded", (message, run.output())
        assert run.stop() == 0
    finally:
        run.stop()

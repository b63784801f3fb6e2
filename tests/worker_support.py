"""Running jobs in tests: queued tasks worked off in this process, or a real worker process
(``manage.py run_worker``) on the test database for tests that commit their data
(``transaction=True``) and watch jobs run as they would in production."""

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from django.db import connection
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from tenders.models import Job

ROOT = Path(__file__).resolve().parent.parent
REFRESH = '<meta http-equiv="refresh" content="2">'


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def work_off_the_queue() -> None:
    """Run every queued task here, as a worker does (its loop would close the connection that
    holds this test's transaction, so the loop is this one)."""
    worker = Worker(
        queue_names=["default"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test-worker",
        excluded_queue_names=[],
    )
    while (entry := DBTaskResult.objects.ready().first()) is not None:
        entry.claim(worker.worker_id)
        worker.run_task(entry)


def worker_database_url() -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


@contextmanager
def worker_process(var_dir: Path, **env: str):
    """Run a worker against the test database, with flat files in ``var_dir``/media (where
    the tests' storage points) and extra settings from ``env``; stop it on the way out."""
    log_path = var_dir / f"worker-{time.monotonic_ns()}.log"
    environment = {
        **os.environ,
        "DATABASE_URL": worker_database_url(),
        "TENDERS_VAR_DIR": str(var_dir),
        "DJANGO_DEBUG": "0",
        **env,
    }
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "run_worker", "--no-startup-delay"],
            cwd=ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        process.log_path = log_path
        try:
            yield process
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def wait_for_job(job_id: int, until, process=None, timeout: float = 60.0) -> Job:
    """Poll job ``job_id`` until ``until(job)`` holds; fail with the worker's log otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        job = Job.objects.get(pk=job_id)
        if until(job):
            return job
        log = process.log_path.read_text() if process is not None else ""
        assert process is None or process.poll() is None, f"worker exited:\n{log}"
        assert time.monotonic() < deadline, f"job #{job_id} stuck in {job.state}:\n{log}"
        time.sleep(0.05)

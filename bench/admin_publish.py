#!/usr/bin/env python3
"""A publication pressed in the admin, through a job: how long the request takes, how long the
job runs in a real worker process, and (with --baseline) the same publication called directly
in this session, for the job machinery's overhead.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tenders_bench_jobs \\
        .venv/bin/python bench/admin_publish.py --rows 1000000 --baseline

Loads ``--rows`` demo records first when the database holds a different number (``load_demo
--replace``). The admin request goes through Django's test client in this process (the real
view, middleware and session); the job runs in ``manage.py run_worker``, started and stopped
here. Prints figures and the load average; asserts nothing.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--baseline", action="store_true", help="Also publish directly, first.")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("Set DATABASE_URL to a PostgreSQL benchmark database (e.g. tenders_bench_<you>).")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("TENDERS_VAR_DIR", str(ROOT / "var" / "bench-jobs"))
    from config import devsecrets

    devsecrets.ensure(devsecrets.var_dir(ROOT))  # signing keys for this process and the worker
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    from tenders.admin.jobs import duration_text
    from tenders.models import Job, SourceTender
    from tenders.publication import publish_issue

    call_command("migrate", verbosity=0)
    if SourceTender.objects.count() != args.rows:
        print(f"loading {args.rows:,} demo records ...", flush=True)
        call_command("load_demo", rows=args.rows, replace=True, verbosity=0)
    print(f"{SourceTender.objects.count():,} records; load average {os.getloadavg()}", flush=True)

    if args.baseline:
        started = time.monotonic()
        summary = publish_issue()
        direct = time.monotonic() - started
        print(f"direct publish_issue: {direct:.1f} s, {summary.published:,} rows", flush=True)

    user, _ = get_user_model().objects.get_or_create(
        username="bench-curator", defaults={"is_staff": True, "is_superuser": True}
    )
    client = Client(SERVER_NAME="localhost")
    client.force_login(user)
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "run_worker", "--no-startup-delay", "-v0"], cwd=ROOT
    )
    try:
        started = time.monotonic()
        response = client.post(reverse("admin:tenders_issue_publish"))
        answered = time.monotonic() - started
        assert response.status_code == 302, response.status_code
        job = Job.objects.filter(kind="publish").first()
        print(f"admin request: {1000 * answered:.0f} ms (302 to the Issues page), job #{job.pk}")
        page_ms = []
        last = None
        while job.active:
            time.sleep(1)
            tick = time.monotonic()
            client.get(reverse("admin:tenders_issue_changelist"))
            page_ms.append(1000 * (time.monotonic() - tick))
            job.refresh_from_db()
            seen = (job.phase, job.percent)
            if seen != last and job.state == "running" and job.phase:
                elapsed = duration_text(job.elapsed())
                print(f"  {elapsed:>10}  {job.phase} {job.percent}%", flush=True)
                last = seen
    finally:
        worker.terminate()
        worker.wait()
    print(f"job #{job.pk} {job.state} in {job.elapsed():.1f} s: {job.message}")
    for phase, seconds in job.result.get("seconds_by_phase", {}).items():
        print(f"  {phase:<40} {seconds:7.1f} s")
    page_ms.sort()
    if page_ms:
        median = page_ms[len(page_ms) // 2]
        print(f"Issues page while it ran: {len(page_ms)} loads, median {median:.0f} ms, ", end="")
        print(f"max {page_ms[-1]:.0f} ms")
    if args.baseline:
        print(f"job / direct: {job.elapsed() / direct:.2f}")
    print(f"load average {os.getloadavg()}; planning workers {settings.TENDERS_PUBLISH_WORKERS}")


if __name__ == "__main__":
    main()

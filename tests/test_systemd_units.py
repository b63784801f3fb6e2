"""The shipped systemd units (``deploy/systemd/``): ``systemd-analyze verify`` accepts them with
this checkout's paths, and their commands do what the units say: the web unit serves, the
worker unit takes the job the weekly unit queues, the schedules unit runs. No systemd runs
here, so each ExecStart is started as the unit would start it (its environment file, its
``Environment=`` lines, its working directory, ``%H`` and ``%i`` filled in)."""

import os
import secrets
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.served import ROOT, dev, wait_for

pytestmark = pytest.mark.slow
UNITS = ROOT / "deploy" / "systemd"
NAMES = [
    "tenders-web.service",
    "tenders-worker@.service",
    "tenders-schedules.service",
    "tenders-schedules.timer",
    "tenders-weekly.service",
    "tenders-weekly.timer",
]


def render(folder: Path, env_file: Path) -> dict[str, str]:
    """The units with this checkout for /srv/tenders, ``env_file`` for /etc/tenders/env and
    the running user for ``tenders``; nothing else changed."""
    user = os.environ.get("USER") or ("root" if os.geteuid() == 0 else "nobody")
    rendered = {}
    for name in NAMES:
        text = (UNITS / name).read_text()
        text = text.replace("/srv/tenders", str(ROOT)).replace("/etc/tenders/env", str(env_file))
        text = text.replace("User=tenders", f"User={user}")
        (folder / name).write_text(text)
        rendered[name] = text
    return rendered


def settings_of(unit: str) -> tuple[list[str], dict[str, str]]:
    """(ExecStart argv, Environment= pairs) of a rendered unit, instance 1 on this host."""
    command, extra = [], {}
    for line in unit.splitlines():
        if line.startswith("ExecStart="):
            text = line.removeprefix("ExecStart=")
            text = text.replace("%H", socket.gethostname()).replace("%i", "1")
            command = shlex.split(text)
        elif line.startswith("Environment="):
            key, _, value = line.removeprefix("Environment=").partition("=")
            extra[key] = value
    return command, extra


def test_systemd_accepts_the_units(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        pytest.fail("systemd-analyze is needed (Debian's package 'systemd')")
    env_file = tmp_path / "env"
    env_file.write_text("")
    render(tmp_path, env_file)
    names = [n.replace("@.service", "@1.service") for n in NAMES]
    result = subprocess.run(
        [analyze, "verify", "--man=no", *(str(tmp_path / n) for n in names)],
        capture_output=True,
        text=True,
    )
    # Unknown keys and bad values are warnings (exit 0): no output at all is the bar.
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_the_units_commands_serve_work_and_publish(tmp_path):
    port = dev.free_port()
    env_file = tmp_path / "env"
    env_file.write_text(
        f"SECRET_KEY={secrets.token_urlsafe(40)}\n"
        f"TENDERS_SORT_KEY_SECRET={secrets.token_hex(32)}\n"
        f"TENDERS_VAR_DIR={tmp_path}\n"
        "DJANGO_DEBUG=0\nWEB_CONCURRENCY=2\n"
    )
    units = render(tmp_path, env_file)
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "SECRET_KEY", "TENDERS_SORT_KEY_SECRET", "DJANGO_DEBUG"}
    }
    base.update(line.split("=", 1) for line in env_file.read_text().splitlines())

    def unit(name: str) -> tuple[list[str], dict]:
        command, extra = settings_of(units[name])
        if name == "tenders-web.service":
            extra["BIND"] = f"127.0.0.1:{port}"  # the unit's address, on a free port
        return command, {**base, **extra}

    python = ROOT / ".venv" / "bin" / "python"
    for setup in (["migrate", "--noinput", "-v", "0"], ["setup_demo", "--rows", "30"]):
        subprocess.run([python, "manage.py", *setup], cwd=ROOT, env=base, check=True)
    started = []
    try:
        for name in ("tenders-web.service", "tenders-worker@.service"):
            command, env = unit(name)
            log = (tmp_path / f"{name}.log").open("w")
            started.append(
                subprocess.Popen(
                    command,
                    cwd=ROOT,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        wait_for(f"http://127.0.0.1:{port}/healthz", started[0], "the web unit's gunicorn")
        for name in ("tenders-schedules.service", "tenders-weekly.service"):
            command, env = unit(name)
            done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
            assert done.returncode == 0, (name, done.stdout, done.stderr)
        deadline = time.monotonic() + 90
        state = None
        while time.monotonic() < deadline and state != "succeeded":
            with sqlite3.connect(tmp_path / "db.sqlite3") as db:
                row = db.execute(
                    "SELECT state, message FROM tenders_job WHERE kind = 'publish' "
                    "ORDER BY id DESC LIMIT 1"
                ).fetchone()
            state = row and row[0]
            assert state != "failed", row
            time.sleep(0.3)
        assert state == "succeeded", (tmp_path / "tenders-worker@.service.log").read_text()
        assert started[1].poll() is None  # the worker goes on
    finally:
        for process in started:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=60)

"""Running the service as machines would, for the tests that play several: gunicorn servers,
the shipped nginx front (``deploy/nginx/local.py``), the run command's throwaway clusters."""

import contextlib
import importlib.util
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


local_nginx = load("local_nginx", ROOT / "deploy" / "nginx" / "local.py")


dev = load("dev", ROOT / "dev.py")


def start_gunicorn(env: dict, port: int, log: Path) -> subprocess.Popen:
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    return subprocess.Popen(
        [gunicorn, "-c", "config/gunicorn.conf.py", "config.wsgi:application"],
        cwd=ROOT,
        env={**env, "BIND": f"127.0.0.1:{port}"},
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def wait_for(url: str, process: subprocess.Popen | None, what: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            pytest.fail(f"{what} exited")
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=2) as response:
            if response.status == 200:
                return
        time.sleep(0.3)
    pytest.fail(f"{what} did not answer at {url}")


class Replica:
    """A streaming replica of a ``dev.ThrowawayCluster`` (``pg_basebackup -R``), in a folder of
    the primary's, on a port of its own; ``pause``/``resume`` stop and start it."""

    def __init__(self, primary):
        self.primary = primary
        self.data = primary.dir / "replica"
        self.port = dev.free_port()
        backup = dev.find_pg_binary("pg_basebackup")
        if not backup:
            pytest.fail("pg_basebackup is needed (the Debian package 'postgresql')")
        port = primary.options.split()[1]
        command = [backup, "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-D", self.data]
        subprocess.run(primary._as_owner([*command, "-R", "-X", "stream", "--no-sync"]), check=True)
        self.options = primary.options.replace(f"-p {port} ", f"-p {self.port} ")
        self.resume()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def resume(self) -> None:
        start = [self.primary.pg_ctl, "-D", self.data, "-o", self.options]
        start += ["-l", self.primary.dir / "replica.log", "-w", "start"]
        subprocess.run(self.primary._as_owner(start), check=True, stdout=subprocess.DEVNULL)

    def pause(self) -> None:
        stop = [self.primary.pg_ctl, "-D", self.data, "-m", "fast", "-w", "stop"]
        subprocess.run(self.primary._as_owner(stop), check=True, stdout=subprocess.DEVNULL)

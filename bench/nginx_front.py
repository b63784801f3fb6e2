#!/usr/bin/env python3
"""Requests per second of a repeated listing through the shipped nginx front beside the same
request served by gunicorn directly, in one run.

    .venv/bin/python bench/nginx_front.py [--rows 100000] [--workers 3] [--duration 10]

A benchmark, never part of the tests; it prints figures and asserts nothing. The database is
``bench/http_load.py``'s (``tenders_http_<rows>`` under ``BENCH_DATABASE_URL``, prepared once
per size); the app server is the run command's gunicorn; nginx runs ``deploy/nginx/tenders.conf``
with only its "edit:" lines changed (``deploy/nginx/local.py``). wrk (Debian's package) asks:
a repeated listing, a repeated facets call and the flat-file-free ceiling
``/.well-known/mcp.json``, each direct and through nginx.
"""

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


http_load = _load("http_load", ROOT / "bench" / "http_load.py")
local_nginx = _load("local_nginx", ROOT / "deploy" / "nginx" / "local.py")

SCENARIOS = [
    ("listing, 20 rows", "/api/v1/tenders?limit=20&lang=en"),
    ("facets", "/api/v1/tenders/facets"),
    ("ceiling: /.well-known/mcp.json", "/.well-known/mcp.json"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers")
    parser.add_argument("--duration", type=int, default=10, help="seconds per scenario")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--fresh", action="store_true", help="prepare the database again")
    args = parser.parse_args()
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        sys.exit("nginx is missing: install Debian's package (apt-get install nginx).")
    wrk = http_load.ensure_wrk()
    base = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tenders_http")
    env = {**os.environ, "DJANGO_DEBUG": "0"}
    env["DATABASE_URL"] = http_load.prepare(base, args.rows, args.fresh, env)
    scratch = Path(tempfile.mkdtemp(prefix="bench-front-"))
    server = http_load.Server(env, args.workers, scratch / "gunicorn.log")
    listen = http_load.free_port()
    conf = local_nginx.write(scratch, [server.port], listen)
    subprocess.run([nginx, "-c", conf, "-p", scratch], check=True)
    front = f"http://127.0.0.1:{listen}"
    print(f"load before: {http_load.uptime()}")
    print(f"{'scenario':34} {'direct req/s':>13} {'nginx req/s':>12} {'ratio':>7}")
    try:
        for name, path in SCENARIOS:
            figures = []
            for target in (server.base, front):
                http_load.fetch(target + path)  # warm: the answer cache, then the micro-cache
                result = http_load.run_wrk(wrk, args, target + path, {}, None, scratch)
                figures.append(result)
            direct, proxied = figures
            errors = direct["errors"] + proxied["errors"]
            print(
                f"{name:34} {direct['rps']:>13,.0f} {proxied['rps']:>12,.0f} "
                f"{proxied['rps'] / direct['rps']:>6.1f}x"
                + (f"  ({errors} errors)" if errors else "")
            )
    finally:
        subprocess.run([nginx, "-c", conf, "-p", scratch, "-s", "stop"], check=False)
        server.stop()
    print(f"load after: {http_load.uptime()}")
    print(f"wrk -t{args.threads} -c{args.connections} -d{args.duration}s; logs in {scratch}")


if __name__ == "__main__":
    main()

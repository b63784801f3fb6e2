"""CPU per repeated request, in process, through the whole WSGI stack: the listing, one row and
an MCP ``list_tenders`` call, each asked again and again (a new id per call), as a server
process answers what it answered before. A benchmark, never part of the tests.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tenders_bench_cache \\
    SECRET_KEY=... TENDERS_SORT_KEY_SECRET=... \\
        .venv/bin/python bench/response_cache.py --setup [--code /path/to/other/checkout]

``--setup`` migrates and loads the demo (``setup_demo``) when nothing is published yet.
``--code``: run another checkout's code (e.g. main before the response cache), same database
and session, to compare. Without DATABASE_URL it runs on the SQLite default (TENDERS_VAR_DIR).
Figures: CPU time (``time.process_time``) per request, median of ``--rounds`` rounds.
"""

import argparse
import io
import json
import os
import statistics
import sys
import time
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--code", type=Path, default=Path(__file__).resolve().parent.parent)
parser.add_argument("--setup", action="store_true")
parser.add_argument("--rows", type=int, default=2000, help="Demo records for --setup.")
parser.add_argument("--requests", type=int, default=2000, help="Requests per round.")
parser.add_argument("--rounds", type=int, default=5)
args = parser.parse_args()

sys.path.insert(0, str(args.code.resolve()))
os.chdir(args.code)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.core.management import call_command  # noqa: E402

if args.setup:
    call_command("migrate", "--noinput", verbosity=0)
    call_command("setup_demo", "--rows", str(args.rows), verbosity=0)

handler = WSGIHandler()


def environ(method: str, path: str, query: str = "", body: bytes = b"", **headers) -> dict:
    env = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SCRIPT_NAME": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "127.0.0.1:8000",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    if body:
        env["CONTENT_LENGTH"] = str(len(body))
    env.update(headers)
    return env


def ask(env: dict) -> tuple[str, bytes]:
    status = []
    response = handler(env, lambda s, h, exc_info=None: status.append(s))
    body = b"".join(response)
    response.close()
    return status[0], body


def listing(n: int) -> dict:
    return environ("GET", "/api/v1/tenders", "limit=20&lang=en")


def filtered(n: int) -> dict:
    return environ("GET", "/api/v1/tenders", "market=HK,SG&closing_bucket=all&limit=50")


def list_tenders(n: int) -> dict:
    message = {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": "list_tenders", "arguments": {"limit": 10, "lang": "en"}},
    }
    return environ(
        "POST",
        "/mcp",
        body=json.dumps(message).encode(),
        CONTENT_TYPE="application/json",
        HTTP_ACCEPT="application/json, text/event-stream",
        HTTP_MCP_PROTOCOL_VERSION="2025-11-25",
    )


def row_id() -> str:
    _, body = ask(listing(0))
    return json.loads(body)["data"][0]["asaptic_id"]


def measure(make) -> float:
    """Median CPU milliseconds per request over the rounds, after warming up."""
    for n in range(20):
        status, _ = ask(make(n))
        assert status.startswith("200"), status
    rounds = []
    for _ in range(args.rounds):
        started = time.process_time()
        for n in range(args.requests):
            ask(make(n))
        rounds.append((time.process_time() - started) * 1000 / args.requests)
    return statistics.median(rounds)


at_id = row_id()
cases = {
    "listing (limit=20)": listing,
    "listing (market, closing_bucket, limit=50)": filtered,
    "one row": lambda n: environ("GET", f"/api/v1/tenders/{at_id}"),
    "MCP list_tenders (new id each)": list_tenders,
}
print(f"code: {args.code.resolve()}; database: {django.db.connection.vendor}")
for name, make in cases.items():
    print(f"  {name:45} {measure(make):.3f} ms CPU per repeated request")

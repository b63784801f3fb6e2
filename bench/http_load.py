#!/usr/bin/env python3
"""HTTP throughput of the served stack beside its own ceiling and a stock DRF baseline.

    .venv/bin/python bench/http_load.py [--rows 1000000] [--workers 3] [--duration 10]

A benchmark, never part of the tests; it prints figures and asserts nothing.

1. A PostgreSQL database with ``--rows`` demo records, published with the project's own
   commands (migrate, which makes every table the service needs, load_demo, publish_issue),
   made once per size and reused: ``tenders_http_<rows>`` under ``BENCH_DATABASE_URL``
   (postgres://postgres@127.0.0.1:5432/tenders_http by default). A reused one is migrated
   first; ``--fresh`` loads and publishes it again. The current snapshot's search postings
   are then built when missing (``build_search_postings``: the job a worker runs after every
   publication; the served stack here runs no worker).
2. The service under gunicorn as ``dev.py run`` starts it (``config/gunicorn.conf.py``, DEBUG
   off, the checkout's secrets in ``var/``, ``--workers`` sync workers; no job worker) on a
   spare port, every cache cleared first (answers warmed at publication too: each scenario's
   check computes its answer again) and the warm ``q`` terms asked once with
   ``tenders.read.selectors.list_tenders`` (no answer limit). ``wrk --latency`` (Debian's ``wrk``,
   installed with apt-get when missing) over each scenario, each answer checked once
   beforehand; then the first request of fresh ``q`` terms, one timed request each (p50/p95
   per kind).
3. The same snapshot table served by a stock DRF service (``bench/stock_drf``: read-only
   ModelViewSet, ModelSerializer, CursorPagination, django-filter) under the same gunicorn
   settings, then the same listing scenarios against it.

Per scenario: req/s, p50 and p99 latency, non-2xx answers and socket errors, the ratio to the
stack's ceiling (``/.well-known/mcp.json``, no database) and to the baseline. The load average
(``uptime``) is printed before and after: the machine may be shared.
"""

import argparse
import importlib.util
import json
import math
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
import unicodedata
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
AT = "2026-11-23T06:00:00Z"
CEILING = "ceiling: /.well-known/mcp.json"
MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}
# Warm q terms (wrk) and fresh ones for the first-request timings, never asked before them.
WARM_Q = {"Latin": "hospital", "Chinese 1": "醫", "Chinese 2": "疫苗", "Chinese 3": "超声波"}
COLD_Q = {
    "Latin 3+": ["ultrasound", "vaccines", "laptop", "waterproofing", "catering", "services"],
    "Chinese 1": ["车", "药", "光", "园", "银", "法"],
    "Chinese 2": ["保安", "电梯", "法律", "审计", "光纤", "膳食"],
    "Chinese 3": ["图书馆", "抗生素", "交换器", "太阳能", "打印机", "监察仪"],
    "near every row": ["contract", "buyer", "合约", "采购", "公"],
    "2 letters": ["ab", "ma"],
}

POSTINGS_BUILT = """
from tenders.models import Issue, SearchPostings
from tenders.read.postings_store import built
issue = Issue.objects.get(is_current=True)
print("built" if SearchPostings.objects.filter(built(issue)).exists() else "missing")
"""

CLEAR_AND_WARM = """
import json
from django.core.cache import caches
from tenders.read.selectors import list_tenders
for cache in caches.all(initialized_only=False):
    cache.clear()
for term in json.loads(%r):
    list_tenders({"q": term})
"""


# --- the prepared database ----------------------------------------------------------------


def with_db(url: str, name: str) -> str:
    return urlsplit(url)._replace(path=f"/{name}").geturl()


def manage(*args: str, env: dict) -> None:
    subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=env, check=True)


def prepare(base: str, rows: int, fresh: bool, env: dict) -> str:
    """The URL of a database with ``rows`` demo records and a published issue."""
    name = f"{urlsplit(base).path.lstrip('/') or 'tenders_http'}_{rows}"
    url = with_db(base, name)
    env = {**env, "DATABASE_URL": url}
    ready = False
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            loaded = conn.execute("SELECT count(*) FROM tenders_sourcetender").fetchone()[0]
            current = conn.execute("SELECT count(*) FROM tenders_issue WHERE is_current")
            ready = loaded == rows and current.fetchone()[0] == 1
    except psycopg.Error:
        pass
    if ready and not fresh:
        print(f"Reusing the prepared database {name}; migrating it.")
        manage("migrate", "--noinput", "-v0", env=env)
        postings(env)
        return url
    with psycopg.connect(with_db(base, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        # C.UTF-8 character classes, or the trigram index ignores Chinese text.
        conn.execute(
            f"CREATE DATABASE \"{name}\" TEMPLATE template0 ENCODING 'UTF8' "
            "LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'"
        )
    started = time.monotonic()
    print(f"Preparing {name}: {rows:,} demo records, then publishing (this takes a while)...")
    manage("migrate", "--noinput", "-v0", env=env)
    manage("load_demo", "--rows", str(rows), "--seed", "7", "--at", AT, "-v0", env=env)
    manage("publish_issue", "--at", AT, "-v0", env=env)
    print(f"Prepared {name} in {time.monotonic() - started:.0f} s.")
    postings(env)
    return url


def postings(env: dict) -> None:
    """The current snapshot's search postings, which the job worker builds after each
    publication (the served stack here runs no worker), built unless they already are."""
    out = subprocess.run(
        [PY, "manage.py", "shell", "-v0", "-c", POSTINGS_BUILT],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if out == "built":
        print("Search postings already built for the current snapshot.")
        return
    print("Building the current snapshot's search postings (the job after a publication)...")
    manage("build_search_postings", env=env)


def in_memory(url: str) -> None:
    """Read the current snapshot's table and indexes into the server's buffers, as the end of
    a publication leaves them (its flat file reads every row through the primary key), so a
    database prepared long ago, or pushed out by other work since, is measured as served the
    morning after publication. Needs the pg_prewarm extension (PostgreSQL's contrib)."""
    with psycopg.connect(url, autocommit=True) as conn:
        shared = conn.execute("SHOW shared_buffers").fetchone()[0]
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        except psycopg.Error as exc:
            print(f"shared_buffers {shared}; not prewarmed ({exc})")
            return
        pk = conn.execute("SELECT id FROM tenders_issue WHERE is_current").fetchone()[0]
        rows = conn.execute(
            "SELECT relname, pg_prewarm(oid::regclass) FROM pg_class "
            "WHERE relname LIKE %s AND relkind IN ('r', 'i')",
            [f"tenders_snapshotrow_i{pk}%"],
        ).fetchall()
        blocks = sum(n for _, n in rows)
        print(
            f"shared_buffers {shared}; the current snapshot's {len(rows)} relations read in "
            f"({blocks * 8 / 1024:,.0f} MiB)"
        )


# --- servers and requests -------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """gunicorn with the run command's configuration, in a process group of its own."""

    def __init__(self, env: dict, workers: int, log: Path, settings: str = "config.settings"):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {
            **env,
            "PORT": str(self.port),
            "WEB_CONCURRENCY": str(workers),
            "DJANGO_SETTINGS_MODULE": settings,
        }
        gunicorn = Path(PY).parent / "gunicorn"
        command = [gunicorn, "-c", ROOT / "config" / "gunicorn.conf.py", "config.wsgi:application"]
        self.log = log.open("wb")
        self.process = subprocess.Popen(
            [str(c) for c in command],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            process_group=0,
        )
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                sys.exit(f"gunicorn exited with {self.process.returncode}; see {log}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit(f"gunicorn did not listen within 60 s; see {log}")
                time.sleep(0.2)

    def stop(self) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=60)
        self.log.close()


def fetch(url: str, data: bytes | None = None, headers: dict | None = None, timeout=120) -> tuple:
    """(status, body, milliseconds) of one request on a new connection; status 0 when the
    server did not answer."""
    request = urllib.request.Request(url, data=data, headers=headers or {})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    except OSError as error:
        status, body = 0, repr(error).encode()
    return status, body, (time.perf_counter() - started) * 1000


def drain(base: str, path: str) -> None:
    """Wait until the requests wrk left queued are served: after a timeout wrk opens a new
    connection and asks again, so a slow scenario leaves a backlog that would weigh on the
    next one. One request behind them comes back when they are done."""
    fetch(base + path, timeout=900)


def get_json(url: str, data: bytes | None = None, headers: dict | None = None):
    status, body, _ = fetch(url, data, headers)
    if status != 200:
        sys.exit(f"{url} answered {status}: {body[:300]!r}")
    return json.loads(body)


def path_with(params: dict) -> str:
    return "/api/v1/tenders" + ("?" + urlencode(params) if params else "")


def follow(base: str, pages: int, next_link) -> str:
    """The path of page ``pages + 1``, reached by following each page's next link."""
    path = "/api/v1/tenders"
    for _ in range(pages):
        link = next_link(get_json(base + path))
        if not link:
            sys.exit(f"Fewer than {pages + 1} pages at {base}")
        path = link
    return path


# --- wrk ------------------------------------------------------------------------------------


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        sys.exit("wrk is missing: install Debian's package (apt-get install wrk).")
    print("Installing Debian's wrk with apt-get.")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "wrk"]
    if subprocess.run(install, env=env).returncode:
        subprocess.run(["apt-get", "update", "-qq"], env=env)
        subprocess.run(install, env=env, check=True)
    return shutil.which("wrk") or sys.exit("wrk did not install")


UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def parse_wrk(output: str) -> dict:
    def latency(percent: str) -> float | None:  # None when no request completed
        found = re.search(rf"^\s+{percent}%\s+([\d.]+)(us|ms|s|m)\s*$", output, re.M)
        return float(found[1]) * UNITS[found[2]] if found else None

    socket_errors = re.search(r"Socket errors: (.*)", output)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output)[1]),
        "p50": latency("50"),
        "p99": latency("99"),
        "errors": int((re.search(r"Non-2xx or 3xx responses: (\d+)", output) or [0, 0])[1])
        + sum(int(n) for n in re.findall(r"\d+", socket_errors[1] if socket_errors else "")),
    }


def run_wrk(wrk: str, args, url: str, headers: dict, body: str | None, scratch: Path) -> dict:
    command = [wrk, f"-t{args.threads}", f"-c{args.connections}", f"-d{args.duration}s"]
    command += ["--latency", "--timeout", "10s"]
    if body is not None:
        script = scratch / "post.lua"
        lines = ['wrk.method = "POST"', f"wrk.body = {lua_string(body)}"]
        lines += [f"wrk.headers[{lua_string(k)}] = {lua_string(v)}" for k, v in headers.items()]
        script.write_text("\n".join(lines) + "\n")
        command += ["-s", str(script)]
    else:
        for name, value in headers.items():
            command += ["-H", f"{name}: {value}"]
    result = subprocess.run([*command, url], capture_output=True, text=True, check=True)
    return parse_wrk(result.stdout)


def lua_string(text: str) -> str:
    """A Lua string literal of ``text``: every byte but letters and digits as a \\ddd escape."""
    return (
        '"'
        + "".join(chr(b) if b < 128 and chr(b).isalnum() else f"\\{b:03d}" for b in text.encode())
        + '"'
    )


# --- the run -------------------------------------------------------------------------------


def product_scenarios(base: str) -> list[tuple]:
    """(name, path, headers, body, check) where check(status, body) says what one answer held."""
    first = get_json(base + "/api/v1/tenders")
    deep = follow(
        base,
        20,
        lambda page: (
            page["meta"].get("next_cursor") and path_with({"cursor": page["meta"]["next_cursor"]})
        ),
    )
    at_id = first["data"][0]["asaptic_id"]
    mcp = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "list_tenders", "arguments": {"limit": 50}},
    }

    def rows(status: int, body: bytes) -> str:
        return f"{status}, {len(json.loads(body)['data'])} rows, {len(body):,} bytes"

    def mcp_rows(status: int, body: bytes) -> str:
        result = json.loads(body)["result"]
        if result.get("isError"):
            sys.exit(f"list_tenders failed: {result}")
        return f"{status}, {len(result['structuredContent']['data'])} rows, {len(body):,} bytes"

    def size(status: int, body: bytes) -> str:
        return f"{status}, {len(body):,} bytes"

    listing = [
        ("first page", path_with({}), rows),
        ("market=HK", path_with({"market": "HK"}), rows),
        ("cursor page 21", deep, rows),
    ]
    listing += [
        (f"q {kind} {term} (warm)", path_with({"q": term}), rows) for kind, term in WARM_Q.items()
    ]
    return [
        *[(name, path, {}, None, check) for name, path, check in listing],
        ("one row", f"/api/v1/tenders/{quote(at_id)}", {}, None, size),
        ("facets", "/api/v1/tenders/facets", {}, None, size),
        ("MCP list_tenders", "/mcp", MCP_HEADERS, json.dumps(mcp), mcp_rows),
        ("flat file (gzip)", "/tender/rows.json", {"Accept-Encoding": "gzip"}, None, size),
        (CEILING, "/.well-known/mcp.json", {}, None, size),
    ]


def baseline_scenarios(base: str) -> list[tuple]:
    deep = follow(base, 20, lambda page: page["next"] and page["next"].removeprefix(base))

    def rows(status: int, body: bytes) -> str:
        return f"{status}, {len(json.loads(body)['results'])} rows, {len(body):,} bytes"

    paths = [
        ("first page", path_with({})),
        ("market=HK", path_with({"market": "HK"})),
        ("cursor page 21", deep),
    ]
    paths += [(f"q {kind} {term} (warm)", path_with({"q": term})) for kind, term in WARM_Q.items()]
    return [(name, path, {}, None, rows) for name, path in paths]


def measure(wrk: str, args, base: str, scenarios: list, scratch: Path, idle: str) -> dict:
    results = {}
    for name, path, headers, body, check in scenarios:
        data = body.encode() if body is not None else None
        refused = []  # a first answer may be a 503 that a second would not be
        for _attempt in range(3):
            status, answer, _ = fetch(base + path, data, headers)
            if status == 200:
                break
            refused.append(str(status))
        if status != 200:  # shown and left out: the other scenarios still run
            print(f"  {pad(name, 34)} {status}, left out: {answer[:200]!r}", flush=True)
            continue
        after = f" (after {', '.join(refused)})" if refused else ""
        print(f"  {pad(name, 34)} {check(status, answer)}{after}", flush=True)
        results[name] = run_wrk(wrk, args, base + path, headers, body, scratch)
        drain(base, idle)
    return results


ALONE = ("first page", "MCP list_tenders")


def one_at_a_time(wrk: str, args, base: str, scenarios: list, scratch: Path) -> dict:
    """The REST first page and MCP list_tenders with one connection (``wrk -t1 -c1``): the
    latency of a request that waits for no other, beside the saturated figures above."""
    single = argparse.Namespace(**{**vars(args), "threads": 1, "connections": 1})
    return {
        name: run_wrk(wrk, single, base + path, headers, body, scratch)
        for name, path, headers, body, _check in scenarios
        if name in ALONE
    }


def cold_requests(base: str) -> list[tuple]:
    """(kind, [(term, ms, total)]) of the first request of each fresh term, asked of the
    running service after the wrk scenarios (every worker has searched by then)."""
    out = []
    for kind, terms in COLD_Q.items():
        timings = []
        for term in terms:
            status, body, ms = fetch(base + path_with({"q": term}))
            total = json.loads(body)["meta"].get("total") if status == 200 else f"HTTP {status}"
            timings.append((term, ms, total))
        out.append((kind, timings))
    return out


def nearest_rank(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def pad(text: str, width: int) -> str:
    """``text`` left-aligned in ``width`` terminal columns (Chinese characters take two)."""
    wide = sum(unicodedata.east_asian_width(c) in "WF" for c in text)
    return text + " " * max(0, width - len(text) - wide)


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def ensure_django_filter() -> None:
    if importlib.util.find_spec("django_filters"):
        return
    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = wanted["optional-dependencies"]["bench"]
    print(f"Installing {', '.join(requirements)} (the stock DRF baseline) into this venv.")
    pip = [PY, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, *requirements], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="demo records loaded")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn sync workers")
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--fresh", action="store_true", help="load and publish again")
    parser.add_argument("--no-baseline", action="store_true", help="skip the stock DRF run")
    args = parser.parse_args()
    wrk = ensure_wrk()
    if not args.no_baseline:
        ensure_django_filter()
    env = {**os.environ, "DJANGO_DEBUG": "0"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run([PY, "-m", "config.devsecrets"], cwd=ROOT, env=env, check=True)
    base_url = os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tenders_http"
    )
    env["DATABASE_URL"] = prepare(base_url, args.rows, args.fresh, env)
    in_memory(env["DATABASE_URL"])
    # Every cache (database tables, Redis) emptied: "cold" means never asked before. Then the
    # warm q terms asked once through the domain function, with no answer limit: on a busy
    # machine their first count may take longer than a request may wait, and never warm.
    manage("shell", "-v0", "-c", CLEAR_AND_WARM % json.dumps(list(WARM_Q.values())), env=env)
    scratch = Path(tempfile.mkdtemp(prefix="http-load-"))
    load_before = uptime()
    print(f"\nLoad before: {load_before}  (cores: {os.cpu_count()})")
    print(f"wrk -t{args.threads} -c{args.connections} -d{args.duration}s, {args.workers} workers")

    server = Server(env, args.workers, scratch / "service.log")
    try:
        total = get_json(server.base + path_with({"limit": 1}))["meta"]["total"]
        print(f"\nService at {server.base} (log {scratch / 'service.log'})")
        print(f"  default listing: {total:,} rows")
        scenarios = product_scenarios(server.base)
        product = measure(wrk, args, server.base, scenarios, scratch, "/.well-known/mcp.json")
        alone = one_at_a_time(wrk, args, server.base, scenarios, scratch)
        cold = cold_requests(server.base)
    finally:
        server.stop()
    stock = {}
    if not args.no_baseline:
        server = Server(env, args.workers, scratch / "stock.log", "bench.stock_drf.settings")
        try:
            print(f"\nStock DRF baseline at {server.base} (log {scratch / 'stock.log'})")
            scenarios = baseline_scenarios(server.base)
            stock = measure(wrk, args, server.base, scenarios, scratch, "/ping")
        finally:
            server.stop()
    report(product, stock, cold, alone)
    print(f"\nLoad before: {load_before}\nLoad after:  {uptime()}")


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a is not None and b else "-"


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def report(product: dict, stock: dict, cold: list, alone: dict) -> None:
    ceiling = product.get(CEILING, {}).get("rps")
    print(
        f"\n{'scenario':<34} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}"
        f" {'x ceiling':>9} {'stock req/s':>11} {'x stock':>8}"
    )
    for name, r in product.items():
        line = (
            f"{pad(name, 34)} {r['rps']:8.0f} {ms(r['p50']):>8} {ms(r['p99']):>8} {r['errors']:7}"
            f" {ratio(r['rps'], ceiling):>9}"
        )
        if name in stock:
            line += f" {stock[name]['rps']:11.0f} {ratio(r['rps'], stock[name]['rps']):>8}"
        print(line)
    for name, r in stock.items():
        print(
            f"  stock DRF {pad(name, 24)} {r['rps']:8.0f} {ms(r['p50']):>8} {ms(r['p99']):>8}"
            f" {r['errors']:7} {ratio(r['rps'], ceiling):>9}"
        )
    page, mcp = product.get("first page"), product.get("MCP list_tenders")
    if page and mcp:
        print(
            f"\nMCP list_tenders / REST first page: p50 {ratio(mcp['p50'], page['p50'])},"
            f" p99 {ratio(mcp['p99'], page['p99'])}"
        )
    page, mcp = alone.get("first page"), alone.get("MCP list_tenders")
    if page and mcp:
        print(
            f"One connection (wrk -t1 -c1): REST first page p50 {ms(page['p50'])} ms, "
            f"MCP list_tenders p50 {ms(mcp['p50'])} ms; ratio p50 {ratio(mcp['p50'], page['p50'])},"
            f" p99 {ratio(mcp['p99'], page['p99'])}"
        )
    print(f"\nFirst request of fresh q terms (one each, new connection): {'p50':>6} {'p95':>6}")
    for kind, timings in cold:
        times = [t[1] for t in timings]
        terms = ", ".join(f"{term} {t:.0f} ms ({total})" for term, t, total in timings)
        median, p95 = statistics.median(times), nearest_rank(times, 0.95)
        print(f"  {pad(kind, 16)} {median:6.0f} {p95:6.0f}   {terms}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Publication benchmark: wall time, peak memory and CPU of publish_issue, side by side.

    .venv/bin/python bench/publish.py --rows 100000 [1000000] [--baseline 9f20327]

For each size it prepares a PostgreSQL database with that many demo records (kept and reused
by later runs: postgres://postgres@127.0.0.1:5432/tenders_bench by default, or
``BENCH_DATABASE_URL``), then for this checkout, and for ``--baseline`` (any git commit,
checked out in a temporary worktree, run with the same venv on a copy of the same records)
publishes two consecutive weekly issues from a fresh copy of the prepared database:

- the first issue (nothing to reuse);
- the next week's, after a week of imports and curation: ``--churn`` of the approved records
  had their summary edited (they must be planned again), ``--names`` new buyer names went into
  the directory through ``remember_bodies`` as the import service adds them (two of them occur
  in summaries: a body's Chinese name in about 1.5% of records, a buyer's name in the few
  records whose summary slipped it in), and curators allowed a finding on a few records
  (``allowance_add``). The others can be reused.

Records approved by curation keep their pass of the gate, and publication trusts it
(``tenders.publication.passes``). The demo's records are approved without curation, so this
checkout (and a baseline that keeps passes) first runs ``manage.py check_gate`` (timed and
printed: work done through the week, at approval, not on Monday) on a copy of the prepared
database that is kept too (``_checked``; a second run checks only what a change of the gate's
rules made stale).
``--unchecked`` also measures this checkout with no passes at all (the gate runs on every
record, as after a change of its rules).

Each publication runs ``manage.py publish_issue`` under ``/usr/bin/time -v``. It prints wall
time, peak resident memory, CPU seconds of the publishing processes (workers included) and of
the PostgreSQL backends serving the database, the records planned and the rows reused (and
the unchanged records planned again for the directory or allow-lists), the command's time by
phase, and for the baseline the ratio. The load average is printed before and after each
publication: the machine may be shared. Prints figures only; nothing here is asserted.
"""

import argparse
import os
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
TICK = os.sysconf("SC_CLK_TCK")
FIRST, NEXT = "2026-11-23T06:00:00Z", "2026-11-30T06:00:00Z"


def database(url: str, name: str) -> str:
    return urlsplit(url)._replace(path=f"/{name}").geturl()


def admin(url: str) -> psycopg.Connection:
    return psycopg.connect(database(url, "postgres"), autocommit=True)


def copy_database(url: str, source: str, target: str) -> None:
    with admin(url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{target}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{target}" TEMPLATE "{source}"')


def prepare(url: str, rows: int, env: dict) -> str:
    """A database with ``rows`` demo records, made once per size and kept."""
    name = f"{urlsplit(url).path.lstrip('/')}_{rows}"
    prepared = database(url, name)
    try:
        with psycopg.connect(prepared) as conn:
            if conn.execute("SELECT count(*) FROM tenders_sourcetender").fetchone()[0] == rows:
                print(f"{rows:>10,} reusing the prepared database {name}")
                return name
    except psycopg.Error:
        pass
    with admin(url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(
            f"CREATE DATABASE \"{name}\" TEMPLATE template0 ENCODING 'UTF8' "
            "LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'"
        )
    env = {**env, "DATABASE_URL": prepared}
    subprocess.run([PY, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    started = time.monotonic()
    command = [PY, "manage.py", "load_demo", "--rows", str(rows), "--at", FIRST, "-v0"]
    subprocess.run(command, cwd=ROOT, env=env, check=True)
    print(f"{rows:>10,} prepared {name} in {time.monotonic() - started:.0f} s")
    return name


def migrate_for(checkout: Path, env: dict, url: str, name: str) -> None:
    """Bring a copy of the prepared database to the checkout's migrations: a baseline that
    lacks this checkout's latest ones gets them undone (by this checkout, which knows them)."""
    latest = max(p.stem for p in (checkout / "tenders" / "migrations").glob("0*.py"))
    here = (ROOT / "tenders" / "migrations" / f"{latest}.py").exists()
    command = [PY, "manage.py", "migrate", *(["tenders", latest] if here else []), "-v0"]
    env = {**env, "DATABASE_URL": database(url, name)}
    subprocess.run(command, cwd=ROOT if here else checkout, env=env, check=True)


class ServerCpu(threading.Thread):
    """CPU seconds used by the PostgreSQL backends of one database (same machine)."""

    def __init__(self, url: str, name: str):
        super().__init__(daemon=True)
        self.conn, self.name = admin(url), name
        self.used: dict[int, float] = {}
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.2):
            pids = self.conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.name]
            ).fetchall()
            for (pid,) in pids:
                try:
                    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                self.used[pid] = (int(fields[11]) + int(fields[12])) / TICK

    def stop(self) -> float:
        self.done.set()
        self.join()
        self.conn.close()
        return sum(self.used.values())


def publish(checkout: Path, env: dict, url: str, name: str, at: str) -> dict:
    server = ServerCpu(url, name)
    server.start()
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    command = ["/usr/bin/time", "-v", PY, "manage.py", "publish_issue", "--at", at]
    result = subprocess.run(
        command,
        cwd=checkout,
        env={**env, "DATABASE_URL": database(url, name)},
        capture_output=True,
        text=True,
    )
    wall = time.monotonic() - started
    server_cpu = server.stop()
    if result.returncode:
        sys.exit(f"publish_issue failed:\n{result.stdout}\n{result.stderr}")
    usage = result.stderr
    cpu = sum(
        float(re.search(rf"{kind} time \(seconds\): ([\d.]+)", usage)[1])
        for kind in ("User", "System")
    )
    out = result.stdout
    counts = dict(
        re.findall(
            r"^\s+(eligible|published|reused|affected|gate passed|withheld)\s+([\d,]+)", out, re.M
        )
    )
    eligible = int(counts.pop("eligible").replace(",", ""))
    # A baseline from before reuse prints no "reused": it planned every eligible record.
    reused = int(counts.setdefault("reused", "0").replace(",", ""))
    counts["planned"] = f"{eligible - reused:,}"
    phases = re.findall(r"^ {4}(\S.*?)\s{2,}([\d.]+) s$", out.split("time by phase:")[-1], re.M)
    return {
        "wall": wall,
        "peak": int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", usage)[1]) // 1024,
        "cpu": cpu,
        "server": server_cpu,
        "load": (load_before, os.getloadavg()[0]),
        "result": ", ".join(f"{k} {v}" for k, v in counts.items()),
        "phases": phases,
    }


def checked(checkout: Path, env: dict, url: str, prepared: str, rows: int) -> str:
    """A copy of the prepared database in which ``check_gate`` recorded passes (kept)."""
    name = f"{prepared}_checked"
    try:
        with psycopg.connect(database(url, name)):
            pass
    except psycopg.Error:
        copy_database(url, prepared, name)
    migrate_for(checkout, env, url, name)
    started = time.monotonic()
    command = [PY, "manage.py", "check_gate", "--at", FIRST, "-v", "1"]
    env = {**env, "DATABASE_URL": database(url, name)}
    result = subprocess.run(
        command, cwd=checkout, env=env, capture_output=True, text=True, check=True
    )
    said = result.stdout.strip().splitlines()[0]
    print(f"{rows:>10,} check_gate on {name} in {time.monotonic() - started:.0f} s: {said}")
    # Passes are recorded through the week, and autovacuum tidies up after them long before
    # Monday: not in the middle of the measured publication.
    with psycopg.connect(database(url, name), autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE) tenders_sourcetender")
    return name


def churn(url: str, name: str, share: float) -> int:
    """Edit the summary of ``share`` of the approved records (they must be planned again)."""
    every = max(1, round(1 / share)) if share else 0
    if not every:
        return 0
    with psycopg.connect(database(url, name), autocommit=True) as conn:
        return conn.execute(
            "UPDATE tenders_sourcetender SET summary_en = summary_en || ' Revised scope.' "
            "WHERE status = 'approved' AND id %% %s = 0",
            [every],
        ).rowcount


# A week of imports and curation, run by the checkout under test (``manage.py shell``): new
# buyer names the way the import service adds them, and a few curators' allowances.
CURATION = """
import os
from tenders.demo import BUYERS
from tenders.directory import BodyEntry, BodyName, remember_bodies
from tenders.models import SourceTender

count = int(os.environ["BENCH_NAMES"])
places = "Ashford Brayton Calder Denholm Easton Farley Garston Hadley Ilford Jarrow".split()
things = "Water Transit Housing Parks Library Harbour Energy Fleet Canal Heritage".split()
heads = "Authority Board Trust Office Agency".split()
markets = ["HK", "MO", "SG", "GB", "EU", "AU", "CA"]
names = [
    BodyEntry(market=markets[n % 7], names=[BodyName(f"{p} {t} {h}", "en")])
    for n, (p, t, h) in enumerate((p, t, h) for h in heads for t in things for p in places)
][: count - 2]
# Two that occur in summaries: a body's Chinese name, a buyer's name a summary slipped in.
names.append(BodyEntry(market="HK", names=[BodyName("空气质素监测网络", "zh-hans")]))
names.append(BodyEntry(market="SG", names=[BodyName(BUYERS["SG"][0], "en")]))
print("names added", remember_bodies(names))
# A baseline from before curators' allowances has none to add.
if os.environ["BENCH_ALLOWANCES"] == "1":
    from tenders.allowances import allowance_add

    for tender in SourceTender.objects.filter(status="approved").order_by("pk")[:5]:
        phrase = " ".join(tender.summary_en.split()[:3])
        allowance_add(kind="money", phrase=phrase, reason="bench", tender=tender, user=None)
"""


def curate(checkout: Path, env: dict, url: str, name: str, names: int) -> None:
    env = {**env, "DATABASE_URL": database(url, name), "BENCH_NAMES": str(names)}
    env["BENCH_ALLOWANCES"] = str(int((checkout / "tenders" / "allowances.py").exists()))
    command = [PY, "manage.py", "shell", "-v", "0", "-c", CURATION]
    subprocess.run(command, cwd=checkout, env=env, check=True)


@contextmanager
def checkout_of(ref: str | None):
    if ref is None:
        yield ROOT
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "baseline"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "-q", str(path), ref], cwd=ROOT, check=True
        )
        try:
            yield path
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=ROOT)


def report(rows: int, label: str, figures: dict, baseline: dict | None) -> None:
    ratio = ""
    if baseline:
        cpu, before = figures["cpu"] + figures["server"], baseline["cpu"] + baseline["server"]
        ratio = f"  x{figures['wall'] / baseline['wall']:.2f} wall, x{cpu / before:.2f} cpu"
    load = "load {:.1f}->{:.1f}".format(*figures["load"])
    print(
        f"{rows:>10,} {label:<28} {figures['wall']:>7.1f} {figures['peak']:>8} "
        f"{figures['cpu']:>7.1f} {figures['server']:>7.1f}  {load}  {figures['result']}{ratio}"
    )
    for phase, seconds in figures["phases"]:
        print(f"{'':>11} {'  ' + phase:<44} {float(seconds):>7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000])
    parser.add_argument("--baseline", help="a git commit to measure the same way first")
    parser.add_argument("--churn", type=float, default=0.05, help="share edited before week 2")
    parser.add_argument("--names", type=int, default=500, help="names imported before week 2")
    parser.add_argument(
        "--unchecked",
        action="store_true",
        help="also measure this checkout with no record holding a pass of the gate",
    )
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tenders_bench"
        ),
    )
    args = parser.parse_args()
    url = args.database_url
    env = os.environ.copy()
    env.update(
        DJANGO_DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        TENDERS_SORT_KEY_SECRET=secrets.token_hex(32),
        TENDERS_VAR_DIR=str(ROOT / "var" / "bench"),
    )
    print(f"{os.cpu_count()} CPUs; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(
        f"{'rows':>10} {'publication':<28} {'wall s':>7} {'peak MiB':>8} {'cpu s':>7} "
        f"{'pg cpu s':>7}"
    )
    for rows in args.rows:
        prepared = prepare(url, rows, env)
        run_name = f"{prepared}_run"
        measured: dict[str, dict] = {}
        variants = [("baseline", args.baseline)] if args.baseline else []
        variants += [("unchecked", None)] if args.unchecked else []
        for variant, ref in [*variants, ("this checkout", None)]:
            with checkout_of(ref) as checkout:
                source = prepared
                # A baseline that keeps passes of the gate is measured with them too.
                keeps = (checkout / "tenders" / "publication" / "passes.py").exists()
                if variant == "this checkout" or (variant == "baseline" and keeps):
                    source = checked(checkout, env, url, prepared, rows)
                copy_database(url, source, run_name)
                migrate_for(checkout, env, url, run_name)
                for week, at in (("first issue", FIRST), ("next week", NEXT)):
                    if week == "next week":
                        edited = churn(url, run_name, args.churn)
                        curate(checkout, env, url, run_name, args.names)
                        week = f"next week ({edited:,} edited)"
                    figures = publish(checkout, env, url, run_name, at)
                    # Compared with the first variant measured (the baseline, or unchecked).
                    first = variants[0][0] if variants else variant
                    before = measured.get(f"{first} {week}") if variant != first else None
                    measured[f"{variant} {week}"] = figures
                    report(rows, f"{variant}: {week}", figures, before)
        with admin(url) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{run_name}" WITH (FORCE)')


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Publication benchmark: time and peak memory of publish_issue at a given size.

    .venv/bin/python bench/publish.py --rows 100000 1000000

For each size it recreates a dedicated PostgreSQL database (default
postgres://postgres@127.0.0.1:5432/tenders_bench), loads that many demo records, then
publishes two consecutive weekly issues (the second computes new/continuing/dropped against the
first), each under ``/usr/bin/time -v``, and prints wall time and peak resident memory. Prints
figures only; nothing here is asserted. Needs the venv (``python3 dev.py test`` makes it).
"""

import argparse
import os
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def timed(cmd: list[str], env: dict) -> tuple[float, int, str]:
    """Run under /usr/bin/time -v; return (wall seconds, peak RSS in MiB, stdout)."""
    started = time.monotonic()
    result = subprocess.run(
        ["/usr/bin/time", "-v", *cmd], cwd=ROOT, env=env, capture_output=True, text=True
    )
    wall = time.monotonic() - started
    if result.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{result.stdout}\n{result.stderr}")
    peak_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)[1])
    return wall, peak_kib // 1024, result.stdout


def recreate(url: str) -> None:
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(
            f"CREATE DATABASE \"{name}\" TEMPLATE template0 ENCODING 'UTF8' "
            "LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000])
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tenders_bench"
        ),
    )
    args = parser.parse_args()
    env = os.environ.copy()
    env.update(
        DATABASE_URL=args.database_url,
        DJANGO_DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        TENDERS_SORT_KEY_SECRET=secrets.token_hex(32),
        TENDERS_VAR_DIR=str(ROOT / "var" / "bench"),
    )
    manage = [PY, "manage.py"]
    print(f"{'rows':>10} {'step':<26} {'wall s':>8} {'peak MiB':>9}  result")
    for rows in args.rows:
        recreate(args.database_url)
        subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        wall, peak, _ = timed(
            [*manage, "load_demo", "--rows", str(rows), "--at", "2026-11-23T06:00:00Z", "-v0"],
            env,
        )
        print(f"{rows:>10,} {'load_demo':<26} {wall:>8.1f} {peak:>9}")
        for label, at in (
            ("publish (first issue)", "2026-11-23T06:00:00Z"),
            ("publish (next week)", "2026-11-30T06:00:00Z"),
        ):
            wall, peak, out = timed([*manage, "publish_issue", "--at", at], env)
            counts = dict(re.findall(r"^\s+(published|new|withheld)\s+([\d,]+)$", out, re.M))
            result = ", ".join(f"{k} {v}" for k, v in counts.items())
            print(f"{rows:>10,} {label:<26} {wall:>8.1f} {peak:>9}  {result}")


if __name__ == "__main__":
    main()

"""Latency of the public listing on a large snapshot. A benchmark, never part of the tests.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tenders_bench_rest \\
    SECRET_KEY=... TENDERS_SORT_KEY_SECRET=... \\
        .venv/bin/python bench/api_latency.py --setup --rows 1000000

``--setup`` migrates the database named by DATABASE_URL, loads synthetic records with
``load_demo`` (about 84% of them are published; the rest are drafts, withheld by staff or
stopped by the sanitization gate) and publishes the issue, unless the current issue already
has at least ``--rows`` rows. Use a dedicated database: load_demo --replace swaps every
AT-TEST- record.

Requests go through the whole Django stack in process (middleware, DRF, JSON rendering) with
the test client, so the figures are server time without the network. Page 1,000 uses a cursor
built with ``tenders.read.cursors`` at the 49,950th matching row (what following 999 cursors would
give). Pages are computed for every timed request (the answer cache, ``tenders.read.answers``, is
emptied before each: "computed"); ``q`` first pages are also timed warm, answered from that
cache as for everyone after the first client to ask.
"""

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.core.cache import caches  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

from tenders.models import SnapshotRow  # noqa: E402
from tenders.read import answers, cursors  # noqa: E402
from tenders.read.selectors import current_issue, plan_list  # noqa: E402

PUBLISHED_SHARE = 0.84
AT = "2026-11-23T06:00:00Z"


def setup(rows: int) -> None:
    call_command("migrate", verbosity=0)  # first: a fresh database has no tables yet
    issue = current_issue()
    if issue and issue.rows_total >= rows:
        print(f"Current issue {issue.issue_id} has {issue.rows_total:,} rows; no setup needed.")
        return
    records = math.ceil(rows / PUBLISHED_SHARE)
    print(f"Loading {records:,} synthetic records for about {rows:,} published rows...")
    call_command("load_demo", rows=records, seed=7, at=AT, replace=True, verbosity=0)
    print("Publishing...")
    call_command("publish_issue", at=AT, verbosity=0)


def cursor_at(params: dict, offset: int) -> str:
    """The cursor a client holds after reading ``offset`` rows with ``params``."""
    issue = current_issue()
    plan = plan_list(params, issue)
    rows = SnapshotRow.objects.filter(issue=issue).filter(plan.query.row_filter())
    after = rows.order_by("sort_key").values_list("sort_key", flat=True)[offset - 1]
    total = rows.count()
    return cursors.encode(
        cursors.Cursor(
            issue.pk,
            issue.snapshot_etag,
            cursors.fingerprint(plan.query.filters_key()),
            after,
            total,
        )
    )


def timed(client: Client, params: dict, *, repeat: int, computed: bool = False) -> list[float]:
    client.get("/api/v1/tenders", params)  # warm connection and caches
    times = []
    for _ in range(repeat):
        if computed:
            answers.reset()
            caches["answers"].clear()
        started = time.perf_counter()
        response = client.get("/api/v1/tenders", params)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.content[:300]
    return times


def explain(params: dict) -> None:
    issue = current_issue()
    plan = plan_list(params, issue)
    rows = SnapshotRow.objects.filter(issue=issue).filter(plan.query.row_filter())
    if plan.after:
        rows = rows.filter(sort_key__gt=plan.after)
    sql, args = rows.order_by("sort_key").values_list("sort_key")[:51].query.sql_with_params()
    with connection.cursor() as cur:
        cur.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, args)
        print("\n".join("      " + r[0] for r in cur.fetchall()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--setup", action="store_true", help="Load and publish if needed.")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--explain", action="store_true", help="Print each query plan.")
    parser.add_argument("--only", default="", help="Run only the requests whose name has this.")
    args = parser.parse_args()
    if args.setup:
        setup(args.rows)
    issue = current_issue()
    if issue is None:
        sys.exit("No published issue; run with --setup.")
    setup_test_environment()
    client = Client()
    print(f"Snapshot {issue.issue_id} #{issue.pk}: {issue.rows_total:,} rows")
    print(f"Load average before: {os.getloadavg()}  (cores: {os.cpu_count()})")
    cases = [
        ("page 1", {}, True),
        ("page 1,000", {"cursor": cursor_at({}, 49_950)}, True),
        (
            "filtered page (market=SG, category, band, lead_ok)",
            {
                "market": "SG",
                "category": "medical-supplies",
                "value_band": "2m_10m",
                "lead_ok": "true",
            },
            True,
        ),
        (
            "very selective (MO, pharmaceuticals, gt_10m, lead_ok=false, le_2w)",
            {
                "market": "MO",
                "category": "pharmaceuticals",
                "value_band": "gt_10m",
                "lead_ok": "false",
                "closing_bucket": "le_2w",
            },
            True,
        ),
        (
            "selective: market=HK&category=it-hardware",
            {"market": "HK", "category": "it-hardware"},
            True,
        ),
        (
            "selective: category=pharmaceuticals&value_band=gt_10m&new=false",
            {"category": "pharmaceuticals", "value_band": "gt_10m", "new": "false"},
            True,
        ),
        (
            "selective: market=MO,CA&value_band=lt_500k&lead_ok=false",
            {"market": "MO,CA", "value_band": "lt_500k", "lead_ok": "false"},
            True,
        ),
        (
            "selective: q=疫苗&market=MO&value_band=gt_10m",
            {"q": "疫苗", "market": "MO", "value_band": "gt_10m"},
            True,
        ),
        ("q=ultrasound (Latin, computed: counts)", {"q": "ultrasound"}, True),
        ("q=ultrasound (Latin, warm)", {"q": "ultrasound"}, False),
        ("q=疫苗 (two Chinese characters, computed)", {"q": "疫苗"}, True),
        ("q=疫苗 (two Chinese characters, warm)", {"q": "疫苗"}, False),
        ("q=疫苗 page 100", {"q": "疫苗", "cursor": cursor_at({"q": "疫苗"}, 4_950)}, True),
        ("q=醫 (one Chinese character, computed)", {"q": "醫"}, True),
        ("q=醫 (one Chinese character, warm)", {"q": "醫"}, False),
        ("q=ab (two Latin letters, computed)", {"q": "ab"}, True),
        ("q=ab (two Latin letters, warm)", {"q": "ab"}, False),
    ]
    print(f"\n{'request (computed unless warm)':<70} {'p50 ms':>8} {'p95 ms':>8}  total")
    for name, params, computed in cases:
        if args.only not in name:
            continue
        repeat = max(5, args.repeat // 3) if computed else args.repeat
        times = sorted(timed(client, {**params, "limit": 50}, repeat=repeat, computed=computed))
        total = client.get("/api/v1/tenders", {**params, "limit": 50}).json()["meta"]["total"]
        p95 = times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)]
        print(f"{name:<70} {statistics.median(times):8.1f} {p95:8.1f}  {total:,}")
        if args.explain:
            explain(params)
    print(f"\nLoad average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

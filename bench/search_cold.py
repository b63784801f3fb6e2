"""The first request of a search (`q`) on a 1,000,000-row snapshot, beside the old plan.
A benchmark, never part of the tests.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tenders_search_1m \\
    SECRET_KEY=... TENDERS_SORT_KEY_SECRET=... \\
        .venv/bin/python bench/search_cold.py --setup

``--setup`` is ``bench/api_latency.py``'s (migrate, load synthetic records, publish), skipped
when the current issue already has ``--rows`` rows: name a database for it and it is reused.
``--postings`` first builds the snapshot's search postings (``manage.py build_search_postings``
in a process of its own, which prints its wall and CPU time and peak memory) when they are not
built yet; *cold* then counts from them, and *cold sql* is the same first request counted from
the rows (the postings switched off in this process), in the same run.

Every term is asked for as a first page (count and rows, ``limit`` 50) through the selector
(``list_tenders``) and through the whole Django stack in process (the test client): *cold*
after clearing the caches (the first client to ask), then *warm* (everyone after). *old* is the
plan this replaced, run in the same process on the same snapshot and terms: the total counted
with one ``LIKE`` per term over the index candidates of every term, then the page. Figures are
p50 and p95 in milliseconds per class of term; ratio is cold over cold sql (p95). The machine's
load average is printed before and after: on a busy machine every figure moves.
"""

import argparse
import math
import operator
import os
import statistics
import subprocess
import sys
import time
from functools import reduce
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_latency import setup  # first: it sets Django up
from django.conf import settings
from django.core.cache import cache, caches
from django.db.models import Q
from django.test import Client
from django.test.utils import setup_test_environment

from core.database import server_settings
from tenders.models import SearchPostings, SnapshotRow
from tenders.read import answers, search, selectors
from tenders.read.filters import parse_list_params
from tenders.read.postings_store import built
from tenders.read.rows import ROW_COLUMNS
from tenders.read.selectors import (
    COLLECT,
    WALK,
    WALK_SHARE,
    current_issue,
    list_tenders,
    vocabulary,
)

# Classes of term, as the budgets name them. On the synthetic feed every summary says
# "public", "contract term about ... months" and 公营机构采购项目, so those are the worst case.
CLASSES = {
    "latin 1-2 letters": ["x", "q", "ab", "ty", "ux", "zq"],
    "latin 3+ letters": ["ultrasound", "vaccines", "fleet", "hospital", "courier", "laptop"],
    "chinese 1 char": ["医", "疫", "醫", "车"],
    "chinese 2 chars": ["疫苗", "医疗", "醫療", "车队"],
    "chinese 3 chars": ["流感疫", "超声波", "消毒服", "醫療用"],
    "several words": [
        "fleet maintenance",
        "疫苗 seasonal",
        "public 医院",
        "supply monitors",
        "cleaning 醫院",
    ],
    "phrase": ['"fleet maintenance"', '"patient monitors"', '"public library"'],
    "worst case (nearly every row)": ["public", "services", "服务", "ab", "a", "合约", "months"],
}
FILTERED = {"market": "HK"}  # each class is also asked for with a filter


def old_page(issue, params: dict) -> tuple[int, list]:
    """The plan before: count every match, then read the page by walk or collect."""
    query = parse_list_params(params, vocabulary(issue))
    patterns = [search.contains_pattern(t) for t in query.q]
    exact = reduce(operator.and_, (Q(search_text__contains=p) for p in patterns))
    found = []
    for pattern in patterns:
        chars = sorted(set(search._WIDE_CHAR.findall(pattern)))
        found.append(Q(search_cjk__contains=chars) if chars else Q(search_latin__contains=pattern))
    rows = SnapshotRow.objects.filter(issue=issue).filter(query.cell_filter())
    rows = rows.filter(reduce(operator.and_, found) & exact)
    total = rows.count()
    page = []
    if total:
        planner = WALK if total >= WALK_SHARE * issue.rows_total else COLLECT
        with server_settings(planner):
            page = list(rows.order_by("sort_key").values_list(*ROW_COLUMNS)[: query.limit + 1])
    return total, page


def forget() -> None:
    """Empty every cache a first request would find empty: the answer cache (this process's
    tier and the shared one) and the default cache."""
    answers.reset()
    caches[answers.SHARED_ALIAS].clear()
    cache.clear()


def clock(call) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return (time.perf_counter() - started) * 1000, result


def p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def sql_counted(params: dict, issue) -> dict:
    """The first page as it was before the postings: the total counted from the rows."""
    counting = selectors.postings_count
    selectors.postings_count = lambda *args: None
    try:
        return list_tenders(params, issue=issue)
    finally:
        selectors.postings_count = counting


def build_postings(issue) -> None:
    if SearchPostings.objects.filter(built(issue)).exists():
        print("Search postings already built for this snapshot.")
        return
    root = Path(__file__).resolve().parent.parent
    print(f"Load average before the build: {os.getloadavg()}")
    subprocess.run(
        [sys.executable, str(root / "manage.py"), "build_search_postings"], cwd=root, check=True
    )
    print(f"Load average after the build: {os.getloadavg()}")


def measure(
    issue, client: Client, params: dict, repeat: int, old: bool = True
) -> dict[str, list[float]]:
    """Times of each way of asking; every cold request follows a cache clear."""
    times = {"old": [], "cold": [], "warm": [], "http cold": [], "cold sql": []}
    totals = set()
    for i in range(repeat):
        # The old plan and the new one take turns at going first (and warming the database's
        # buffers for the other).
        if old and i % 2 == 0:
            ms, (total, _) = clock(lambda: old_page(issue, params))
            times["old"].append(ms)
            totals.add(total)
        forget()
        ms, body = clock(lambda: list_tenders(params, issue=issue))
        times["cold"].append(ms)
        totals.add(body["meta"]["total"])
        if old and i % 2 == 1:
            ms, (total, _) = clock(lambda: old_page(issue, params))
            times["old"].append(ms)
            totals.add(total)
        ms, _ = clock(lambda: list_tenders(params, issue=issue))
        times["warm"].append(ms)
        forget()
        ms, response = clock(lambda: client.get("/api/v1/tenders", params))
        assert response.status_code == 200, response.content[:300]
        times["http cold"].append(ms)
        forget()
        ms, body = clock(lambda: sql_counted(params, issue))
        times["cold sql"].append(ms)
        totals.add(body["meta"]["total"])
    assert len(totals) == 1, f"the plans disagree on {params}: {totals}"
    times["total"] = totals.pop()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--setup", action="store_true", help="Load and publish if needed.")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5, help="Requests per term and way.")
    parser.add_argument("--only", default="", help="Run only the classes whose name has this.")
    parser.add_argument("--terms", action="store_true", help="Print each term's figures.")
    parser.add_argument("--postings", action="store_true", help="Build the search postings.")
    parser.add_argument("--no-old", action="store_true", help="Leave out the old plan (slow).")
    args = parser.parse_args()
    if args.setup:
        setup(args.rows)
    issue = current_issue()
    if issue is None:
        sys.exit("No published issue; run with --setup.")
    if args.postings:
        build_postings(issue)
    setup_test_environment()
    # Let a slow search finish instead of ending in the served stack's 503, to time it.
    for kind in settings.DATABASE_ANSWER_LIMITS:
        settings.DATABASE_ANSWER_LIMITS[kind] = 60
    client = Client()
    print(f"Snapshot {issue.issue_id} #{issue.pk}: {issue.rows_total:,} rows")
    print(f"Load average before: {os.getloadavg()}  (cores: {os.cpu_count()})")
    list_tenders({}, issue=issue)  # connection and vocabulary
    ways = ("cold", "cold sql", "warm", "http cold") + (() if args.no_old else ("old",))
    header = f"{'class':<34}" + "".join(f"{w + ' p50/p95':>20}" for w in ways) + f"{'ratio':>8}"
    print("\n" + header)
    for name, terms in CLASSES.items():
        if args.only not in name:
            continue
        for filters in ({}, FILTERED):
            label = name + (" +market" if filters else "")
            pooled = {w: [] for w in ways}
            for term in terms:
                params = {"q": term, "limit": "50", **filters}
                times = measure(issue, client, params, args.repeat, not args.no_old)
                for way in ways:
                    pooled[way] += times[way]
                if args.terms:
                    cells = "".join(
                        f"{statistics.median(times[w]):9.1f}/{p95(times[w]):8.1f}  " for w in ways
                    )
                    print(f"  {term:<32}{cells} total {times['total']:,}")
            cells = "".join(
                f"{statistics.median(pooled[w]):10.1f}/{p95(pooled[w]):8.1f}" + "  " for w in ways
            )
            ratio = p95(pooled["cold"]) / p95(pooled["cold sql"])
            print(f"{label:<34}{cells}{ratio:7.2f}")
    print(f"\nLoad average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

"""Where the first request of a ``q`` spends its time: the count from the postings, the count
from the rows (``LIKE``) and the page read, each timed alone on the current snapshot, in turns.
A benchmark, never part of the tests.

    DATABASE_URL=... .venv/bin/python bench/search_parts.py [--repeat 5] [TERM ...]

The page is read as the selector reads it (``_read_page``, with the exact total); the database
caches are warm after the first round, as they are for the wrk runs of ``bench/http_load.py``.
Figures are p50 / p95 in milliseconds per term; the load average is printed before and after.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_latency import setup  # noqa: F401  (first: it sets Django up)
from http_load import COLD_Q, nearest_rank

from tenders.models import SnapshotRow
from tenders.read import selectors
from tenders.read.filters import parse_list_params
from tenders.read.postings_store import postings_count

PARTS = ("postings count", "rows count", "page")


def parts(issue, vocabulary, term: str) -> tuple[int, dict]:
    """The exact total of ``term`` and the calls that make up its first request."""
    plan = selectors.plan_list({"q": term}, issue)
    query = parse_list_params({"q": term}, vocabulary)
    rows = SnapshotRow.objects.filter(issue=issue).filter(query.row_filter())
    total = rows.count()
    return total, {
        "postings count": lambda: postings_count(issue, query.q, query.cell_filter()),
        "rows count": rows.count,
        "page": lambda: selectors._read_page(plan, total),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("terms", nargs="*")
    args = parser.parse_args()
    terms = args.terms or [t for kind in ("Chinese 2", "Chinese 3") for t in COLD_Q[kind]]
    issue = selectors.current_issue()
    vocabulary = selectors.vocabulary(issue)
    print(f"Snapshot {issue.issue_id}: {issue.rows_total:,} rows; load {os.getloadavg()}")
    print(f"{'term':<10}{'total':>10}" + "".join(f"{p + ' p50/p95':>24}" for p in PARTS))
    for term in terms:
        total, calls = parts(issue, vocabulary, term)
        times = {part: [] for part in PARTS}
        for i in range(args.repeat):
            for part in PARTS if i % 2 == 0 else PARTS[::-1]:
                started = time.perf_counter()
                calls[part]()
                times[part].append((time.perf_counter() - started) * 1000)
        print(
            f"{term:<10}{total:>10,}"
            + "".join(
                f"{statistics.median(t):>14.1f}/{nearest_rank(t, 0.95):>8.1f}"
                for t in times.values()
            )
        )
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()

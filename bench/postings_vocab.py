"""The search postings with a realistic Latin vocabulary. A benchmark, never part of the tests.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tenders_postings_vocab \\
    SECRET_KEY=... TENDERS_SORT_KEY_SECRET=... \\
        .venv/bin/python bench/postings_vocab.py --rows 1000000 --vocabulary 200000

The demo feed has only about 300 distinct Latin tokens, so its Latin lookups (every key that
contains a term) scan a tiny key list. Here ``--rows`` synthetic texts of ``--tokens`` words
each draw from ``--vocabulary`` synthetic words with Zipf frequencies (as real text does);
the postings are built in memory (wall, CPU, peak memory), stored for a throwaway issue of one
cell in the database named by DATABASE_URL (migrated first; use a database of its own), then
Latin terms of 3 to 6 letters, from frequent to rare, are counted through
``postings_count`` (the three queries and the bitmaps) and timed: p50 and p95 in ms, with
the number of keys each term takes. The load average is printed before and after.
"""

import argparse
import bisect
import itertools
import os
import random
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_latency import AT  # first: it sets Django up
from django.core.management import call_command
from django.db.models import Q

from tenders.models import Issue, IssueCount, SearchPosting
from tenders.read import postings
from tenders.read.postings_store import _store, postings_count

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def vocabulary(size: int, rng: random.Random) -> list[str]:
    words = set()
    while len(words) < size:
        words.add("".join(rng.choices(LETTERS, k=rng.randint(3, 12))))
    return sorted(words, key=lambda _: rng.random())  # rank order: random


def texts(rows: int, tokens: int, words: list[str], rng: random.Random):
    weights = list(itertools.accumulate(1 / (rank + 1) ** 1.05 for rank in range(len(words))))
    top = weights[-1]
    for _ in range(rows):
        picks = [words[bisect.bisect(weights, rng.random() * top)] for _ in range(tokens)]
        yield " " + " ".join(picks) + " "


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--vocabulary", type=int, default=200_000)
    parser.add_argument("--tokens", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    rng = random.Random(5)
    words = vocabulary(args.vocabulary, rng)
    print(f"Load average before: {os.getloadavg()}  (cores: {os.cpu_count()})")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    wall, cpu = time.monotonic(), time.process_time()
    builder = postings.Builder(args.rows)
    for ordinal, text in enumerate(texts(args.rows, args.tokens, words, rng)):
        builder.add(ordinal, text)
    stored = builder.finish()
    built_wall, built_cpu = time.monotonic() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    dense = sum(d for d, _ in stored.values())
    print(
        f"Built {len(stored):,} keys ({dense:,} bitmaps) over {args.rows:,} rows of "
        f"{args.tokens} words (text generation included): wall {built_wall:.1f} s, "
        f"CPU {built_cpu:.1f} s, peak memory {peak:,.0f} MB (before {before:,.0f} MB)"
    )
    Issue.objects.filter(issue_id="2000-W01").delete()
    issue = Issue.objects.create(
        issue_id="2000-W01",
        generated=AT,
        state=Issue.State.FAILED,
        snapshot_etag=f"bench-vocab-{time.time_ns()}",
        rows_total=args.rows,
    )
    cell = IssueCount.objects.create(
        issue=issue,
        market="HK",
        category_slug="bench",
        closing_bucket="le_2w",
        lead_ok=True,
        new_this_issue=True,
        rows=args.rows,
    )
    wall = time.monotonic()
    _store(issue, issue.snapshot_etag, args.rows, [[cell.pk, args.rows]], stored, wall, None)
    print(f"Stored in {time.monotonic() - wall:.1f} s")
    del stored, builder
    terms = []
    for rank in [r for r in (0, 3, 30, 300, 3_000, 30_000, 150_000) if r < len(words)]:
        word = words[rank]
        terms += [t for t in (word[:3], word[-4:], word[:6]) if len(t) >= 3]
    times, found = [], []
    for term in terms:
        keys = SearchPosting.objects.filter(issue=issue, key__contains=term).count()
        each = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            total = postings_count(issue, (term,), Q())
            each.append((time.perf_counter() - started) * 1000)
        times += each
        found.append((term, keys, total, statistics.median(each), max(each)))
    for term, keys, total, median, worst in found:
        print(f"  {term:<8} keys {keys:>7,}  rows {total:>9,}  {median:8.1f} ms  max {worst:8.1f}")
    ordered = sorted(times)
    print(
        f"Latin 3-6 letters, {len(terms)} terms x {args.repeat}: p50 "
        f"{statistics.median(times):.1f} ms, p95 {ordered[int(0.95 * len(ordered)) - 1]:.1f} ms"
    )
    print(f"Load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

"""What a people's page or an Atom feed costs beside the API answer with the same rows.
A benchmark, never part of the tests.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tenders_bench_pages \\
    SECRET_KEY=... TENDERS_SORT_KEY_SECRET=... \\
        .venv/bin/python bench/pages_render.py --setup --rows 100000

``--setup`` is ``bench/api_latency.py``'s (migrate, load synthetic records, publish). Each pair
asks for the same 20 rows (200 for the feeds) in the same language through the whole Django
stack in process with the test client, alternating the two so both see the same load and the
same warm caches; the ratio is page time over API time, and the sizes are the bodies as sent
(before compression).
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_latency import setup  # first: it sets Django up
from django.test import Client
from django.test.utils import setup_test_environment

from tenders.read.selectors import current_issue

CASES = [
    ("first page", "", ""),
    ("market=HK,SG & lead_ok", "market=HK,SG&lead_ok=true", "market=HK&market=SG&lead_ok=true"),
    ("q=医疗 (warm)", "q=%E5%8C%BB%E7%96%97", "q=%E5%8C%BB%E7%96%97"),
]


def timed(client: Client, url: str) -> tuple[float, int]:
    started = time.perf_counter()
    response = client.get(url)
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, (url, response.status_code)
    return elapsed, len(response.content)


def pair(client: Client, api: str, page: str, repeat: int) -> tuple[float, float, int, int]:
    timed(client, api), timed(client, page)  # warm caches and connections
    api_ms, page_ms = [], []
    for _ in range(repeat):
        ms, api_bytes = timed(client, api)
        api_ms.append(ms)
        ms, page_bytes = timed(client, page)
        page_ms.append(ms)
    return statistics.median(api_ms), statistics.median(page_ms), api_bytes, page_bytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--setup", action="store_true", help="Load and publish if needed.")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=30)
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
    header = ("request", "API ms", "other ms", "ratio", "API KB", "other KB")
    print("\n{:<40} {:>7} {:>8} {:>6} {:>7} {:>8}".format(*header))
    for name, api_query, page_query in CASES:
        api = f"/api/v1/tenders?lang=zht&limit=20&{api_query}"
        page = f"/zh-hant/tenders/?{page_query}"
        feed = f"/feeds/tenders.atom?lang=zht&{api_query}"
        api200 = f"/api/v1/tenders?lang=zht&limit=200&{api_query}"
        for label, (a, b) in (("page", (api, page)), ("feed, 200", (api200, feed))):
            api_ms, other_ms, api_bytes, other_bytes = pair(client, a, b, args.repeat)
            print(
                f"{name + ' (' + label + ')':<40} {api_ms:7.1f} {other_ms:8.1f} "
                f"{other_ms / api_ms:6.2f} {api_bytes / 1024:7.1f} {other_bytes / 1024:8.1f}"
            )
    print(f"\nLoad average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

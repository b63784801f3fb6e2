"""What the tool server costs a model: characters and tokens of its answers. A benchmark, not a
test.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tenders_bench_demo \\
    SECRET_KEY=... TENDERS_SORT_KEY_SECRET=... \\
        .venv/bin/python bench/mcp_sizes.py --setup demo

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tenders_bench_real ... \\
        .venv/bin/python bench/mcp_sizes.py --setup real

``--setup demo`` migrates the database, loads 2,000 demo records (``load_demo --seed 7``) and
publishes them; ``--setup real`` imports the public notices of ``../shared/data`` (GB, AU and
the fictional OCDS samples, the EU eForms notices, the HK fixture of the tests), approves every
draft and publishes them with a grace long enough to keep past deadlines (so most real rows are
``deadline_passed``: the real feed is also measured with ``closing_bucket=all``). Either does
nothing when an issue is current.

Each figure is the JSON-RPC answer's ``result`` member as the server sends it
(``ensure_ascii=False``): what an MCP client receives (text and structured content); then its
text content alone (what a client that shows a model only ``content`` passes on); each in
characters and in estimated tokens: every Chinese character one token, four other characters a
token. Messages go through the dispatcher in process, as ``POST /mcp`` sends them. The first
useful call is ``tender_facets`` then one filtered ``list_tenders`` page.
"""

import argparse
import json
import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402

from mcp_server.server import protocol  # noqa: E402
from tenders.models import SnapshotRow  # noqa: E402
from tenders.read.selectors import current_issue  # noqa: E402

AT = "2026-11-23T06:00:00Z"
HEADERS = {"MCP-Protocol-Version": "2025-11-25"}
MODERN = {
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
}
DATA = ROOT.parent / "shared" / "data"
REAL = [
    ("ocds", DATA / "ocds" / "gb-contracts-finder", "GB"),
    ("ocds", DATA / "ocds" / "fictional-example-1.1", "GB"),
    ("ocds", DATA / "ocds" / "au-nsw-etendering", "AU"),
    ("eforms", DATA / "eforms", None),
    ("gld", ROOT / "tests" / "data" / "gld", None),
]


def tool(name: str, **arguments) -> tuple[str, dict]:
    return "tools/call", {"name": name, "arguments": arguments}


def calls(first_id: str, filtered: dict, feed: str) -> dict:
    every = {"closing_bucket": "all"} if feed == "real" else {}
    found = {
        "tools/list": ("tools/list", {}),
        "tools/list (2026-07-28)": ("tools/list", MODERN),
        "list_tenders {}": tool("list_tenders"),
        'list_tenders {"lang": "zh"}': tool("list_tenders", lang="zh"),
        'list_tenders {"limit": 200}': tool("list_tenders", limit=200),
        "tender_facets {}": tool("tender_facets"),
        "list_tenders (filtered)": tool("list_tenders", **filtered),
        'list_tenders {"q": "medical"}': tool("list_tenders", q="medical", **every),
        "get_tender": tool("get_tender", at_id=first_id),
    }
    if feed == "real":
        found['list_tenders {"closing_bucket": "all"}'] = tool("list_tenders", **every)
    return found


def setup(feed: str, rows: int) -> None:
    call_command("migrate", verbosity=0)
    if current_issue() is not None:
        return
    if feed == "demo":
        print(f"Loading {rows:,} demo records and publishing...")
        call_command("load_demo", rows=rows, seed=7, at=AT, replace=True, verbosity=0)
        call_command("publish_issue", at=AT, verbosity=0)
        return
    from tenders.importers.service import import_notices
    from tenders.models import SourceTender

    print("Importing the public samples of ../shared/data and publishing...")
    for fmt, path, market in REAL:
        import_notices(fmt, str(path), market=market)
    drafts = SourceTender.objects.filter(status=SourceTender.Status.DRAFT)
    drafts.update(status=SourceTender.Status.APPROVED)
    settings.TENDERS_PASSED_GRACE_DAYS = 365 * 20
    call_command("publish_issue", at=AT, verbosity=0)


def tokens(text: str) -> int:
    """Estimated tokens: a Chinese character is one, four other characters are one."""
    han = sum(1 for c in text if "\u3000" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff")
    return han + math.ceil((len(text) - han) / 4)


def answer(method: str, params: dict) -> dict:
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    headers = HEADERS
    if params is MODERN:  # the stateless revision: its envelope members count too
        headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    reply = protocol().handle(json.dumps(message).encode(), headers)
    return reply.body["result"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--setup", choices=("demo", "real"), help="load and publish a feed")
    parser.add_argument("--rows", type=int, default=2000, help="demo records for --setup demo")
    parser.add_argument("--show", action="store_true", help="print the text of each call")
    args = parser.parse_args()
    if args.setup:
        setup(args.setup, args.rows)
    issue = current_issue()
    synthetic = SnapshotRow.objects.filter(issue=issue, asaptic_id__startswith="AT-TEST-")
    feed = "demo" if synthetic.exists() else "real"
    print(f"{feed} feed: issue {issue.issue_id}, {issue.rows_total:,} rows")
    facets = answer(*tool("tender_facets"))["structuredContent"]["data"]
    market = max(facets["markets"], key=lambda m: m["count"])["code"]
    filtered = {"market": market, "closing_bucket": "le_2w" if feed == "demo" else "all"}
    listed = answer(*tool("list_tenders", closing_bucket="all", limit=1))
    first_id = listed["structuredContent"]["data"][0]["asaptic_id"]
    print(f"{'':40} {'result':>8} {'tokens':>7} {'text':>8} {'tokens':>7}")
    first_call = [0, 0]
    for label, (method, params) in calls(first_id, filtered, feed).items():
        result = answer(method, params)
        whole = json.dumps(result, ensure_ascii=False)
        text = "".join(c["text"] for c in result.get("content", ()))
        data = result.get("structuredContent", {}).get("data")
        rows = f"{len(data)} rows" if isinstance(data, list) else ""
        if label in ("tender_facets {}", "list_tenders (filtered)"):
            first_call = [first_call[0] + tokens(whole), first_call[1] + tokens(text)]
        if label == "list_tenders (filtered)":
            label = f"list_tenders {json.dumps(params['arguments'])}"[:40]
        print(
            f"{label:40} {len(whole):>8,} {tokens(whole):>7,} {len(text):>8,} "
            f"{tokens(text):>7,} {rows}"
        )
        if args.show:
            print(text, "\n")
    print(
        f"{'first useful call (facets + filtered page)':40} {'':>8} {first_call[0]:>7,} "
        f"{'':>8} {first_call[1]:>7,}"
    )


if __name__ == "__main__":
    main()

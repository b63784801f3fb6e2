"""What the tool server costs a model: characters of its answers. A benchmark, not a test.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tenders_bench_shapes \\
    SECRET_KEY=... TENDERS_SORT_KEY_SECRET=... \\
        .venv/bin/python bench/mcp_sizes.py --setup

``--setup`` migrates the database, loads 2,000 demo records (``load_demo --seed 7``) and
publishes them, unless an issue is current. Each figure is the length in characters of the
JSON-RPC answer's ``result`` member as the server sends it (``ensure_ascii=False``), which is
what an MCP client receives (text and structured content), and of its text copy alone, for:
``tools/list``; a default ``list_tenders`` call (no arguments); the same with ``lang=en``;
``limit=200``; and ``tender_facets``. Messages go through the dispatcher in process, as
``POST /mcp`` sends them.
"""

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from mcp_server.server import protocol  # noqa: E402
from tenders.selectors import current_issue  # noqa: E402

AT = "2026-11-23T06:00:00Z"
HEADERS = {"MCP-Protocol-Version": "2025-11-25"}
CALLS = {
    "tools/list": ("tools/list", {}),
    "list_tenders {}": ("tools/call", {"name": "list_tenders", "arguments": {}}),
    'list_tenders {"lang": "en"}': (
        "tools/call",
        {"name": "list_tenders", "arguments": {"lang": "en"}},
    ),
    'list_tenders {"limit": 200}': (
        "tools/call",
        {"name": "list_tenders", "arguments": {"limit": 200}},
    ),
    "tender_facets {}": ("tools/call", {"name": "tender_facets", "arguments": {}}),
}


def setup(rows: int) -> None:
    call_command("migrate", verbosity=0)
    if current_issue() is None:
        print(f"Loading {rows:,} demo records and publishing...")
        call_command("load_demo", rows=rows, seed=7, at=AT, replace=True, verbosity=0)
        call_command("publish_issue", at=AT, verbosity=0)


def result_size(method: str, params: dict) -> tuple[int, dict]:
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    reply = protocol().handle(json.dumps(message).encode(), HEADERS)
    result = reply.body["result"]
    return len(json.dumps(result, ensure_ascii=False)), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--setup", action="store_true", help="load and publish demo data")
    parser.add_argument("--rows", type=int, default=2000, help="demo records for --setup")
    args = parser.parse_args()
    if args.setup:
        setup(args.rows)
    issue = current_issue()
    print(f"issue {issue.issue_id}, {issue.rows_total:,} rows; load {os.getloadavg()[0]:.2f}")
    print(f"{'':30} {'result':>9} {'text':>9}  (characters)")
    for label, (method, params) in CALLS.items():
        size, result = result_size(method, params)
        text = sum(len(c["text"]) for c in result.get("content", ()))
        data = result.get("structuredContent", {}).get("data")
        rows = f"{len(data)} rows" if isinstance(data, list) else ""
        print(f"{label:30} {size:>9,} {f'{text:,}' if text else '':>9} {rows}")


if __name__ == "__main__":
    main()

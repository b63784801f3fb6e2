"""Run in a process of its own by tests/test_response_cache.py, on the database its environment
names (SQLite there): repeated requests through the whole middleware stack, the queries each
costs on every connection, then a publication by another process and the same requests again.
Prints one JSON object."""

import json
import os
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.db import connections  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
setup_test_environment()
client = Client()


def counted(make):
    """(response, queries on every connection) of ``make()``."""
    with ExitStack() as stack:
        captured = [
            stack.enter_context(CaptureQueriesContext(connections[alias])) for alias in connections
        ]
        response = make()
    return response, sum(len(queries) for queries in captured)


def listing():
    return client.get("/api/v1/tenders", {"limit": "3", "lang": "en"})


def list_tenders(request_id):
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "list_tenders", "arguments": {"limit": 3}},
    }
    return client.post(
        "/mcp",
        json.dumps(body),
        content_type="application/json",
        HTTP_ACCEPT="application/json, text/event-stream",
        HTTP_MCP_PROTOCOL_VERSION="2025-11-25",
    )


def tool_etag(response) -> str:
    return json.loads(response.content)["result"]["structuredContent"]["meta"]["snapshot_etag"]


def probe() -> dict:
    seen = {}
    first, _ = counted(listing)
    again, queries = counted(listing)
    seen["listing"] = {
        "status": first.status_code,
        "etag": first["ETag"].strip('"'),
        "same": again.content == first.content and dict(again.items()) == dict(first.items()),
        "queries": queries,
    }
    called, _ = counted(lambda: list_tenders(1))
    recalled, queries = counted(lambda: list_tenders("second"))
    seen["list_tenders"] = {
        "status": called.status_code,
        "etag": tool_etag(called),
        "id": json.loads(recalled.content)["id"],
        "same": json.loads(recalled.content)["result"] == json.loads(called.content)["result"],
        "queries": queries,
    }
    return seen


before = probe()
subprocess.run(
    [sys.executable, "manage.py", "publish_issue", "--at", sys.argv[1], "-v", "0"],
    cwd=ROOT,
    check=True,
)
print(json.dumps({"before": before, "after": probe()}))

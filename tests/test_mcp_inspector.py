"""The MCP Inspector's command line against the running tool server.

The Inspector (an npm package, installed by ``dev.py test`` into ``.venv/mcp-inspector``, with
the machine's Node.js) lists our tools with its schema-portability check in strict mode, which
names every schema spelling some clients cannot read (type arrays and the like), and calls a
tool as a client would. Without Node the test is skipped with the reason, except in CI, where
it fails.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from tenders import publication
from tests.factories import SourceTenderFactory
from tests.mcp_support import TASK_LIST, TOOL_NAMES, ids_in, medical_slug, publish_task_feed

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

INSPECTOR = Path(__file__).resolve().parents[1] / ".venv/mcp-inspector/node_modules/.bin"
INSPECTOR = INSPECTOR / "mcp-inspector"


@pytest.fixture
def inspector(live_server, tmp_path):
    if not INSPECTOR.exists():
        reason = f"the MCP Inspector is not installed at {INSPECTOR}: run python3 dev.py test"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)

    def run(*arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(INSPECTOR), "--cli", live_server.url + "/mcp", *arguments],
            capture_output=True,
            text=True,
            timeout=120,
            # Its catalog of servers goes to HOME; keep it out of the real one.
            env={**os.environ, "HOME": str(tmp_path)},
        )

    return run


def test_the_inspector_lists_the_tools_without_a_portability_warning(inspector):
    listed = inspector("--method", "tools/list", "--strict")
    assert (listed.returncode, listed.stderr) == (0, "")
    tools = json.loads(listed.stdout)["tools"]
    assert [tool["name"] for tool in tools] == TOOL_NAMES


def test_the_inspector_calls_list_tenders_with_typed_arguments(inspector, t0):
    for market in ("HK", "HK", "SG", "GB"):
        SourceTenderFactory(market=market)
    publication.publish_issue(now=t0)
    called = inspector(
        "--method",
        "tools/call",
        "--tool-name",
        "list_tenders",
        "--tool-arg",
        'market=["HK","SG"]',
        "--tool-arg",
        "lang=en",
    )
    assert (called.returncode, called.stderr) == (0, "")
    result = json.loads(called.stdout)
    page = result["structuredContent"]
    assert result["isError"] is False
    assert {row["market"] for row in page["data"]} == {"HK", "SG"}
    assert (page["meta"]["total"], page["meta"]["returned"], page["meta"]["lang"]) == (3, 3, "en")
    assert set(page["data"][0]) == {
        "asaptic_id",
        "market",
        "category",
        "summary",
        "value_band",
        "closing_bucket",
        "lead_ok",
        "new_this_issue",
    }
    # The text: one line a row, the same rows.
    assert ids_in(result["content"][0]["text"]) == [row["asaptic_id"] for row in page["data"]]


def test_the_inspector_completes_the_task(inspector, t0):
    """Find three HK medical tenders closing within two weeks and fetch one, as a developer
    trying the server from the Inspector's command line would."""
    wanted = publish_task_feed(t0)

    def call(name: str, **arguments: str) -> dict:
        given = [part for k, v in arguments.items() for part in ("--tool-arg", f"{k}={v}")]
        called = inspector("--method", "tools/call", "--tool-name", name, *given)
        assert (called.returncode, called.stderr) == (0, "")
        result = json.loads(called.stdout)
        assert result["isError"] is False
        return result

    slug = medical_slug(call("tender_facets")["content"][0]["text"])
    arguments = {k: json.dumps(v) if isinstance(v, int) else v for k, v in TASK_LIST.items()}
    page = call("list_tenders", **arguments, category=slug)
    found = ids_in(page["content"][0]["text"])
    assert len(found) == 3 and set(found) <= wanted
    assert page["structuredContent"]["meta"]["total"] == 4
    one = call("get_tender", at_id=found[0])
    assert one["structuredContent"]["data"]["asaptic_id"] == found[0]
    assert one["structuredContent"]["data"]["closing_bucket"] == "le_2w"

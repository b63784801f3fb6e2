"""Interoperability: the official MCP Python SDK client against the running service.

The server runs in pytest-django's ``live_server``; the client is ``mcp.Client`` over
streamable HTTP, in its default mode (``auto``: probe ``server/discover`` at 2026-07-28, fall
back to ``initialize``), in its ``legacy`` mode (the ``initialize`` handshake) and pinned to
2026-07-28. The SDK itself validates every structured result against the tool's declared
output schema (``ClientSession.validate_tool_result``) and raises on a mismatch.
"""

import asyncio
import json
from contextlib import contextmanager

import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcp_server import views
from mcp_server.protocol import McpProtocol
from mcp_server.registry import Tool, ToolRegistry
from mcp_server.server import server_info
from mcp_server.tools import LIST_ENVELOPE, LIST_TENDERS_ARGUMENTS
from tenders import publication
from tenders.chinese import to_traditional
from tenders.models import SnapshotRow
from tenders.read.rows import ROW_COLUMNS, collapse, row_from_values
from tests.factories import SourceTenderFactory
from tests.mcp_support import TASK_LIST, TOOL_NAMES, publish_task_feed

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

MODES = {"auto": "2026-07-28", "legacy": "2025-11-25", "2026-07-28": "2026-07-28"}
RENDERED = {"list_tenders", "get_tender", "tender_facets"}


def run(coroutine):
    return asyncio.run(coroutine)


def text_of(result) -> dict:
    return json.loads(result.content[0].text)


@pytest.fixture
def feed(t0):
    """A published issue of five rows in three markets."""
    for market in ("HK", "HK", "SG", "SG", "GB"):
        SourceTenderFactory(market=market)
    publication.publish_issue(now=t0)
    return list(SnapshotRow.objects.order_by("sort_key").values_list("asaptic_id", flat=True))


@contextmanager
def recorded_requests(monkeypatch):
    """The headers and bodies the SDK sends, as the view receives them (the dispatcher is
    given only the headers MCP defines)."""
    seen: list[tuple[dict, dict]] = []
    real = views._post

    def recorder(request):
        headers = {k.lower(): v for k, v in request.headers.items()}
        seen.append((headers, json.loads(request.body)))
        return real(request)

    monkeypatch.setattr(views, "_post", recorder)
    yield seen


@pytest.mark.parametrize("mode", list(MODES))
def test_the_sdk_connects_lists_the_nine_tools_and_calls_each(live_server, feed, mode):
    url = live_server.url + "/mcp"

    async def scenario():
        async with Client(url, mode=mode) as client:
            assert client.protocol_version == MODES[mode]
            if mode != "2026-07-28":  # a pinned version skips discovery, so no server info
                assert client.server_info.name == "tender-feed"
            listed = await client.list_tools()
            assert [tool.name for tool in listed.tools] == TOOL_NAMES
            schemas = {tool.name: tool.output_schema for tool in listed.tools}
            results = {}
            for name, arguments in await _arguments_for_every_tool(client, feed):
                result = await client.call_tool(name, arguments)
                results[name] = result
                if name == "get_spec_coded":
                    gated = text_of(result)
                    assert result.is_error is True and gated["error"]["code"] == "SPEC_CODED_GATED"
                    assert gated["access_url"].startswith("http")
                else:
                    assert result.is_error is False, result.content[0].text
                    Draft202012Validator(schemas[name]).validate(result.structured_content)
                    if name in RENDERED:  # a text written for a model, not a JSON copy
                        assert result.structured_content["meta"]["issue_id"] in (
                            result.content[0].text
                        )
                    else:
                        assert text_of(result) == result.structured_content
            return results

    results = run(scenario())
    assert set(results) == set(TOOL_NAMES)


async def _arguments_for_every_tool(client, feed: list[str]) -> list[tuple[str, dict]]:
    lanes = await client.call_tool("list_sourcing_lanes", {})
    lane_id = lanes.structured_content["data"][0]["id"]
    return [
        ("list_tenders", {"market": ["HK", "SG"], "limit": 2}),
        ("get_tender", {"at_id": feed[0], "lang": "zht"}),
        ("tender_facets", {}),
        ("get_spec_coded", {"at_id": feed[0]}),
        (
            "request_tender_access",
            {
                "at_id": feed[0],
                "organisation": "Harbour Supplies Ltd",
                "contact": "bids@harbour.example",
                "purpose": "A bid",
            },
        ),
        (
            "submit_rfq",
            {"product": "network switches", "quantity": "40", "buyer_contact": "buyer@example.com"},
        ),
        ("list_sourcing_lanes", {}),
        ("get_lane_capability", {"lane_id": lane_id}),
        ("get_engagement", {}),
    ]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_pages_through_list_tenders_with_cursors(live_server, feed, mode):
    async def pages():
        async with Client(live_server.url + "/mcp", mode=mode) as client:
            await client.list_tools()
            ids, cursor = [], None
            while True:
                arguments = {"market": "HK,SG,GB", "limit": 2} | (
                    {"cursor": cursor} if cursor else {}
                )
                page = (await client.call_tool("list_tenders", arguments)).structured_content
                ids += [row["asaptic_id"] for row in page["data"]]
                cursor = page["meta"]["next_cursor"]
                if cursor is None:
                    return ids, page["meta"]["total"]

    ids, total = run(pages())
    assert ids == feed and total == 5


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_completes_the_task(live_server, t0, mode):
    """Find three HK medical tenders closing within two weeks and fetch one, with the
    structured content the SDK has checked against each tool's output schema."""
    wanted = publish_task_feed(t0)

    async def scenario():
        async with Client(live_server.url + "/mcp", mode=mode) as client:
            facets = (await client.call_tool("tender_facets", {})).structured_content
            slug = next(
                c["slug"]
                for c in facets["data"]["categories"]
                if c["name_en"].startswith("Medical")
            )
            page = await client.call_tool("list_tenders", {**TASK_LIST, "category": slug})
            rows = page.structured_content["data"]
            one = await client.call_tool("get_tender", {"at_id": rows[0]["asaptic_id"]})
            return page.structured_content, one.structured_content

    page, one = run(scenario())
    assert (page["meta"]["total"], page["meta"]["returned"], page["meta"]["lang"]) == (4, 3, "en")
    assert {row["asaptic_id"] for row in page["data"]} <= wanted
    assert {(row["market"], row["closing_bucket"]) for row in page["data"]} == {("HK", "le_2w")}
    assert all("sort_key" not in row for row in page["data"])
    assert one["data"] == page["data"][0]


def test_the_sdk_searches_list_tenders_with_several_words(live_server, t0):
    """Two words must both match, anywhere and in any order; a phrase as written."""
    texts = {
        "AT-TEST-0000000001": ("Fleet maintenance and repair", "车队保养及维修服务"),
        "AT-TEST-0000000002": ("Roof waterproofing and facade repair", "屋顶防水及外墙维修"),
        "AT-TEST-0000000003": ("Supply of electric fleet vehicles", "供应电动车队"),
    }
    for listing_id, (en, zh) in texts.items():
        SourceTenderFactory(
            listing_id=listing_id, summary_en=en, summary_zh=zh, summary_zht=to_traditional(zh)
        )
    publication.publish_issue(now=t0)

    async def scenario():
        async with Client(live_server.url + "/mcp") as client:
            found = {}
            for q in ("維修 FLEET", "repair", '"fleet maintenance"', "fleet 维修 roof"):
                result = await client.call_tool("list_tenders", {"q": q})
                assert result.is_error is False, result.content[0].text
                found[q] = sorted(r["asaptic_id"][-1] for r in result.structured_content["data"])
            bad = await client.call_tool("list_tenders", {"q": 'fleet "repair'})
            return found, bad

    found, bad = run(scenario())
    assert found == {
        "維修 FLEET": ["1"],  # Traditional finds the row written in Simplified
        "repair": ["1", "2"],
        '"fleet maintenance"': ["1"],
        "fleet 维修 roof": [],
    }
    assert bad.is_error is True
    assert text_of(bad) == {
        "error": {
            "code": "invalid_parameter",
            "message": 'q has an unmatched double quote; close the phrase ("fleet maintenance") '
            "or remove the quote.",
            "param": "q",
        }
    }


# --- the transport and the SDK's schema check, with a test-only registry ---------------------------


def _page_tool(rows: list[dict]) -> Tool:
    """list_tenders' real schemas over a test-only handler that pages published rows by offset."""

    def handler(arguments: dict) -> dict:
        limit = arguments.get("limit", 2)
        start = int(arguments.get("cursor", "0"))
        page = rows[start : start + limit]
        if "lang" in arguments:
            page = [collapse(row, arguments["lang"]) for row in page]
        more = start + limit < len(rows)
        meta = {
            "total": len(rows),
            "returned": len(page),
            "next_cursor": str(start + limit) if more else None,
            "issue_id": "2026-W48",
            "generated": "2026-11-23T06:00:00Z",
            "snapshot_etag": "e",
            "access": "public",
        }
        return {
            "data": page,
            "meta": meta | ({"lang": arguments["lang"]} if "lang" in arguments else {}),
        }

    return Tool(
        name="list_tenders",
        title="List",
        description="Test-only pager over published rows.",
        input_schema=LIST_TENDERS_ARGUMENTS,
        output_schema=LIST_ENVELOPE,
        handler=handler,
    )


BROKEN = Tool(
    name="broken",
    title="Broken",
    description="Returns a row with a private field, which the output schema forbids.",
    input_schema={"type": "object", "additionalProperties": False},
    output_schema=LIST_ENVELOPE,
    handler=lambda arguments: {"data": [{"buyer_name": "x"}], "meta": {}},
)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_validates_structured_results_and_follows_cursors(
    live_server, feed, monkeypatch, mode
):
    rows = [
        row_from_values(v)
        for v in SnapshotRow.objects.order_by("sort_key").values_list(*ROW_COLUMNS)
    ]
    registry = ToolRegistry([_page_tool(rows), BROKEN])
    monkeypatch.setattr(views, "protocol", lambda: McpProtocol(server_info(), registry))

    async def scenario():
        async with Client(live_server.url + "/mcp", mode=mode) as client:
            await client.list_tools()
            seen, cursor = [], None
            while True:
                arguments = {"limit": 2, "lang": "zh"} | ({"cursor": cursor} if cursor else {})
                result = await client.call_tool("list_tenders", arguments)
                assert result.is_error is False
                seen += [row["asaptic_id"] for row in result.structured_content["data"]]
                cursor = result.structured_content["meta"]["next_cursor"]
                if cursor is None:
                    break
            with pytest.raises(
                RuntimeError, match="Invalid structured content returned by tool broken"
            ):
                await client.call_tool("broken", {})
            return seen

    assert run(scenario()) == feed


def test_what_the_sdk_sends_in_each_mode(live_server, monkeypatch):
    async def session(mode):
        async with Client(live_server.url + "/mcp", mode=mode) as client:
            await client.list_tools()
            await client.call_tool("tender_facets", {})

    with recorded_requests(monkeypatch) as seen:
        run(session("auto"))
    assert [message["method"] for _, message in seen] == [
        "server/discover",
        "tools/list",
        "tools/call",
    ]
    for headers, message in seen:
        assert headers["mcp-protocol-version"] == "2026-07-28"
        assert headers["mcp-method"] == message["method"]
        assert headers["accept"] == "application/json, text/event-stream"
        assert message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
        assert "mcp-session-id" not in headers
    assert seen[-1][0]["mcp-name"] == "tender_facets"

    with recorded_requests(monkeypatch) as seen:
        run(session("legacy"))
    assert [message["method"] for _, message in seen] == [
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
    ]
    assert "mcp-protocol-version" not in seen[0][0]
    assert seen[0][1]["params"]["protocolVersion"] == "2025-11-25"
    assert {headers["mcp-protocol-version"] for headers, _ in seen[1:]} == {"2025-11-25"}
    assert all(
        "mcp-method" not in headers and "mcp-session-id" not in headers for headers, _ in seen
    )


def test_an_unknown_tool_reaches_the_sdk_as_a_protocol_error(live_server):
    async def scenario(mode):
        async with Client(live_server.url + "/mcp", mode=mode) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("no_such_tool", {})
            return caught.value.error.code, caught.value.error.message

    expected = (
        -32602,
        "Unknown tool: 'no_such_tool'. Call tools/list for the tools of this server.",
    )
    assert run(scenario("auto")) == expected
    assert run(scenario("legacy")) == expected

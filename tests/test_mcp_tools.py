"""The nine tools: definitions, schemas against real rows, argument spelling for the shared
parser, the domain door, and (once wired) the same data as REST."""

import json

import pytest
from jsonschema import Draft202012Validator

from mcp_server import tools
from mcp_server.tools import LIST_ENVELOPE, REGISTRY, read_arguments
from sourcing import selectors as sourcing
from tenders import contract, publication
from tenders.models import SnapshotRow
from tenders.read.filters import TenderFilterSet
from tenders.read.query import TOOL, Vocabulary
from tenders.read.rows import ROW_COLUMNS, collapse, row_from_values
from tests.factories import SourceTenderFactory
from tests.mcp_support import TOOL_NAMES

# Arguments that pass each tool's input schema, for calls that must reach the domain.
VALID_ARGUMENTS = {
    "list_tenders": {"market": ["HK", "SG"], "new": False, "limit": 2},
    "get_tender": {"at_id": "AT-TEST-0000000001", "lang": "zht"},
    "tender_facets": {},
    "get_spec_coded": {"at_id": "AT-TEST-0000000001"},
    "request_tender_access": {
        "at_id": "AT-TEST-0000000001",
        "organisation": "Harbour Supplies Ltd",
        "contact": "bids@harbour.example",
        "purpose": "Prepare a bid",
    },
    "submit_rfq": {
        "product": "network switches",
        "quantity": "40 units",
        "target_market": "HK",
        "buyer_contact": "buyer@example.com",
        "idempotency_key": "k-1",
    },
    "list_sourcing_lanes": {"market": "hk"},
    "get_lane_capability": {"lane_id": "medical-consumables"},
    "get_engagement": {},
}


def call(name: str, arguments: dict) -> dict:
    return REGISTRY.call(name, arguments)


def error_of(result: dict) -> dict:
    assert result["isError"] is True and "structuredContent" not in result
    return json.loads(result["content"][0]["text"])


def test_the_nine_tools_in_their_listed_order():
    assert REGISTRY.names() == TOOL_NAMES
    for definition in REGISTRY.definitions():
        assert set(definition) == {
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
        }
        assert definition["inputSchema"]["type"] == "object"
        assert definition["inputSchema"]["additionalProperties"] is False
        assert definition["outputSchema"]["type"] == "object"
        Draft202012Validator.check_schema(definition["inputSchema"])
        Draft202012Validator.check_schema(definition["outputSchema"])
        assert len(definition["description"]) > 40
    annotations = {d["name"]: d["annotations"] for d in REGISTRY.definitions()}
    writes = {name for name, hints in annotations.items() if not hints.get("readOnlyHint")}
    assert writes == {"request_tender_access", "submit_rfq"}
    assert all(annotations[name] == {"destructiveHint": False} for name in writes)


def test_the_tool_list_is_under_8000_characters_as_sent():
    """What a model reads on every session (bench/mcp_sizes.py prints it with the rest)."""
    from mcp_server.server import protocol
    from tests.mcp_support import modern

    message = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    handshake = protocol().handle(message, {"MCP-Protocol-Version": "2025-11-25"})
    stateless = protocol().handle(*modern("tools/list"))  # adds ttlMs, cacheScope, _meta
    for reply in (handshake, stateless):
        assert len(reply.body["result"]["tools"]) == 9
        assert len(json.dumps(reply.body["result"], ensure_ascii=False)) < 8000


def test_typed_arguments_are_the_query_their_rest_spelling_is():
    # The tool hands its typed arguments to the listing's FilterSet (the one parser), which
    # reads them as it reads REST's query strings.
    arguments = read_arguments(
        {
            "market": ["HK", "sg"],
            "category": "it-hardware",
            "new": True,
            "lead_ok": False,
            "limit": 20.0,
            "q": "医疗",
            "with_sort_key": True,
        }
    )
    assert arguments["limit"] == 20 and isinstance(arguments["limit"], int)
    assert "with_sort_key" not in arguments
    vocabulary = Vocabulary(("it-hardware",), {"it-hardware": "it-hardware"})
    spelled = {
        "market": "HK,sg",
        "category": "it-hardware",
        "new": "true",
        "lead_ok": "false",
        "limit": "20",
        "q": "医疗",
    }
    typed = TenderFilterSet(arguments, vocabulary=vocabulary, surface=TOOL).query
    assert typed == TenderFilterSet(spelled, vocabulary=vocabulary, surface=TOOL).query


@pytest.mark.parametrize(
    ("arguments", "message", "param"),
    [
        (
            {"limit": "50"},
            "Argument 'limit' of list_tenders must be an integer, not a string.",
            "limit",
        ),
        (
            {"new": "true"},
            "Argument 'new' of list_tenders must be true or false, not a string.",
            "new",
        ),
        (
            {"market": [1]},
            "Argument 'market' item 0 of list_tenders must be a string, not an integer.",
            "market",
        ),
        (
            {"market": 7},
            "Argument 'market' of list_tenders must be a string or an array of strings, not an "
            "integer.",
            "market",
        ),
        (
            {"page": 2},
            "Unknown argument 'page'; list_tenders accepts: market, category, closing_bucket, new, "
            "lead_ok, value_band, q, lang, limit, cursor, with_sort_key.",
            "page",
        ),
    ],
)
def test_list_tenders_argument_types_are_checked_before_the_domain(arguments, message, param):
    assert error_of(call("list_tenders", arguments)) == {
        "error": {"code": "invalid_parameter", "message": message, "param": param}
    }


@pytest.mark.parametrize(
    ("name", "missing"),
    [
        ("get_tender", "at_id"),
        ("get_spec_coded", "at_id"),
        ("request_tender_access", "organisation"),
        ("submit_rfq", "product"),
        ("get_lane_capability", "lane_id"),
    ],
)
def test_required_arguments_are_named(name, missing):
    assert error_of(call(name, {})) == {
        "error": {
            "code": "invalid_parameter",
            "message": f"Missing required argument '{missing}' of {name}.",
            "param": missing,
        }
    }


# --- output schemas against real rows ---------------------------------------------------------


@pytest.fixture
def published_rows(db, t0):
    SourceTenderFactory(market="HK", amount=None, currency="")
    SourceTenderFactory(market="SG")
    SourceTenderFactory(market="GB", lead_ok=False)
    publication.publish_issue(now=t0)
    return [
        row_from_values(values)
        for values in SnapshotRow.objects.order_by("sort_key").values_list(*ROW_COLUMNS)
    ]


def _envelope(rows: list[dict], **meta) -> dict:
    return {
        "data": rows,
        "meta": {
            "total": len(rows),
            "returned": len(rows),
            "next_cursor": None,
            "issue_id": "2026-W48",
            "generated": "2026-11-23T06:00:00Z",
            "snapshot_etag": "0123abcd",
            "access": "public",
            **meta,
        },
    }


def _tool_rows(rows: list[dict], lang: str = "en") -> list[dict]:
    return [{k: v for k, v in collapse(row, lang).items() if k != "sort_key"} for row in rows]


def test_the_list_envelope_schema_accepts_served_rows_in_every_shape(published_rows):
    validator = Draft202012Validator(LIST_ENVELOPE)
    assert len(published_rows) == 3
    for lang in ("en", "zh", "zht"):
        validator.validate(_envelope(_tool_rows(published_rows, lang), lang=lang))
        validator.validate(_envelope([collapse(row, lang) for row in published_rows], lang=lang))
    validator.validate({**_envelope([]), "meta": {**_envelope([])["meta"], "next_cursor": "abc"}})


@pytest.mark.parametrize(
    "damage",
    [
        lambda env: env["data"][0].update(buyer_name="Harbour District Works Office"),
        lambda env: env["data"][0].update(summary_en="A second language"),
        lambda env: env["data"][0].pop("summary"),
        lambda env: env["meta"].pop("next_cursor"),
        lambda env: env["meta"].pop("total"),
        lambda env: env.update(data={}),
        lambda env: env.pop("meta"),
    ],
)
def test_the_list_envelope_schema_refuses_anything_else(published_rows, damage):
    envelope = _envelope(_tool_rows(published_rows), lang="en")
    damage(envelope)
    assert not Draft202012Validator(LIST_ENVELOPE).is_valid(envelope)


def test_the_facets_tool_answers_the_vocabulary_and_the_feed_state(published_rows, t0):
    from tenders.read.selectors import current_issue

    issue = current_issue()
    result = call("tender_facets", {})
    facets = result["structuredContent"]
    Draft202012Validator(REGISTRY.get("tender_facets").output_schema).validate(facets)
    assert facets["meta"] == {
        "issue_id": "2026-W48",
        "generated": "2026-11-23T06:00:00Z",
        "snapshot_etag": issue.snapshot_etag,
        "access": "public",
        "status": "ok",
        "feed_fresh": True,
        "rows_total": 3,
        "withheld": 0,
    }
    assert [m["code"] for m in facets["data"]["markets"] if m["count"]] == ["HK", "SG", "GB"]
    # The text: the vocabulary one group a line, names in one language (English by default).
    lines = result["content"][0]["text"].splitlines()
    assert (
        lines[0]
        == "Issue 2026-W48 (generated 2026-11-23T06:00:00Z): 3 rows, 0 withheld; status ok."
    )
    assert lines[2].startswith("market: HK (Hong Kong) 1, MO (Macao) 0, SG (Singapore) 1, GB (")
    assert "it-hardware (IT hardware and equipment) 3" in lines[3]
    assert lines[4:] == [
        "closing_bucket: le_2w 0, 2_4w 3, gt_4w 0, deadline_passed 0",
        "value_band: lt_500k 2, 500k_2m 0, 2m_10m 0, gt_10m 0, unspecified 1",
    ]
    in_chinese = call("tender_facets", {"lang": "zht"})
    assert in_chinese["structuredContent"] == facets
    assert "it-hardware (資訊科技硬件及設備) 3" in in_chinese["content"][0]["text"]
    assert error_of(call("tender_facets", {"lang": "fr"}))["error"]["param"] == "lang"


# --- the sourcing tools call the sourcing selectors ----------------------------------------------


@pytest.mark.django_db
def test_list_sourcing_lanes_filters_by_market():
    lanes = call("list_sourcing_lanes", {"market": "gb"})["structuredContent"]
    serving_gb = [lane for lane in sourcing.list_lanes() if "GB" in lane["markets"]]
    assert lanes == {"data": serving_gb, "meta": {"returned": len(serving_gb), "market": "GB"}}
    everything = call("list_sourcing_lanes", {})["structuredContent"]
    assert everything == {"data": sourcing.list_lanes(), "meta": {"returned": 4, "market": None}}
    for result in (lanes, everything):
        Draft202012Validator(REGISTRY.get("list_sourcing_lanes").output_schema).validate(result)
    assert error_of(call("list_sourcing_lanes", {"market": "xx"})) == {
        "error": {
            "code": "invalid_parameter",
            "message": "market: no sourcing lane serves 'xx'; markets served: AU, CA, EU, GB, "
            "HK, MO, SG.",
            "param": "market",
        }
    }


@pytest.mark.django_db
def test_get_lane_capability_and_engagement():
    lane = call("get_lane_capability", {"lane_id": "it-network-hardware"})["structuredContent"]
    assert lane == {"data": sourcing.get_lane("it-network-hardware")}
    Draft202012Validator(REGISTRY.get("get_lane_capability").output_schema).validate(lane)
    assert error_of(call("get_lane_capability", {"lane_id": "lane-z"})) == {
        "error": {
            "code": "not_found",
            "message": "lane_id: no sourcing lane 'lane-z'; lanes: medical-consumables, "
            "it-network-hardware, office-school-furniture, solar-energy-equipment.",
            "param": "lane_id",
        }
    }
    engagement = call("get_engagement", {})["structuredContent"]
    assert engagement == {"data": sourcing.get_engagement()}
    Draft202012Validator(REGISTRY.get("get_engagement").output_schema).validate(engagement)


# --- one implementation: the tool and REST answer alike ------


@pytest.mark.django_db
def test_list_tenders_and_rest_return_identical_data(client, t0):
    for market in ("HK", "HK", "SG", "SG", "GB"):
        SourceTenderFactory(market=market)
    publication.publish_issue(now=t0)

    def rest(query: dict) -> tuple[int, dict]:
        response = client.get("/api/v1/tenders", query)
        return response.status_code, response.json()

    def tool(arguments: dict) -> dict:
        result = call("list_tenders", arguments)
        return error_of(result) if result["isError"] else result["structuredContent"]

    status, first = rest({"market": "hk,SG", "lang": "zh", "limit": "2"})
    assert status == 200 and first["meta"]["total"] == 4
    # The same page; the tool's rows leave out sort_key unless asked for (the cursor carries
    # the position).
    assert tool({"market": ["hk", "SG"], "lang": "zh", "limit": 2}) == without_sort_key(first)
    assert tool({"market": ["hk", "SG"], "lang": "zh", "limit": 2, "with_sort_key": True}) == first
    # A cursor from REST works in the tool, and the other way round.
    second = tool(
        {"market": "hk,SG", "lang": "zh", "limit": 2, "cursor": first["meta"]["next_cursor"]}
    )
    assert (
        without_sort_key(
            rest(
                {
                    "market": "hk,SG",
                    "lang": "zh",
                    "limit": "2",
                    "cursor": first["meta"]["next_cursor"],
                }
            )[1]
        )
        == second
    )
    assert second["meta"]["next_cursor"] is None and second["meta"]["returned"] == 2
    # The same refusals, word for word, but for the surface's own default page size.
    assert tool({"limit": 500})["error"]["message"] == (
        "limit must be a whole number from 1 to 200 (default 10); got '500'. Follow "
        "meta.next_cursor to read further."
    )
    assert rest({"limit": "500"})[1]["error"]["message"] == (
        "limit must be a whole number from 1 to 200 (default 50); got '500'. Follow "
        "meta.next_cursor to read further."
    )
    for query, arguments in (
        ({"market": "XX"}, {"market": "XX"}),
        ({"cursor": "forged"}, {"cursor": "forged"}),
        (
            {"market": "GB", "cursor": first["meta"]["next_cursor"]},
            {"market": "GB", "cursor": first["meta"]["next_cursor"]},
        ),
    ):
        status, refusal = rest(query)
        assert status == 400 and tool(arguments) == refusal


def without_sort_key(page: dict) -> dict:
    rows = page["data"] if isinstance(page["data"], list) else [page["data"]]
    lean = [{k: v for k, v in row.items() if k != "sort_key"} for row in rows]
    return {**page, "data": lean if isinstance(page["data"], list) else lean[0]}


@pytest.mark.django_db
def test_the_tool_pages_10_english_rows_by_default_and_rest_50_in_three_languages(client, t0):
    from tests.api.feed import publish_feed

    publish_feed(t0)
    rest = client.get("/api/v1/tenders").json()
    english = client.get("/api/v1/tenders", {"lang": "en"}).json()
    result = call("list_tenders", {})
    tool = result["structuredContent"]
    assert (rest["meta"]["total"], rest["meta"]["returned"]) == (63, 50)
    assert set(rest["data"][0]) >= {"summary_en", "summary_zh", "summary_zht", "sort_key"}
    assert (tool["meta"]["total"], tool["meta"]["returned"], tool["meta"]["lang"]) == (63, 10, "en")
    assert tool["data"] == without_sort_key(english)["data"][:10]
    following = call("list_tenders", {"cursor": tool["meta"]["next_cursor"]})["structuredContent"]
    assert following["data"] == without_sort_key(english)["data"][10:20]
    Draft202012Validator(LIST_ENVELOPE).validate(tool)
    # The text: a head line, one line a row, and how to read on.
    lines = result["content"][0]["text"].splitlines()
    assert lines[0].startswith("63 rows match; 10 shown (issue 2026-W48, English). Columns: id |")
    assert len(lines) == 12
    first = tool["data"][0]
    assert lines[1] == " | ".join(
        (
            first["asaptic_id"],
            first["market"],
            first["category"]["name"],
            first["closing_bucket"],
            first["value_band"] or "-",
            first["summary"],
        )
    )
    assert lines[-1] == (
        f'More: call again with the same arguments and cursor "{tool["meta"]["next_cursor"]}".'
    )
    assert "sort_key" not in result["content"][0]["text"]
    # One row: the same row, one language, its flags in the text.
    one = call("get_tender", {"at_id": first["asaptic_id"]})
    assert one["structuredContent"]["data"] == first
    assert lines[1] in one["content"][0]["text"].splitlines()
    chinese = call(
        "get_tender", {"at_id": first["asaptic_id"], "lang": "zh", "with_sort_key": True}
    )
    assert chinese["structuredContent"]["data"] == next(
        row
        for row in client.get("/api/v1/tenders", {"lang": "zh"}).json()["data"]
        if row["asaptic_id"] == first["asaptic_id"]
    )
    Draft202012Validator(tools.ONE_ENVELOPE).validate(chinese["structuredContent"])
    # The last page says so.
    last = call("list_tenders", {"q": "zzzz-nothing"})
    assert last["content"][0]["text"].startswith("0 rows match; 0 shown")


@pytest.mark.django_db
def test_tool_errors_name_tools_not_rest_paths(t0):
    from tests.api.feed import publish_feed

    issue = publish_feed(t0)
    rows = SnapshotRow.objects.filter(issue=issue).order_by("sort_key")
    first_id = rows.values_list("asaptic_id", flat=True)[0]
    missing = error_of(call("get_tender", {"at_id": "AT-TEST-ZZZZZZZZZZ"}))
    assert missing == {
        "error": {
            "code": "not_found",
            "message": f"No listing with this id in the current issue. Listing ids look like "
            f"{first_id}; rows come and go with each weekly issue, and the list_tenders tool "
            "lists the current ones.",
        }
    }
    assert error_of(call("get_tender", {"at_id": "nonsense"})) == missing
    category = error_of(call("list_tenders", {"category": "bridges"}))
    assert category["error"]["message"] == (
        "category 'bridges' is not in this issue's vocabulary; give a slug or an English, "
        "Simplified or Traditional Chinese name as listed by the tender_facets tool (e.g. "
        "construction-works)."
    )


@pytest.mark.django_db
def test_before_the_first_issue_the_tender_tools_name_the_tools_that_answer():
    unavailable = {
        "error": {
            "code": "service_unavailable",
            "message": "No issue of the feed is published yet; try again later. list_tenders, "
            "get_tender and tender_facets answer from the first weekly issue on; "
            "list_sourcing_lanes, get_engagement and submit_rfq answer now.",
        }
    }
    for name in ("list_tenders", "get_tender", "tender_facets"):
        assert error_of(call(name, VALID_ARGUMENTS[name])) == unavailable, name
    # What it promises holds: those tools answer with no issue published.
    for name in ("list_sourcing_lanes", "get_engagement", "submit_rfq"):
        assert call(name, VALID_ARGUMENTS[name])["isError"] is False, name


def test_output_schemas_outline_the_published_files():
    """Types and structure only (tools/list is read by models on every session); the values'
    rules are in the published files, which the served results also satisfy."""

    def published(name, depth=1):
        schema = tools.outline(contract.embedded(contract.load(name)), depth)
        schema.pop("additionalProperties", None)
        return schema

    outputs = {d["name"]: d["outputSchema"] for d in REGISTRY.definitions()}
    assert outputs["list_tenders"] == LIST_ENVELOPE
    row = LIST_ENVELOPE["properties"]["data"]["items"]
    assert row == tools.tool_row() == tools.ONE_ENVELOPE["properties"]["data"]
    lang_row = contract.load(contract.LANG_ROW)
    assert row["propertyNames"]["enum"] == list(lang_row["properties"])
    assert set(lang_row["required"]) - set(row["required"]) == {"sort_key"}
    assert outputs["tender_facets"] == published(contract.FACETS)
    assert outputs["submit_rfq"] == published(contract.RFQ_RECEIPT)
    assert outputs["request_tender_access"] == published(contract.ACCESS_RECEIPT)
    assert outputs["get_engagement"]["properties"]["data"] == published(contract.ENGAGEMENT, 0)
    query = contract.embedded(contract.load(contract.QUERY))
    arguments = REGISTRY.get("list_tenders").input_schema
    assert (
        arguments["properties"]["market"]["anyOf"]
        == tools.outline(query["properties"]["market"], 1)["anyOf"]
    )
    assert arguments["properties"]["limit"]["default"] == 10
    assert set(arguments["properties"]) == {*query["properties"], "with_sort_key"}
    # Portable spellings only: no type arrays anywhere a client reads.
    assert '"type": [' not in json.dumps(REGISTRY.definitions())


# --- the intake tools go through the intake services ------------------------------------------


@pytest.mark.django_db
def test_submit_rfq_stores_once_through_the_intake_service():
    from rfq.models import Rfq

    first = call("submit_rfq", VALID_ARGUMENTS["submit_rfq"])
    again = call("submit_rfq", VALID_ARGUMENTS["submit_rfq"])  # a retry with the same key

    assert first["isError"] is False and again["structuredContent"] == first["structuredContent"]
    receipt = first["structuredContent"]
    assert receipt["received"] is True and "within 4 hours" in receipt["next"]
    stored = Rfq.objects.get()
    assert (stored.reference, stored.product, stored.quantity, stored.target_market) == (
        receipt["reference"],
        "network switches",
        "40 units",
        "HK",
    )


@pytest.mark.django_db
def test_submit_rfq_answers_with_the_same_refusal_as_post_rfq(client):
    from rfq.models import Rfq

    bad = {"product": "network switches", "buyer_contact": "call me maybe"}
    over_http = client.post("/rfq", bad, content_type="application/json")
    assert over_http.status_code == 400
    assert error_of(call("submit_rfq", bad)) == over_http.json()
    assert over_http.json()["error"]["param"] == "buyer_contact"
    assert not Rfq.objects.exists()


@pytest.mark.django_db
def test_request_tender_access_stores_an_access_request():
    from rfq.models import AccessRequest

    result = call("request_tender_access", VALID_ARGUMENTS["request_tender_access"])

    assert result["isError"] is False
    stored = AccessRequest.objects.get()
    assert stored.reference == result["structuredContent"]["reference"]
    assert (stored.at_id, stored.organisation) == ("AT-TEST-0000000001", "Harbour Supplies Ltd")
    refused = error_of(
        call(
            "request_tender_access",
            {**VALID_ARGUMENTS["request_tender_access"], "contact": "nobody"},
        )
    )
    assert (refused["error"]["code"], refused["error"]["param"]) == ("invalid_parameter", "contact")
    assert AccessRequest.objects.count() == 1


# --- a client that reads only the text content ----------------------------------------------


@pytest.mark.django_db
def test_a_client_reading_only_the_text_completes_the_task(client, t0):
    """Find three HK medical tenders closing within two weeks and fetch one, over POST /mcp,
    reading nothing of a result but its text content (as many agent hosts show a model)."""
    from tests.mcp_support import TASK_LIST, ids_in, medical_slug, publish_task_feed

    wanted = publish_task_feed(t0)

    def text_of(name: str, arguments: dict) -> str:
        message = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        response = client.post(
            "/mcp",
            json.dumps(message),
            content_type="application/json",
            headers={
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-11-25",
            },
        )
        result = response.json()["result"]
        assert result["isError"] is False
        return "\n".join(block["text"] for block in result["content"])

    slug = medical_slug(text_of("tender_facets", {}))
    page = text_of("list_tenders", {**TASK_LIST, "category": slug})
    assert page.startswith("4 rows match; 3 shown (issue 2026-W48, English).")
    found = ids_in(page)
    assert len(found) == 3 and set(found) <= wanted
    assert all(
        " | HK | Medical supplies and equipment | le_2w | " in line
        for line in page.splitlines()[1:4]
    )
    # The cursor in the text reads the fourth.
    cursor = page.splitlines()[-1].split('cursor "')[1].rstrip('".')
    rest = text_of("list_tenders", {**TASK_LIST, "category": slug, "cursor": cursor})
    assert set(found + ids_in(rest)) == wanted and rest.endswith("Last page.")
    one = text_of("get_tender", {"at_id": found[0]})
    assert ids_in(one) == [found[0]] and " | le_2w | " in one


# --- quotes from any contact, about a named listing -------------------------------------------

CONTACTS = [
    ("buyer@example.com", "buyer@example.com"),
    ("+85221234567", "+852 2123 4567"),
    ("WeChat: harbour_lighting", "WeChat: harbour_lighting"),
    ("whatsapp: +85291234567", "WhatsApp: +852 9123 4567"),
    ("Line: HarbourLight", "Line: harbourlight"),
    ("Telegram: @harbour_lighting", "Telegram: @harbour_lighting"),
]
BAD_CONTACTS = [
    "buyer@example",
    "2123 4567",
    "WeChat: abc",
    "WhatsApp: 9123 4567",
    "Line: harbour light",
    "Telegram: harbour_lighting",
    "Skype: harbour",
]


@pytest.mark.django_db
@pytest.mark.parametrize("given, stored", CONTACTS)
def test_submit_rfq_and_post_rfq_take_every_contact_kind(client, given, stored):
    from django.core.cache import cache

    from rfq.models import Rfq

    cache.clear()
    arguments = {"product": "network switches", "buyer_contact": given}
    assert call("submit_rfq", arguments)["isError"] is False
    assert client.post("/rfq", arguments, content_type="application/json").status_code == 200
    assert list(Rfq.objects.values_list("buyer_contact", flat=True)) == [stored, stored]


@pytest.mark.django_db
@pytest.mark.parametrize("given", BAD_CONTACTS)
def test_submit_rfq_and_post_rfq_refuse_a_bad_contact_of_every_kind(client, given):
    from rfq.models import Rfq

    arguments = {"product": "network switches", "buyer_contact": given}
    over_http = client.post("/rfq", arguments, content_type="application/json")
    assert over_http.status_code == 400
    assert over_http.json()["error"]["param"] == "buyer_contact"
    assert error_of(call("submit_rfq", arguments)) == over_http.json()
    assert not Rfq.objects.exists()


def test_submit_rfq_documents_the_listing_id_and_every_contact_kind():
    schema = REGISTRY.get("submit_rfq").input_schema
    assert "asaptic_id" in schema["properties"]
    assert "asaptic_id" not in schema["required"]
    contact = schema["properties"]["buyer_contact"]["description"]
    for kind in ("WeChat: ", "WhatsApp: +", "Line: ", "Telegram: @", "e-mail", "+852"):
        assert kind in contact


def test_submit_rfq_names_a_listing_of_the_current_issue(client, published_rows):
    from django.core.cache import cache

    from rfq.models import Rfq

    cache.clear()
    at_id = published_rows[0]["asaptic_id"]
    arguments = {"product": "network switches", "buyer_contact": "WeChat: harbour_lighting"}
    assert call("submit_rfq", {**arguments, "asaptic_id": at_id.lower()})["isError"] is False
    assert Rfq.objects.get().asaptic_id == at_id

    absent = "AT-TEST-ZZZZZZZZZZ"
    refusal = {
        "error": {
            "code": "invalid_parameter",
            "message": f"asaptic_id {absent} is not a listing of the current issue: take the id "
            "from a row of the current listing, or leave asaptic_id out.",
            "param": "asaptic_id",
        }
    }
    assert error_of(call("submit_rfq", {**arguments, "asaptic_id": absent})) == refusal
    over_http = client.post(
        "/rfq", {**arguments, "asaptic_id": absent}, content_type="application/json"
    )
    assert (over_http.status_code, over_http.json()) == (400, refusal)
    assert Rfq.objects.count() == 1


@pytest.mark.django_db
def test_a_listing_id_is_refused_before_any_issue_is_published():
    from rfq.models import Rfq

    arguments = {
        "product": "network switches",
        "buyer_contact": "buyer@example.com",
        "asaptic_id": "AT-TEST-0000000001",
    }
    assert error_of(call("submit_rfq", arguments))["error"]["param"] == "asaptic_id"
    assert not Rfq.objects.exists()

"""Each published shape validates the live answers of every surface that returns it: REST, the
tool server over HTTP (structured results, and the text of tool errors) and the intake."""

import json

import pytest
from jsonschema import Draft202012Validator

from tenders import contract

pytestmark = pytest.mark.django_db

MCP_HEADERS = {
    "HTTP_ACCEPT": "application/json, text/event-stream",
    "HTTP_MCP_PROTOCOL_VERSION": "2025-11-25",
}
RFQ = {"product": "LED street lights", "buyer_contact": "buyer@example.com"}


def check(name: str, *answers: dict) -> None:
    validator = Draft202012Validator(
        contract.load(name), format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    for answer in answers:
        validator.validate(answer)


def tool(client, name: str, arguments: dict) -> dict:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    response = client.post(
        "/mcp", json.dumps(message), content_type="application/json", **MCP_HEADERS
    )
    assert response.status_code == 200
    return response.json()["result"]


def structured(client, name: str, arguments: dict) -> dict:
    result = tool(client, name, arguments)
    assert result["isError"] is False, result
    return result["structuredContent"]


def tool_error(client, name: str, arguments: dict) -> dict:
    result = tool(client, name, arguments)
    assert result["isError"] is True
    return json.loads(result["content"][0]["text"])


def rest(client, path: str, status: int = 200, **params) -> dict:
    response = client.get(path, params)
    assert response.status_code == status, response.content[:300]
    return response.json()


def with_sort_keys(answer: dict, rows: list[dict]) -> dict:
    """A tool's answer with each row's sort_key written back (no other change)."""
    keys = {row["asaptic_id"]: row["sort_key"] for row in rows}
    data = answer["data"]
    for row in data if isinstance(data, list) else [data]:
        assert "sort_key" not in row
        row["sort_key"] = keys[row["asaptic_id"]]
    return answer


def test_the_feed_shapes(client, feed):
    _, rows = feed
    at_id = rows[3]["asaptic_id"]
    pages = [
        rest(client, "/api/v1/tenders"),
        rest(client, "/api/v1/tenders", lang="zh", closing_bucket="all"),
        structured(client, "list_tenders", {"with_sort_key": True}),
        structured(client, "list_tenders", {"lang": "zh", "market": ["HK", "SG"], "limit": 20}),
    ]
    # The tools' rows leave out sort_key unless asked for: the published row otherwise.
    pages[3] = with_sort_keys(pages[3], rows)
    check(contract.PAGE, *pages)
    check(contract.PAGE_META, *(page["meta"] for page in pages))
    assert [len(page["data"]) for page in pages] == [50, 50, 10, 18]
    check(
        contract.ONE,
        rest(client, f"/api/v1/tenders/{at_id}"),
        rest(client, f"/api/v1/tenders/{at_id}", lang="zht"),
        structured(client, "get_tender", {"at_id": at_id, "with_sort_key": True}),
        with_sort_keys(structured(client, "get_tender", {"at_id": at_id, "lang": "zh"}), rows),
    )
    facets = [rest(client, "/api/v1/tenders/facets"), structured(client, "tender_facets", {})]
    check(contract.FACETS, *facets)
    assert facets[0] == facets[1]
    check(contract.HEALTH, rest(client, "/api/v1/health"), rest(client, "/healthz"))
    flat = client.get("/tender/rows.json")
    check(contract.FLAT_FILE, json.loads(b"".join(flat.streaming_content)))
    # The listing's parameters, as the tool received them above, are the query schema's.
    check(contract.QUERY, {}, {"lang": "en", "market": ["HK", "SG"]}, {"market": "HK"})


def test_the_sourcing_shapes(client):
    capabilities = rest(client, "/agent/capabilities.json")
    check(contract.CAPABILITIES, capabilities)
    lanes = structured(client, "list_sourcing_lanes", {})["data"]
    lane = structured(client, "get_lane_capability", {"lane_id": lanes[0]["id"]})["data"]
    check(contract.LANE, *lanes, lane, *capabilities["lanes"])
    engagement = structured(client, "get_engagement", {})["data"]
    check(contract.ENGAGEMENT, engagement, capabilities["engagement"])
    assert engagement == capabilities["engagement"]


def test_the_receipts(client):
    over_http = client.post("/rfq", json.dumps(RFQ), content_type="application/json")
    assert over_http.status_code == 200
    check(contract.RFQ_RECEIPT, over_http.json(), structured(client, "submit_rfq", RFQ))
    access = {"organisation": "Harbour Supplies Ltd", "contact": "bids@example.com"}
    access["purpose"] = "Prepare a bid"
    check(contract.ACCESS_RECEIPT, structured(client, "request_tender_access", access))


def test_every_error_body(client, feed):
    _, rows = feed
    errors = [
        rest(client, "/api/v1/tenders", 400, market="XX"),
        rest(client, "/api/v1/tenders", 400, cursor="forged"),
        rest(client, "/api/v1/tenders", 400, page="2"),
        rest(client, "/api/v1/tenders/AT-TEST-ZZZZZZZZZZ", 404),
        rest(client, f"/api/v1/spec-coded/{rows[0]['asaptic_id']}", 403),
        rest(client, "/schema/service.tender.v9.json", 404),
        client.post("/api/v1/tenders").json(),
        client.post("/rfq", json.dumps({"product": "x"}), content_type="application/json").json(),
        client.post("/rfq", "product=x", content_type="application/x-www-form-urlencoded").json(),
        tool_error(client, "list_tenders", {"limit": 500}),
        tool_error(client, "list_tenders", {"limit": "5"}),
        tool_error(client, "get_tender", {"at_id": "AT-TEST-ZZZZZZZZZZ"}),
        tool_error(client, "get_spec_coded", {"at_id": rows[0]["asaptic_id"]}),
        tool_error(client, "submit_rfq", {"product": "x", "buyer_contact": "nobody"}),
        tool_error(client, "get_lane_capability", {"lane_id": "nowhere"}),
    ]
    check(contract.ERROR, *errors)
    codes = [error["error"]["code"] for error in errors]
    assert codes == [
        "invalid_parameter",
        "invalid_cursor",
        "invalid_parameter",
        "not_found",
        "SPEC_CODED_GATED",
        "not_found",
        "method_not_allowed",
        "invalid_parameter",
        "invalid_body",
        "invalid_parameter",
        "invalid_parameter",
        "not_found",
        "SPEC_CODED_GATED",
        "invalid_parameter",
        "not_found",
    ]

"""HTTP semantics of the public paths: methods, JSON errors, CORS, and discovery documents."""

import json
import re

import pytest
from django.urls import path

from tenders.api.discovery import OPENAPI_FILE, openapi_bytes

pytestmark = pytest.mark.django_db

GET_PATHS = [
    "/api/v1/tenders",
    "/api/v1/tenders/facets",
    "/api/v1/tenders/AT-0123456789",
    "/api/v1/health",
    "/healthz",
    "/api/v1/spec-coded/AT-0123456789",
    "/agent/capabilities.json",
    "/tender/rows.json",
]


@pytest.mark.parametrize("url", GET_PATHS)
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_wrong_methods_get_405_with_allow(client, feed, url, method):
    response = getattr(client, method)(url, data="{}", content_type="application/json")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, OPTIONS"
    assert response.json() == {
        "error": {
            "code": "method_not_allowed",
            "message": f"Method {method.upper()} is not allowed here; use GET, HEAD, OPTIONS.",
        }
    }
    assert response["Content-Type"] == "application/json"


@pytest.mark.parametrize("url", GET_PATHS)
def test_head_and_cors_preflight(client, feed, url):
    head = client.head(url)
    assert head.status_code in (200, 403, 404)
    assert head["Access-Control-Allow-Origin"] == "*"
    preflight = client.options(
        url,
        HTTP_ORIGIN="https://app.example.com",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="if-none-match",
    )
    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert preflight["Access-Control-Allow-Methods"] == "GET, HEAD, OPTIONS"
    assert preflight["Access-Control-Allow-Headers"] == "Accept, If-None-Match"
    assert preflight["Access-Control-Expose-Headers"] == "ETag, Retry-After"


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/nothing",
        "/api/v2/tenders",
        "/api/v1/tenders/",
        "/api/v1/health/",
        "/agent/nothing.json",
        "/tender/rows.csv",
        "/api/",
    ],
)
def test_unknown_paths_under_the_json_prefixes_get_a_json_404(client, url):
    response = client.get(url)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "error": {
            "code": "not_found",
            "message": "No such path. The API is described at /openapi.json and /llms.txt.",
        }
    }
    assert response["Access-Control-Allow-Origin"] == "*"


def crash(request):
    raise RuntimeError("boom")


urlpatterns = [
    path("api/v1/crash", crash),
    path("tender/crash", crash),
    path("elsewhere/crash", crash),
]


def test_a_crash_under_the_json_prefixes_is_a_json_500(client, settings):
    settings.ROOT_URLCONF = __name__
    client.raise_request_exception = False
    for url in ("/api/v1/crash", "/tender/crash"):
        response = client.get(url)
        assert response.status_code == 500
        assert response.json() == {
            "error": {
                "code": "internal_error",
                "message": "Something went wrong on our side; it has been logged.",
            }
        }
    assert client.get("/elsewhere/crash").status_code == 500
    assert client.get("/elsewhere/crash")["Content-Type"].startswith("text/html")


def test_pages_outside_the_json_prefixes_keep_html_errors(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    assert not response.has_header("Access-Control-Allow-Origin")


# --- discovery --------------------------------------------------------------------------


def test_the_committed_openapi_document_is_what_the_code_generates():
    assert OPENAPI_FILE.read_bytes() == openapi_bytes(), (
        "docs/openapi.json is out of date: run `python manage.py openapi`"
    )


CONTRACT_OPERATIONS = {
    ("/api/v1/tenders", "get"): "listTenders",
    ("/api/v1/tenders/{at_id}", "get"): "getTender",
    ("/api/v1/tenders/facets", "get"): "getTenderFacets",
    ("/api/v1/health", "get"): "getFeedHealth",
    ("/healthz", "get"): "getFeedHealthAlias",
    ("/api/v1/spec-coded/{at_id}", "get"): "specCodedAccessPath",
    ("/agent/capabilities.json", "get"): "getCapabilities",
    ("/tender/rows.json", "get"): "getFlatFile",
}


def test_openapi_is_valid_3_1_with_the_contract_operations(client):
    from drf_spectacular.validation import validate_schema

    response = client.get("/openapi.json")
    assert response.status_code == 200 and response["Access-Control-Allow-Origin"] == "*"
    document = response.json()
    validate_schema(document)
    assert document["openapi"] == "3.1.0"
    assert document["info"]["version"] == "1.0.0"
    operations = {
        (path, method): op["operationId"]
        for path, item in document["paths"].items()
        for method, op in item.items()
    }
    # Other branches add their own operations (POST /rfq); these are this surface's.
    assert {key: operations.get(key) for key in CONTRACT_OPERATIONS} == CONTRACT_OPERATIONS
    listing = document["paths"]["/api/v1/tenders"]["get"]
    assert [p["name"] for p in listing["parameters"] if p["in"] == "query"] == [
        "category",
        "closing_bucket",
        "cursor",
        "lang",
        "lead_ok",
        "limit",
        "market",
        "new",
        "q",
        "value_band",
    ]
    limit = next(p for p in listing["parameters"] if p["name"] == "limit")
    assert limit["schema"] == {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}
    assert set(listing["responses"]) == {"200", "304", "400", "405", "409", "503"}
    assert listing["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/TenderList"
    }
    assert set(listing["responses"]["200"]["headers"]) == {
        "Access-Control-Allow-Origin",
        "ETag",
        "Cache-Control",
    }
    gated = document["paths"]["/api/v1/spec-coded/{at_id}"]["get"]["responses"]
    assert gated["403"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/GatedError"
    }


def test_openapi_embeds_the_row_schema_file(client):
    from tenders.contract import row_schema

    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    embedded = dict(schemas["TenderRow"])
    embedded.pop("externalDocs")
    source = {k: v for k, v in row_schema().items() if k not in ("$schema", "$id")}
    assert embedded == source


def test_the_docs_page_serves_its_assets_locally(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/openapi.json" in html
    assets = re.findall(r'(?:src|href)="([^"]+\.(?:js|css|png))"', html)
    assert assets
    for asset in assets:
        assert asset.startswith("/static/"), asset
        assert client.get(asset).status_code == 200, asset
    assert not re.search(r"https?://(?!testserver)", html.split("<script")[0] + "".join(assets))


def test_llms_txt_follows_the_llmstxt_format(client):
    response = client.get("/llms.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    text = response.content.decode()
    lines = text.splitlines()
    assert lines[0] == "# Public tender listing and sourcing service"
    assert lines[2].startswith("> ")
    sections = [line for line in lines if line.startswith("## ")]
    assert sections == [
        "## REST API",
        "## Bulk and schemas",
        "## Agents and sourcing",
        "## Optional",
    ]
    links = re.findall(r"^- \[[^\]]+\]\((http://testserver/[^)]*)\)", text, re.M)
    assert len(links) >= 12
    for needle in ("next_cursor", "snapshot_changed", "invalid_parameter", "/mcp", "rows.json"):
        assert needle in text
    assert response["Access-Control-Allow-Origin"] == "*"


def test_the_row_schema_is_served(client):
    response = client.get("/schema/service.tender.v1.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/schema+json"
    assert json.loads(response.content)["title"] == "service.tender.v1"
    assert response["Access-Control-Allow-Origin"] == "*"
    assert client.get("/schema/../settings.py").status_code == 404
    assert client.get("/schema/nothing.json").json()["error"]["code"] == "not_found"

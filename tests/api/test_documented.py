"""What the service answers matches what the OpenAPI document says it answers."""

import gzip
import json

import jsonschema
import pytest

from tenders.api.discovery import openapi_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def document():
    return json.loads(openapi_bytes())


def validator_for(document, path: str, status: int):
    operation = document["paths"][path]["get"]
    schema = operation["responses"][str(status)]["content"]["application/json"]["schema"]
    text = json.dumps(schema).replace("#/components/schemas/", "#/$defs/")
    defs = json.loads(
        json.dumps(document["components"]["schemas"]).replace("#/components/schemas/", "#/$defs/")
    )
    return jsonschema.Draft202012Validator(
        {**json.loads(text), "$defs": defs}, format_checker=jsonschema.FormatChecker()
    )


def check(document, client, url, path, status, **headers):
    response = client.get(url, **headers)
    assert response.status_code == status, response.content[:300]
    body = (
        json.loads(gzip.decompress(b"".join(response.streaming_content)))
        if response.streaming and response.get("Content-Encoding") == "gzip"
        else json.loads(b"".join(response.streaming_content))
        if response.streaming
        else response.json()
    )
    validator_for(document, path, status).validate(body)
    return body


REQUESTS = [
    ("/api/v1/tenders?limit=3", "/api/v1/tenders", 200),
    ("/api/v1/tenders?lang=zht&closing_bucket=all", "/api/v1/tenders", 200),
    ("/api/v1/tenders?market=XX", "/api/v1/tenders", 400),
    ("/api/v1/tenders?cursor=abc", "/api/v1/tenders", 400),
    ("/api/v1/tenders/facets", "/api/v1/tenders/facets", 200),
    ("/api/v1/tenders/facets?x=1", "/api/v1/tenders/facets", 400),
    ("/api/v1/tenders/AT-0123456789", "/api/v1/tenders/{at_id}", 404),
    ("/api/v1/tenders/AT-TEST-0000000001?lang=xx", "/api/v1/tenders/{at_id}", 400),
    ("/api/v1/health", "/api/v1/health", 200),
    ("/healthz", "/healthz", 200),
    ("/api/v1/spec-coded/AT-0123456789", "/api/v1/spec-coded/{at_id}", 403),
    ("/agent/capabilities.json", "/agent/capabilities.json", 200),
    ("/tender/rows.json", "/tender/rows.json", 200),
]


@pytest.mark.parametrize("url,path,status", REQUESTS)
def test_responses_match_their_documented_schema(client, feed, document, url, path, status):
    check(document, client, url, path, status)


def test_rows_in_both_shapes_and_the_gzip_flat_file_match(client, feed, document):
    _, rows = feed
    at_id = rows[0]["asaptic_id"]
    for url in (f"/api/v1/tenders/{at_id}", f"/api/v1/tenders/{at_id}?lang=zh"):
        check(document, client, url, "/api/v1/tenders/{at_id}", 200)
    body = check(
        document, client, "/tender/rows.json", "/tender/rows.json", 200, HTTP_ACCEPT_ENCODING="gzip"
    )
    assert body["total"] == len(body["rows"]) == 84
    page = client.get("/api/v1/tenders", {"limit": 1}).json()
    cursor = page["meta"]["next_cursor"]
    check(document, client, f"/api/v1/tenders?limit=2&cursor={cursor}", "/api/v1/tenders", 200)


def test_unavailable_bodies_match(client, db, document):
    check(document, client, "/api/v1/tenders", "/api/v1/tenders", 503)
    check(document, client, "/api/v1/health", "/api/v1/health", 503)
    check(document, client, "/tender/rows.json", "/tender/rows.json", 503)


def test_documented_examples_match_their_schemas(document):
    checked = 0
    for path, item in document["paths"].items():
        if "get" not in item:
            continue
        for status, response in item["get"]["responses"].items():
            content = response.get("content", {}).get("application/json", {})
            for example in content.get("examples", {}).values():
                validator_for(document, path, int(status)).validate(example["value"])
                checked += 1
    assert checked >= 15

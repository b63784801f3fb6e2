"""One source of truth for the row: the published schema files, the serializer, the code's
vocabularies, the OpenAPI components and the MCP tool schemas all agree."""

import gzip
import io
import json
import random

import jsonschema
import pytest
from django.core.files.storage import default_storage
from tenders_client import contract
from tenders_client.validate import Report, validate_stream

from core import openapi
from tenders import ids
from tenders.api.discovery import openapi_bytes
from tenders.buckets import CLOSING_BUCKETS, VALUE_BANDS
from tenders.markets import MARKET_CODES
from tenders.models import SnapshotRow
from tenders.read import query as listing
from tenders.read import search
from tenders.read.rows import LANGS, ROW_COLUMNS, ROW_FIELDS, collapse, row_from_values

DECISIONS_ID_PATTERN = "^AT-(TEST-)?[0-9A-HJKMNP-TV-Z]{10}$"  # decisions.md, verbatim


def validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(contract.load(name))


# --- the files ----------------------------------------------------------------------------------


def test_the_derived_schema_files_are_what_the_row_schema_makes():
    assert contract.stale_files() == []
    assert contract.main(["--check"]) == 0


def test_every_published_file_is_a_valid_2020_12_schema_with_its_url():
    for name in contract.PUBLISHED:
        schema = contract.load(name)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"] == f"/schema/{name}"
        jsonschema.Draft202012Validator.check_schema(schema)
        assert "$ref" not in json.dumps(schema)  # each file stands on its own


def test_the_row_has_exactly_the_serializers_fields():
    row = contract.row_schema()
    assert list(row["properties"]) == row["required"] == list(ROW_FIELDS)
    assert row["additionalProperties"] is False
    assert row["properties"]["category"]["required"] == ["name_en", "name_zh", "name_zht"]
    sample = row_from_values([f"value-{c}" for c in ROW_COLUMNS])
    assert list(sample) == list(ROW_FIELDS)
    lang = contract.lang_row_schema()
    assert list(lang["properties"]) == lang["required"] == list(collapse(sample, "en"))
    assert lang["additionalProperties"] is False


def test_domains_are_the_codes_vocabularies():
    props = contract.row_schema()["properties"]
    assert props["market"]["enum"] == list(MARKET_CODES)
    assert props["closing_bucket"]["enum"] == list(CLOSING_BUCKETS)
    assert props["value_band"]["anyOf"] == [
        {"type": "string", "enum": list(VALUE_BANDS)},
        {"type": "null"},
    ]
    assert props["asaptic_id"]["pattern"] == DECISIONS_ID_PATTERN == ids.LISTING_ID_RE.pattern
    made = [ids.new_listing_id() for _ in range(100)]
    made += [ids.new_listing_id(synthetic=True, rng=random.Random(n)) for n in range(100)]
    pattern = validator(contract.ROW).schema["properties"]["asaptic_id"]
    assert all(jsonschema.Draft202012Validator(pattern).is_valid(i) for i in made)
    assert props["sort_key"]["pattern"] == "^[0-9a-f]{64}$"
    assert len(ids.sort_key("AT-TEST-0000000001", "secret")) == 64
    page_meta = contract.page_schema()["properties"]["meta"]["properties"]
    assert page_meta["lang"]["enum"] == list(LANGS)
    one = contract.lang_row_schema()["properties"]
    for name in ("asaptic_id", "market", "value_band", "closing_bucket", "sort_key"):
        assert one[name] == props[name]


# --- what the serializer and the service produce ---------------------------------------------------


@pytest.fixture
def feed(db, t0):
    from tests.api.feed import publish_feed

    return publish_feed(t0)


@pytest.mark.django_db
def test_every_served_row_validates_in_every_shape(feed):
    full, one = validator(contract.ROW), validator(contract.LANG_ROW)
    values = SnapshotRow.objects.filter(issue=feed).values_list(*ROW_COLUMNS)
    assert len(values) == 84
    for row in map(row_from_values, values):
        full.validate(row)
        for lang in LANGS:
            one.validate(collapse(row, lang))


@pytest.mark.django_db
def test_the_real_flat_file_validates(feed):
    with default_storage.open(feed.flat_file, "rb") as stored:
        raw = stored.read()
    validator(contract.FLAT_FILE).validate(json.loads(gzip.decompress(raw)))
    out = io.StringIO()
    summary = validate_stream(gzip.GzipFile(fileobj=io.BytesIO(raw)), Report(out=out))
    assert (summary.valid, summary.rows, summary.kind, out.getvalue()) == (
        True,
        84,
        "flat file",
        "",
    )


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["?limit=7", "?lang=zht&closing_bucket=all&limit=200"])
def test_real_api_pages_validate(client, feed, query):
    body = client.get("/api/v1/tenders" + query).json()
    validator(contract.PAGE).validate(body)
    report = Report(out=io.StringIO())
    assert validate_stream(io.BytesIO(json.dumps(body).encode()), report).valid


# --- the OpenAPI components and the MCP tools are the files ------------------------------------------


def resolve(schema, components: dict):
    """``schema`` with every local component ``$ref`` replaced by that component (without the
    ``externalDocs`` link the document adds)."""
    if isinstance(schema, dict):
        if set(schema) == {"$ref"}:
            name = schema["$ref"].removeprefix("#/components/schemas/")
            target = {k: v for k, v in components[name].items() if k != "externalDocs"}
            return resolve(target, components)
        return {k: resolve(v, components) for k, v in schema.items()}
    if isinstance(schema, list):
        return [resolve(item, components) for item in schema]
    return schema


PUBLISHED_COMPONENTS = {
    name: file for name, file in openapi.PUBLISHED.items() if name not in openapi.UNLINKED
}


@pytest.mark.parametrize("component,name", PUBLISHED_COMPONENTS.items())
def test_the_openapi_components_are_the_schema_files(component, name):
    components = json.loads(openapi_bytes())["components"]["schemas"]
    served = components[component]
    assert served["externalDocs"] == {
        "description": "The same schema as a JSON Schema file",
        "url": f"/schema/{name}",
    }
    without_link = {k: v for k, v in served.items() if k != "externalDocs"}
    assert resolve(without_link, components) == contract.embedded(contract.load(name))


def test_the_committed_openapi_document_names_every_schema_file():
    document = json.loads(openapi_bytes())
    for name in contract.PUBLISHED:
        assert f"`/schema/{name}`" in document["info"]["description"]


# --- served beside each other ---------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("name", contract.PUBLISHED)
def test_each_schema_file_is_served_as_is(client, name):
    response = client.get(f"/schema/{name}")
    assert response.status_code == 200
    assert response.content == (contract.SCHEMA_DIR / name).read_bytes()
    assert response["Content-Type"] == "application/schema+json"
    assert response["Access-Control-Allow-Origin"] == "*"
    again = client.get(f"/schema/{name}", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["service.tender.v2.json", "__init__.py", "..", "contract.py"])
def test_nothing_else_is_served_from_the_schema_folder(client, name):
    response = client.get(f"/schema/{name}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.django_db
def test_llms_txt_links_every_schema(client):
    text = client.get("/llms.txt").content.decode()
    for name in contract.PUBLISHED:
        assert f"(http://testserver/schema/{name})" in text
    assert "tenders-validate" in text


def test_llms_txt_explains_q_as_the_schema_does(client):
    text = client.get("/llms.txt").content.decode()
    query = contract.embedded(contract.load(contract.QUERY))["properties"]
    assert f"- `q`: {query['q']['description']} Examples:" in text


def test_the_listing_parameters_are_the_query_schema_file():
    """REST's query parameters and the list_tenders tool's arguments: one file."""
    operation = json.loads(openapi_bytes())["paths"]["/api/v1/tenders"]["get"]
    documented = {p["name"]: p for p in operation["parameters"] if p["in"] == "query"}
    query = contract.embedded(contract.load(contract.QUERY))["properties"]
    assert set(documented) == set(query) == set(listing.LIST_PARAMS)
    # The bounds the one parser enforces are the ones published.
    assert (query["limit"]["maximum"], query["q"]["maxLength"]) == (
        listing.MAX_LIMIT,
        listing.MAX_Q,
    )
    assert f"at most {search.MAX_TERMS} words and phrases" in query["q"]["description"]
    assert query["lang"]["enum"] == list(LANGS)
    for name, schema in query.items():
        served = documented[name]
        assert served["description"].startswith(schema["description"]), name
        if "anyOf" in schema:
            assert served["schema"] == schema["anyOf"][1]
            assert (served["style"], served["explode"]) == ("form", False)
        else:
            expected = {k: v for k, v in schema.items() if k != "description"}
            assert served["schema"] == expected | ({"default": 50} if name == "limit" else {})

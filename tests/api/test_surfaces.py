"""Facets, health, the gated tier, the flat file and the capabilities document."""

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from sourcing.models import Engagement, Lane
from tenders.contract import row_schema
from tests.api.feed import public

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


# --- facets -----------------------------------------------------------------------------


def test_facets_tell_a_stale_feed_and_a_cached_copy_is_not_revalidated(client, feed, settings):
    issue, _ = feed
    fresh = client.get("/api/v1/tenders/facets")
    assert fresh["ETag"] == f'"{issue.snapshot_etag}"'
    settings.TENDERS_FEED_FRESH_DAYS = -30  # the snapshot is now older than that
    stale = client.get("/api/v1/tenders/facets", HTTP_IF_NONE_MATCH=fresh["ETag"])
    assert stale.status_code == 200
    assert stale["ETag"] == f'"{issue.snapshot_etag}-degraded"'
    assert (stale.json()["meta"]["status"], stale.json()["meta"]["feed_fresh"]) == (
        "degraded",
        False,
    )
    assert stale.json()["data"] == fresh.json()["data"]
    again = client.get("/api/v1/tenders/facets", HTTP_IF_NONE_MATCH=stale["ETag"])
    assert again.status_code == 304


def test_facets_give_the_vocabulary_with_counts(client, feed):
    issue, rows = feed
    response = client.get("/api/v1/tenders/facets")
    assert response.status_code == 200
    body = response.json()
    assert body["meta"] == {
        "issue_id": "2026-W48",
        "generated": "2026-11-23T06:00:00Z",
        "snapshot_etag": issue.snapshot_etag,
        "access": "public",
        "status": "ok",
        "feed_fresh": True,
        "rows_total": 84,
        "withheld": 0,
    }
    data = body["data"]
    assert list(data) == ["markets", "categories", "closing_buckets", "value_bands"]
    assert [list(item) for item in data["markets"][:1] + data["categories"][:1]] == [
        ["code", "name_en", "name_zh", "name_zht", "count"],
        ["slug", "name_en", "name_zh", "name_zht", "count"],
    ]
    assert data["markets"][0] == {
        "code": "HK",
        "name_en": "Hong Kong",
        "name_zh": "香港",
        "name_zht": "香港",
        "count": sum(r["market"] == "HK" for r in rows),
    }
    assert [m["code"] for m in data["markets"]] == ["HK", "MO", "SG", "GB", "EU", "AU", "CA"]
    assert len(data["categories"]) == 23
    medical = next(c for c in data["categories"] if c["slug"] == "medical-supplies")
    assert medical == {
        "slug": "medical-supplies",
        "name_en": "Medical supplies and equipment",
        "name_zh": "医疗用品及设备",
        "name_zht": "醫療用品及設備",
        "count": sum(r["_category_slug"] == "medical-supplies" for r in rows),
    }
    assert data["closing_buckets"] == [
        {"value": b, "count": sum(r["closing_bucket"] == b for r in rows)}
        for b in ("le_2w", "2_4w", "gt_4w", "deadline_passed")
    ]
    assert data["value_bands"] == [
        {"value": b, "count": sum((r["value_band"] or "unspecified") == b for r in rows)}
        for b in ("lt_500k", "500k_2m", "2m_10m", "gt_10m", "unspecified")
    ]
    assert response["ETag"] == f'"{issue.snapshot_etag}"'
    assert response["Cache-Control"] == "public, no-cache"
    assert response["Access-Control-Allow-Origin"] == "*"


def test_every_facet_value_is_an_accepted_filter_value(client, feed):
    data = client.get("/api/v1/tenders/facets").json()["data"]
    for param, group, key in [
        ("market", "markets", "code"),
        ("category", "categories", "slug"),
        ("closing_bucket", "closing_buckets", "value"),
        ("value_band", "value_bands", "value"),
    ]:
        for item in data[group]:
            response = client.get("/api/v1/tenders", {param: item[key], "closing_bucket": "all"})
            if param == "closing_bucket":
                response = client.get("/api/v1/tenders", {param: item[key]})
            assert response.status_code == 200, (param, item)
            assert response.json()["meta"]["total"] == item["count"], (param, item)


def test_facets_take_no_parameters_and_answer_304(client, feed):
    issue, _ = feed
    assert client.get("/api/v1/tenders/facets", {"lang": "en"}).json() == {
        "error": {
            "code": "invalid_parameter",
            "message": "Unknown parameter 'lang'. It takes none.",
            "param": "lang",
        }
    }
    response = client.get("/api/v1/tenders/facets", HTTP_IF_NONE_MATCH=f'"{issue.snapshot_etag}"')
    assert response.status_code == 304


def test_facets_cost_one_query(client, feed, django_assert_num_queries):
    with django_assert_num_queries(1):
        client.get("/api/v1/tenders/facets")


# --- health -----------------------------------------------------------------------------


def test_health_ok_with_every_header(client, feed):
    for url in ("/api/v1/health", "/healthz"):
        response = client.get(url)
        assert response.status_code == 200
        assert response.json() == {
            "status": "ok" if response.json()["feed_fresh"] else "degraded",
            "rows_total": 84,
            "issue_id": "2026-W48",
            "generated": "2026-11-23T06:00:00Z",
            "feed_fresh": response.json()["feed_fresh"],
            "schema": "service.tender.v1",
        }
        assert response["Cache-Control"] == "no-store"
        assert response["Access-Control-Allow-Origin"] == "*"
        assert not response.has_header("ETag")


def test_health_answers_json_when_postgresql_is_unreachable(tmp_path):
    """A real server process whose database does not answer (nothing listens on the port)."""
    env = {
        **os.environ,
        "DATABASE_URL": "postgres://postgres@127.0.0.1:9/tenders",
        "DJANGO_DEBUG": "0",
        "SECRET_KEY": "s" * 50,
        "TENDERS_SORT_KEY_SECRET": "t" * 64,
        "TENDERS_VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    code = (
        "import django, json; django.setup();"
        "from django.test.utils import setup_test_environment; setup_test_environment();"
        "from django.test import Client; c = Client();"
        "out = [];"
        "[out.append([r.status_code, r['Content-Type'], r.json(), r.get('Cache-Control')]) "
        " for r in (c.get('/api/v1/health'), c.get('/healthz'), c.get('/api/v1/tenders'))];"
        "print(json.dumps(out))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    health, healthz, listing = json.loads(result.stdout.strip().splitlines()[-1])
    record = {
        "status": "unavailable",
        "rows_total": 0,
        "issue_id": None,
        "generated": None,
        "feed_fresh": False,
        "schema": "service.tender.v1",
        # The reason names no host or port (those stay in the server's log).
        "reasons": [
            {
                "code": "database_unavailable",
                "message": "The database does not answer; the service recovers by itself when "
                "it does.",
            }
        ],
    }
    assert health == healthz == [503, "application/json", record, "no-store"]
    assert listing == [
        503,
        "application/json",
        {
            "error": {
                "code": "service_unavailable",
                "message": "The service cannot reach its database just now; try again in 10 seconds.",
            }
        },
        None,
    ]


# --- spec-coded -------------------------------------------------------------------------

GATED = {
    "error": {
        "code": "SPEC_CODED_GATED",
        "message": "Field-level detail (spec-coded packages) is gated: a private beta for "
        "approved counterparties. Ask for access with a portal account, or with the "
        "request_tender_access tool on the MCP server at /mcp; access_url explains both.",
    },
    "access_url": "http://testserver/access/",
}


def test_spec_coded_is_gated_for_every_id(client, feed, django_assert_num_queries):
    _, rows = feed
    for at_id in (rows[0]["asaptic_id"], "AT-0123456789", "nonsense", "a/b"):
        with django_assert_num_queries(0):
            response = client.get(f"/api/v1/spec-coded/{at_id}")
        assert response.status_code == 403
        assert response.json() == GATED
        assert response["Access-Control-Allow-Origin"] == "*"


def test_spec_coded_uses_the_public_base_url(client, settings):
    settings.PUBLIC_BASE_URL = "https://feed.example.com"
    body = client.get("/api/v1/spec-coded/AT-0123456789").json()
    assert body["access_url"] == "https://feed.example.com/access/"


def test_the_access_page_explains_both_paths(client):
    # access_url points at /access/, which leads to the people's page in their language.
    response = client.get("/access/", follow=True)
    assert response.redirect_chain == [("/en/access/", 302)]
    assert response["Content-Type"] == "text/html; charset=utf-8"
    html = response.content.decode()
    assert "portal account" in html.lower()
    assert "request_tender_access" in html
    assert "The MCP tool server at /mcp" in html


# --- the flat file ----------------------------------------------------------------------


def test_flat_file_is_the_stored_gzip_for_gzip_clients(client, feed):
    issue, rows = feed
    response = client.get("/tender/rows.json", HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert response.status_code == 200
    assert response.streaming
    raw = b"".join(response.streaming_content)
    assert response["Content-Encoding"] == "gzip"
    assert response["Content-Length"] == str(issue.flat_file_bytes) == str(len(raw))
    assert response["Content-Type"] == "application/json"
    assert response["Vary"] == "Accept-Encoding"
    assert response["ETag"] == f'"{issue.snapshot_etag}"'
    assert response["Cache-Control"] == "public, no-cache"
    assert response["Access-Control-Allow-Origin"] == "*"
    document = json.loads(gzip.decompress(raw))
    assert document == {
        "generated": "2026-11-23T06:00:00Z",
        "issue_id": "2026-W48",
        "total": 84,
        "withheld": 0,
        "rows": [public(r) for r in rows],
    }
    for row in document["rows"]:
        jsonschema.validate(row, row_schema())


@pytest.mark.parametrize("accept", [None, "identity", "gzip;q=0", "br, deflate", "*;q=0"])
def test_flat_file_is_inflated_as_it_streams_for_other_clients(client, feed, accept):
    issue, _ = feed
    headers = {"HTTP_ACCEPT_ENCODING": accept} if accept is not None else {}
    response = client.get("/tender/rows.json", **headers)
    assert response.status_code == 200 and response.streaming
    assert not response.has_header("Content-Encoding")
    plain = b"".join(response.streaming_content)
    import hashlib

    assert hashlib.sha256(plain).hexdigest()[:32] == issue.snapshot_etag
    assert json.loads(plain)["total"] == 84


def test_flat_file_304_and_no_query_of_rows(client, feed, django_assert_num_queries):
    issue, _ = feed
    with django_assert_num_queries(1):  # which issue is current, asked once per process
        response = client.get("/tender/rows.json", HTTP_IF_NONE_MATCH=f'"{issue.snapshot_etag}"')
    assert response.status_code == 304
    assert response["Vary"] == "Accept-Encoding"
    # The stored file is streamed from its own table (the file's row, then one query a chunk
    # of 1 MB); no snapshot row is read.
    with django_assert_num_queries(2) as queries:
        response = client.get("/tender/rows.json", HTTP_ACCEPT_ENCODING="gzip")
        b"".join(response.streaming_content)
    assert all("tenders_storedfile" in query["sql"] for query in queries.captured_queries)


def test_flat_file_before_the_first_issue(client, db):
    response = client.get("/tender/rows.json")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "service_unavailable"


# --- capabilities -----------------------------------------------------------------------


def test_capabilities_come_from_the_seeded_offer(client, db, django_assert_max_num_queries):
    with django_assert_max_num_queries(8):
        response = client.get("/agent/capabilities.json")
    assert response.status_code == 200
    body = response.json()
    assert list(body) == ["service", "lanes", "markets", "compliance", "engagement", "links"]
    lane = body["lanes"][0]
    assert lane == {
        "id": "medical-consumables",
        "name": "Medical consumables and PPE",
        "summary": "Gloves, gowns, masks, dressings and single-use devices for hospitals and "
        "clinics.",
        "sources": "ISO 13485-certified manufacturers in Guangdong, Jiangsu and Zhejiang, "
        "audited before first order.",
        "markets": ["HK", "MO", "SG", "GB", "EU", "AU", "CA"],
        "compliance": [
            "iso-13485",
            "ce-marking",
            "ukca",
            "tga-artg",
            "health-canada-mdl",
            "labour-due-diligence",
        ],
        "page": "http://testserver/lanes/medical-consumables/",
    }
    assert [lane["id"] for lane in body["lanes"]] == [
        "medical-consumables",
        "it-network-hardware",
        "office-school-furniture",
        "solar-energy-equipment",
    ]
    compliance_ids = {c["id"] for c in body["compliance"]}
    assert all(set(lane["compliance"]) <= compliance_ids for lane in body["lanes"])
    assert [m["code"] for m in body["markets"]] == ["HK", "MO", "SG", "GB", "EU", "AU", "CA"]
    engagement = body["engagement"]
    assert engagement["model"] == "deposit-first"
    assert engagement["reply"]["within_hours"] == 4
    assert engagement["reply"]["promise"] == "Every request for quote is answered within 4 hours."
    assert engagement["deposit"]["percent"] == 30
    assert [(s["stage"], s["buyer_pays"]) for s in engagement["steps"]] == [
        ("Request for quote", "Nothing"),
        ("Order", "30% deposit"),
        ("Inspection", "Nothing"),
        ("Shipment", "70% balance"),
    ]
    assert body["links"]["mcp"] == "http://testserver/mcp"
    assert response["Cache-Control"] == "public, no-cache"
    assert response["Access-Control-Allow-Origin"] == "*"
    etag = response["ETag"]
    assert client.get("/agent/capabilities.json", HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_staff_edits_change_the_capabilities(client, db):
    before = client.get("/agent/capabilities.json")
    engagement = Engagement.objects.get()
    engagement.reply_within_hours = 2
    engagement.save()
    Lane.objects.filter(slug="office-school-furniture").update(active=False)
    Lane.objects.filter(slug="medical-consumables").update(page_url="https://example.com/med")
    after = client.get("/agent/capabilities.json", HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    body = after.json()
    assert body["engagement"]["reply"]["promise"] == (
        "Every request for quote is answered within 2 hours."
    )
    assert "office-school-furniture" not in [lane["id"] for lane in body["lanes"]]
    assert body["lanes"][0]["page"] == "https://example.com/med"
    assert "office-school-furniture" not in body["markets"][0]["lanes"]


def test_a_lane_page(client, db):
    response = client.get("/lanes/solar-energy-equipment/", follow=True)
    assert response.redirect_chain == [("/en/lanes/solar-energy-equipment/", 302)]
    html = response.content.decode()
    assert "Solar PV and energy-efficiency equipment" in html
    assert "IEC 61215 and IEC 61730" in html
    assert "Every request for quote is answered within 4 hours." in html
    assert client.get("/lanes/nothing-here/", follow=True).status_code == 404

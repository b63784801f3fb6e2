"""getTender: the row in both shapes, and one byte-identical 404 for every absent id."""

import jsonschema
import pytest

from tenders import publication
from tenders.contract import lang_row_schema as collapsed_row_schema
from tenders.contract import row_schema
from tenders.models import SourceTender
from tests.api.feed import public

pytestmark = pytest.mark.django_db


def not_found(example: str) -> bytes:
    # The example is the snapshot's first id: the feed's own form of id.
    return (
        b'{"error":{"code":"not_found","message":"No listing with this id in the current issue. '
        b"Listing ids look like " + example.encode() + b"; rows come and go with each weekly "
        b'issue, and GET /api/v1/tenders lists the current ones."}}'
    )


def test_a_row_with_its_meta(client, feed):
    issue, rows = feed
    row = public(rows[10])
    response = client.get(f"/api/v1/tenders/{row['asaptic_id']}")
    assert response.status_code == 200
    assert response.json() == {
        "data": row,
        "meta": {
            "issue_id": "2026-W48",
            "generated": "2026-11-23T06:00:00Z",
            "snapshot_etag": issue.snapshot_etag,
            "access": "public",
        },
    }
    jsonschema.validate(response.json()["data"], row_schema())
    assert list(response.json()["data"]) == [
        "asaptic_id",
        "market",
        "category",
        "summary_en",
        "summary_zh",
        "summary_zht",
        "value_band",
        "closing_bucket",
        "lead_ok",
        "new_this_issue",
        "sort_key",
    ]
    assert response["ETag"] == f'"{issue.snapshot_etag}"'
    assert response["Cache-Control"] == "public, no-cache"
    assert response["Access-Control-Allow-Origin"] == "*"


def test_a_row_in_one_language(client, feed):
    _, rows = feed
    row = rows[3]
    body = client.get(f"/api/v1/tenders/{row['asaptic_id']}", {"lang": "zh"}).json()
    assert body["data"] == {
        "asaptic_id": row["asaptic_id"],
        "market": row["market"],
        "category": {"name": row["category"]["name_zh"]},
        "summary": row["summary_zh"],
        "value_band": row["value_band"],
        "closing_bucket": row["closing_bucket"],
        "lead_ok": row["lead_ok"],
        "new_this_issue": row["new_this_issue"],
        "sort_key": row["sort_key"],
    }
    assert body["meta"]["lang"] == "zh"
    jsonschema.validate(body["data"], collapsed_row_schema())


def test_row_parameters_are_validated(client, feed):
    _, rows = feed
    url = f"/api/v1/tenders/{rows[0]['asaptic_id']}"
    assert client.get(url, {"lang": "de"}).json() == {
        "error": {
            "code": "invalid_parameter",
            "message": "lang must be one of en, zh, zht; got 'de'.",
            "param": "lang",
        }
    }
    assert client.get(url, {"market": "HK"}).status_code == 400


def test_every_absent_id_gets_the_same_404(client, feed, t0):
    _, rows = feed
    # A row of last week's issue and of this morning's snapshot, withheld since.
    carried = next(r for r in rows if not r["new_this_issue"])
    gone = SourceTender.objects.get(listing_id=carried["asaptic_id"])
    gone.status = SourceTender.Status.WITHHELD
    gone.withheld_reason = "Cancelled by buyer"
    gone.save()
    current = publication.publish_issue(now=t0.replace(hour=8)).issue
    assert not current.rows.filter(asaptic_id=gone.listing_id).exists()
    first = current.rows.order_by("sort_key").values_list("asaptic_id", flat=True)[0]
    # A record that exists privately but was never published.
    draft = SourceTender.objects.filter(listing_id__startswith="AT-TEST-").first()
    draft.pk = None
    draft.listing_id = "AT-TEST-ZZZZZZZZZZ"
    draft.status = SourceTender.Status.DRAFT
    draft.save()

    absent = [
        gone.listing_id,  # in older snapshots only
        "AT-TEST-ZZZZZZZZZZ",  # a draft, never published
        "AT-0123456789",  # well-formed, never issued
        "AT-TEST-ILOU000000",  # letters Crockford base32 does not use
        "at-test-0000000001",  # wrong case
        "nonsense",
        "AT-TEST-0000000001/extra",
        "%00",
        "facets/",
        "' OR 1=1 --",
        "医疗",
        "A" * 500,
    ]
    responses = [client.get(f"/api/v1/tenders/{at_id}") for at_id in absent]
    for at_id, response in zip(absent, responses, strict=True):
        assert response.status_code == 404, at_id
        assert response.content == not_found(first), at_id
        assert response["Content-Type"] == "application/json"
        assert not response.has_header("ETag")
    assert len({tuple(sorted(r.items())) for r in responses}) == 1


def test_if_none_match_on_a_row(client, feed):
    issue, rows = feed
    url = f"/api/v1/tenders/{rows[0]['asaptic_id']}"
    etag = f'"{issue.snapshot_etag}"'
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    # A matching etag never turns an absent id into a 304.
    assert client.get("/api/v1/tenders/AT-0123456789", HTTP_IF_NONE_MATCH=etag).status_code == 404

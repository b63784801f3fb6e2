"""listTenders: the envelope, every filter's accepted and rejected values, lang, headers."""

import pytest

from tenders.markets import MARKET_CODES
from tests.api.feed import public

pytestmark = pytest.mark.django_db

URL = "/api/v1/tenders"
OPEN = {"le_2w", "2_4w", "gt_4w"}


def texts(row):
    c = row["category"]
    return [row["summary_en"], row["summary_zh"], row["summary_zht"], *c.values()]


def contains(q):
    return lambda r: any(q.casefold() in t.casefold() for t in texts(r))


def contains_all(*words):
    return lambda r: all(contains(w)(r) for w in words)


def is_open(row):
    return row["closing_bucket"] in OPEN


CASES = {
    "default excludes deadline_passed": ({}, is_open),
    "closing_bucket=all": ({"closing_bucket": "all"}, lambda r: True),
    "closing_bucket=deadline_passed": (
        {"closing_bucket": "deadline_passed"},
        lambda r: r["closing_bucket"] == "deadline_passed",
    ),
    "closing_bucket two values, any case": (
        {"closing_bucket": "LE_2W,deadline_passed"},
        lambda r: r["closing_bucket"] in {"le_2w", "deadline_passed"},
    ),
    "market any case": ({"market": "hk,Sg"}, lambda r: is_open(r) and r["market"] in {"HK", "SG"}),
    "market repeated": (
        {"market": ["EU", "CA"]},
        lambda r: is_open(r) and r["market"] in {"EU", "CA"},
    ),
    "category slug": (
        {"category": "it-hardware"},
        lambda r: is_open(r) and r["_category_slug"] == "it-hardware",
    ),
    "category english name any case": (
        {"category": "MEDICAL supplies and equipment"},
        lambda r: is_open(r) and r["_category_slug"] == "medical-supplies",
    ),
    "category simplified and traditional names": (
        {"category": "药品,醫療用品及設備"},
        lambda r: is_open(r) and r["_category_slug"] in {"pharmaceuticals", "medical-supplies"},
    ),
    "new=true": ({"new": "true"}, lambda r: is_open(r) and r["new_this_issue"]),
    "new=0": ({"new": "0"}, lambda r: is_open(r) and not r["new_this_issue"]),
    "lead_ok=FALSE": ({"lead_ok": "FALSE"}, lambda r: is_open(r) and not r["lead_ok"]),
    "lead_ok=1": ({"lead_ok": "1"}, lambda r: is_open(r) and r["lead_ok"]),
    "value_band=unspecified": (
        {"value_band": "unspecified"},
        lambda r: is_open(r) and r["value_band"] is None,
    ),
    "value_band band and unspecified": (
        {"value_band": "GT_10M,unspecified"},
        lambda r: is_open(r) and r["value_band"] in {"gt_10m", None},
    ),
    "q latin any case": ({"q": "NETWORK"}, lambda r: is_open(r) and contains("network")(r)),
    "q words, each anywhere, in any order": (
        {"q": "monitors SUPPLY"},
        lambda r: is_open(r) and contains_all("monitors", "supply")(r),
    ),
    "q phrase in double quotes": (
        {"q": '"Supply of"'},
        lambda r: is_open(r) and contains("supply of")(r),
    ),
    "q phrase in the other order finds nothing": ({"q": '"of supply"'}, lambda r: False),
    "q words in English and Chinese": (
        {"q": "public 医院"},
        lambda r: is_open(r) and contains_all("public", "医院")(r),
    ),
    "q Traditional and Simplified words": (
        {"q": "醫院 供应"},
        lambda r: is_open(r) and contains_all("醫院", "供应")(r),
    ),
    "q one simplified character": ({"q": "医"}, lambda r: is_open(r) and contains("医")(r)),
    "q one traditional character": ({"q": "醫"}, lambda r: is_open(r) and contains("醫")(r)),
    "q two characters": ({"q": "疫苗"}, lambda r: is_open(r) and contains("疫苗")(r)),
    "q in a category name only": ({"q": "用品及"}, lambda r: is_open(r) and contains("用品及")(r)),
    "q with LIKE wildcards is literal": ({"q": "100%_"}, lambda r: False),
    "everything at once": (
        {
            "market": "HK,MO,SG,GB",
            "category": "medical-supplies,it-hardware",
            "closing_bucket": "all",
            "new": "true",
            "lead_ok": "true",
            "value_band": "lt_500k,500k_2m,unspecified",
            "q": "public",
        },
        lambda r: (
            r["market"] in {"HK", "MO", "SG", "GB"}
            and r["_category_slug"] in {"medical-supplies", "it-hardware"}
            and r["new_this_issue"]
            and r["lead_ok"]
            and r["value_band"] in {"lt_500k", "500k_2m", None}
            and contains("public")(r)
        ),
    ),
}


@pytest.mark.parametrize("params,keep", CASES.values(), ids=CASES.keys())
def test_filters_select_exactly_the_matching_rows(client, feed, params, keep):
    _, rows = feed
    expected = [public(r) for r in rows if keep(r)]
    response = client.get(URL, {**params, "limit": 200})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["data"] == expected
    assert body["meta"]["total"] == body["meta"]["returned"] == len(expected)
    assert body["meta"]["next_cursor"] is None


def test_the_dataset_exercises_every_filter_value(feed):
    _, rows = feed
    assert len(rows) == 84
    assert {r["market"] for r in rows} == set(MARKET_CODES)
    assert {r["closing_bucket"] for r in rows} == OPEN | {"deadline_passed"}
    assert {r["value_band"] for r in rows} == {None, "lt_500k", "500k_2m", "2m_10m", "gt_10m"}
    assert {r["new_this_issue"] for r in rows} == {True, False}
    assert {r["lead_ok"] for r in rows} == {True, False}


def test_envelope_of_the_first_page(client, feed):
    issue, rows = feed
    open_rows = [public(r) for r in rows if is_open(r)]
    body = client.get(URL, {"limit": 3}).json()
    assert list(body) == ["data", "meta"]
    assert body["data"] == open_rows[:3]
    meta = body["meta"]
    assert list(meta) == [
        "total",
        "returned",
        "next_cursor",
        "issue_id",
        "generated",
        "snapshot_etag",
        "access",
    ]
    assert meta["total"] == len(open_rows) == 63
    assert meta["returned"] == 3
    assert isinstance(meta["next_cursor"], str) and len(meta["next_cursor"]) > 100
    assert meta["issue_id"] == "2026-W48"
    assert meta["generated"] == "2026-11-23T06:00:00Z"
    assert meta["snapshot_etag"] == issue.snapshot_etag and len(issue.snapshot_etag) == 32
    assert meta["access"] == "public"


def test_default_limit_is_50(client, feed):
    body = client.get(URL, {"closing_bucket": "all"}).json()
    assert (body["meta"]["returned"], body["meta"]["total"]) == (50, 84)


@pytest.mark.parametrize("lang", ["en", "zh", "zht"])
def test_lang_collapses_every_row_and_is_echoed(client, feed, lang):
    _, rows = feed
    body = client.get(URL, {"lang": lang, "limit": 200, "closing_bucket": "all"}).json()
    assert body["meta"]["lang"] == lang
    assert body["data"] == [
        {
            "asaptic_id": r["asaptic_id"],
            "market": r["market"],
            "category": {"name": r["category"][f"name_{lang}"]},
            "summary": r[f"summary_{lang}"],
            "value_band": r["value_band"],
            "closing_bucket": r["closing_bucket"],
            "lead_ok": r["lead_ok"],
            "new_this_issue": r["new_this_issue"],
            "sort_key": r["sort_key"],
        }
        for r in rows
    ]


def test_lang_is_absent_from_meta_without_lang(client, feed):
    assert "lang" not in client.get(URL).json()["meta"]


MARKETS = "one or more of HK, MO, SG, GB, EU, AU, CA (any case), comma-separated"
BUCKETS = "one or more of le_2w, 2_4w, gt_4w, deadline_passed, or all; comma-separated"
BANDS = "one or more of lt_500k, 500k_2m, 2m_10m, gt_10m, unspecified, comma-separated"
KNOWN = "market, category, closing_bucket, new, lead_ok, value_band, q, lang, limit, cursor"
LIMIT = (
    "limit must be a whole number from 1 to 200 (default 50); got {!r}. "
    "Follow meta.next_cursor to read further."
)
CATEGORY = (
    "category {!r} is not in this issue's vocabulary; give a slug or an English, Simplified or "
    "Traditional Chinese name as listed by GET /api/v1/tenders/facets (e.g. construction-works)."
)
REJECTED = [
    ({"market": "XX"}, "market", f"market 'XX' is not accepted; give {MARKETS}."),
    ({"market": "HK,"}, "market", "market has an empty value; check for stray commas."),
    ({"market": ""}, "market", "market has an empty value; check for stray commas."),
    ({"market": "HK SG"}, "market", f"market 'HK SG' is not accepted; give {MARKETS}."),
    ({"category": "toys"}, "category", CATEGORY.format("toys")),
    ({"category": "医疗"}, "category", CATEGORY.format("医疗")),
    (
        {"closing_bucket": "soon"},
        "closing_bucket",
        f"closing_bucket 'soon' is not accepted; give {BUCKETS}.",
    ),
    ({"value_band": "null"}, "value_band", f"value_band 'null' is not accepted; give {BANDS}."),
    ({"new": "yes"}, "new", "new must be true or false; got 'yes'."),
    ({"new": ""}, "new", "new must be true or false; got ''."),
    ({"lead_ok": "2"}, "lead_ok", "lead_ok must be true or false; got '2'."),
    (
        {"lead_ok": ["true", "false"]},
        "lead_ok",
        "lead_ok must be true or false; got ['true', 'false'].",
    ),
    ({"q": ""}, "q", "q is empty; give 1 to 200 characters of text, or leave q out."),
    ({"q": "   "}, "q", "q is empty; give 1 to 200 characters of text, or leave q out."),
    ({"q": "x" * 201}, "q", "q is 201 characters long; the most is 200."),
    ({"q": "a\x00b"}, "q", "q contains control characters; give plain text."),
    ({"q": ["a", "b"]}, "q", "Give q once; it was given 2 times."),
    (
        {"q": 'fleet "maintenance'},
        "q",
        'q has an unmatched double quote; close the phrase ("fleet maintenance") or remove the '
        "quote.",
    ),
    ({"q": '" "'}, "q", 'q has an empty phrase (""); put words between the quotes or remove them.'),
    (
        {"q": "a b c d e f g h i"},
        "q",
        "q has 9 words and phrases; the most is 8. Leave out the least telling ones, or join "
        'words that belong together in double quotes ("like this").',
    ),
    ({"lang": "fr"}, "lang", "lang must be one of en, zh, zht; got 'fr'."),
    ({"limit": "0"}, "limit", LIMIT.format("0")),
    ({"limit": "201"}, "limit", LIMIT.format("201")),
    ({"limit": "-1"}, "limit", LIMIT.format("-1")),
    ({"limit": "ten"}, "limit", LIMIT.format("ten")),
    ({"limit": "5.0"}, "limit", LIMIT.format("5.0")),
    ({"limit": "１０"}, "limit", LIMIT.format("１０")),
    ({"page": "2"}, "page", f"Unknown parameter 'page'. Known parameters: {KNOWN}."),
    ({"format": "json"}, "format", f"Unknown parameter 'format'. Known parameters: {KNOWN}."),
    ({"Market": "HK"}, "Market", f"Unknown parameter 'Market'. Known parameters: {KNOWN}."),
]


@pytest.mark.parametrize("params,param,message", REJECTED)
def test_rejected_values_get_invalid_parameter(client, feed, params, param, message):
    response = client.get(URL, params)
    assert response.status_code == 400
    assert response.json() == {
        "error": {"code": "invalid_parameter", "message": message, "param": param}
    }
    assert response["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize("limit", ["1", "200", "050"])
def test_limits_at_the_bounds_are_accepted(client, feed, limit):
    body = client.get(URL, {"limit": limit, "closing_bucket": "all"}).json()
    assert body["meta"]["returned"] == min(int(limit), 84)


def test_an_empty_cursor_is_invalid_cursor(client, feed):
    response = client.get(URL, {"cursor": ""})
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "code": "invalid_cursor",
            "message": "cursor is empty; leave it out to start from the first page.",
            "param": "cursor",
        }
    }


def test_headers_etag_cache_control_cors(client, feed):
    issue, _ = feed
    response = client.get(URL)
    assert response["ETag"] == f'"{issue.snapshot_etag}"'
    assert response["Cache-Control"] == "public, no-cache"
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Content-Type"] == "application/json"


@pytest.mark.parametrize(
    "header",
    ['"{etag}"', 'W/"{etag}"', '"other", "{etag}"', "*"],
)
def test_if_none_match_answers_304(client, feed, header):
    issue, _ = feed
    response = client.get(
        URL, {"market": "HK"}, HTTP_IF_NONE_MATCH=header.format(etag=issue.snapshot_etag)
    )
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == f'"{issue.snapshot_etag}"'
    assert response["Cache-Control"] == "public, no-cache"


def test_a_stale_etag_gets_the_full_page(client, feed):
    response = client.get(URL, HTTP_IF_NONE_MATCH='"0123"')
    assert response.status_code == 200 and response.json()["meta"]["returned"] == 50


def test_a_bad_request_is_an_error_even_with_a_matching_etag(client, feed):
    issue, _ = feed
    response = client.get(URL, {"limit": "500"}, HTTP_IF_NONE_MATCH=f'"{issue.snapshot_etag}"')
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "limit"


def test_before_the_first_issue_the_listing_is_unavailable(client, db):
    response = client.get(URL)
    assert response.status_code == 503
    assert response.json() == {
        "error": {
            "code": "service_unavailable",
            "message": "No issue of the feed is published yet; try again later "
            "(GET /api/v1/health shows the feed's state).",
        }
    }

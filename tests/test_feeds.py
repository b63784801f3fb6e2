"""Atom feeds /feeds/tenders.atom and /feeds/new.atom, read with a real feed parser."""

from datetime import timedelta

import feedparser
import pytest
from django.core.cache import cache

from tenders import services
from tenders.markets import MARKETS
from tests.pages_feed import is_open, publish_pages_feed, snapshot

pytestmark = pytest.mark.django_db

ATOM = "application/atom+xml; charset=utf-8"
CLOSING_EN = {
    "le_2w": "Closes within 2 weeks",
    "2_4w": "Closes in 2 to 4 weeks",
    "gt_4w": "Closes in more than 4 weeks",
    "deadline_passed": "Deadline passed",
}


@pytest.fixture
def feed(db, t0):
    cache.clear()
    issue = publish_pages_feed(t0)
    return issue, snapshot(issue)


def parse(response):
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == ATOM
    parsed = feedparser.parse(response.content)
    assert parsed.bozo == 0, parsed.bozo_exception
    assert parsed.version == "atom10"
    return parsed


def tag(at_id: str) -> str:
    return f"tag:testserver,2026:{at_id}"


def test_the_current_issue_in_english_by_default(client, feed):
    issue, rows = feed
    response = client.get("/feeds/tenders.atom")
    parsed = parse(response)
    expected = [r for r in rows if is_open(r)]
    assert parsed.feed.title == "Tenders in issue 2026-W48"
    assert parsed.feed.subtitle == (
        "36 of 36 matching tenders. Sanitized: no buyer, reference, exact deadline or amount."
    )
    assert parsed.feed.language == "en"
    assert parsed.feed.id == "http://testserver/feeds/tenders.atom"
    assert parsed.feed.updated == "2026-11-23T06:00:00+00:00"
    assert parsed.feed.author == "Tender feed"
    assert parsed.feed.link == "http://testserver/en/tenders/"
    assert [e.id for e in parsed.entries] == [tag(r["asaptic_id"]) for r in expected]
    first, row = parsed.entries[0], expected[0]
    market = MARKETS[row["market"]].name_en
    assert first.title == (
        f"{row['category']['name_en']} · {market} · {CLOSING_EN[row['closing_bucket']]}"
    )
    assert first.link == f"http://testserver/en/tenders/{row['asaptic_id']}/"
    assert first.summary == row["summary_en"]
    assert first.updated == "2026-11-23T06:00:00+00:00"
    assert [t.term for t in first.tags] == [row["category"]["name_en"], row["market"]]
    assert response["ETag"] == f'"{issue.snapshot_etag}"'
    assert response["Cache-Control"] == "public, no-cache"


def test_a_feed_in_traditional_chinese_with_filters(client, feed):
    _, rows = feed
    parsed = parse(
        client.get("/feeds/tenders.atom", {"lang": "zht", "q": "医疗", "market": "HK,SG,AU,CA"})
    )
    expected = [
        r
        for r in rows
        if is_open(r) and "醫療" in r["summary_zht"] and r["market"] in {"HK", "SG", "AU", "CA"}
    ]
    assert len(expected) == 8
    assert parsed.feed.language == "zh-Hant"
    assert parsed.feed.title == "第 2026-W48 期招標"
    assert parsed.feed.link == (
        "http://testserver/zh-hant/tenders/?q=%E5%8C%BB%E7%96%97&market=HK%2CSG%2CAU%2CCA"
    )
    assert [e.id for e in parsed.entries] == [tag(r["asaptic_id"]) for r in expected]
    assert {e.summary for e in parsed.entries} == {"公共診所醫療影像設備維修。"}
    assert parsed.entries[0].link.startswith("http://testserver/zh-hant/tenders/AT-TEST-PG")


def test_new_this_issue_only(client, feed):
    _, rows = feed
    parsed = parse(client.get("/feeds/new.atom", {"lang": "zh", "closing_bucket": "all"}))
    expected = [r for r in rows if r["new_this_issue"]]
    assert len(expected) == 33
    assert parsed.feed.title == "第 2026-W48 期新增招标"
    assert parsed.feed.language == "zh-Hans"
    assert [e.id for e in parsed.entries] == [tag(r["asaptic_id"]) for r in expected]
    assert parse(client.get("/feeds/new.atom", {"limit": "3"})).entries[2].id == tag(
        [r for r in expected if is_open(r)][2]["asaptic_id"]
    )


@pytest.mark.parametrize(
    "page_name, api_name", [("zh-hans", "zh"), ("zh-hant", "zht"), ("ZH-Hant", "zht"), ("en", "en")]
)
def test_feeds_take_the_pages_language_names(client, feed, page_name, api_name):
    for url in ("/feeds/tenders.atom", "/feeds/new.atom"):
        by_page = parse(client.get(url, {"lang": page_name, "closing_bucket": "all"}))
        by_api = parse(client.get(url, {"lang": api_name, "closing_bucket": "all"}))
        assert by_page.feed.language == by_api.feed.language
        assert by_page.feed.title == by_api.feed.title
        assert [(e.id, e.title, e.summary) for e in by_page.entries] == [
            (e.id, e.title, e.summary) for e in by_api.entries
        ]
    # The API keeps its own names: a page name there is still refused.
    assert client.get("/api/v1/tenders", {"lang": "zh-hans"}).status_code == 400
    assert client.get("/feeds/new.atom", {"lang": "zh-hanz"}).status_code == 400


def test_entry_ids_stay_the_same_across_issues(client, feed, t0):
    before = parse(client.get("/feeds/tenders.atom", {"closing_bucket": "all"}))
    services.publish_issue(now=t0 + timedelta(days=1))
    after = parse(client.get("/feeds/tenders.atom", {"closing_bucket": "all"}))
    assert [e.id for e in after.entries] == [e.id for e in before.entries]
    assert after.feed.updated == "2026-11-24T06:00:00+00:00"
    assert {e.updated for e in after.entries} == {"2026-11-24T06:00:00+00:00"}


def test_a_feed_with_no_entry_is_still_valid_atom(client, feed):
    parsed = parse(client.get("/feeds/new.atom", {"q": "zebra"}))
    assert parsed.entries == []
    assert parsed.feed.updated == "2026-11-23T06:00:00+00:00"


@pytest.mark.parametrize(
    "url, query",
    [
        ("/feeds/tenders.atom", {"market": "XX"}),
        ("/feeds/tenders.atom", {"lang": "fr"}),
        ("/feeds/tenders.atom", {"limit": "201"}),
        ("/feeds/tenders.atom", {"category": "nothing"}),
        ("/feeds/new.atom", {"q": ""}),
    ],
)
def test_bad_parameters_get_the_apis_400(client, feed, url, query):
    api = client.get("/api/v1/tenders", query)
    response = client.get(url, query)
    assert response.status_code == api.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json() == api.json()


def test_parameters_a_feed_does_not_take(client, feed):
    known = "market, category, closing_bucket, new, lead_ok, value_band, q, lang, limit"
    response = client.get("/feeds/tenders.atom", {"cursor": "abc"})
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "code": "invalid_parameter",
            "message": f"Unknown parameter 'cursor'. Known parameters: {known}.",
            "param": "cursor",
        }
    }
    response = client.get("/feeds/new.atom", {"new": "false"})
    assert response.json()["error"] == {
        "code": "invalid_parameter",
        "message": "Unknown parameter 'new'. Known parameters: "
        "market, category, closing_bucket, lead_ok, value_band, q, lang, limit.",
        "param": "new",
    }


def test_conditional_get(client, feed, django_assert_num_queries):
    issue, _ = feed
    etag = f'"{issue.snapshot_etag}"'
    with django_assert_num_queries(1):
        response = client.get("/feeds/new.atom", {"lang": "zht"}, HTTP_IF_NONE_MATCH=etag)
    assert (response.status_code, response.content) == (304, b"")
    assert response["ETag"] == etag
    bad = client.get("/feeds/new.atom", {"market": "XX"}, HTTP_IF_NONE_MATCH=etag)
    assert bad.status_code == 400


def test_before_the_first_issue(client, db):
    response = client.get("/feeds/tenders.atom")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "service_unavailable"


BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def test_a_feed_carries_its_stylesheet_and_a_browser_gets_it_as_xml(client, feed):
    reader = client.get("/feeds/new.atom", {"lang": "zh-hans"})
    browser = client.get("/feeds/new.atom", {"lang": "zh-hans"}, HTTP_ACCEPT=BROWSER_ACCEPT)
    assert reader["Content-Type"] == ATOM
    assert browser["Content-Type"] == "application/xml; charset=utf-8"
    assert reader.content == browser.content
    assert "Accept" in reader["Vary"] and "Accept" in browser["Vary"]
    head = reader.content.decode()[:200]
    assert head.startswith(
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<?xml-stylesheet href="/static/pages/feed.xsl" media="screen" type="text/xsl"?><feed '
    )
    assert parse(reader).entries  # still plain Atom for a feed reader
    for accept in ("application/atom+xml", "application/xml", "*/*"):
        assert client.get("/feeds/new.atom", HTTP_ACCEPT=accept)["Content-Type"] == ATOM
    stylesheet = client.get("/static/pages/feed.xsl")
    assert stylesheet.status_code == 200
    assert stylesheet["Content-Type"].startswith("text/xsl")

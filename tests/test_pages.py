"""People's pages: languages, the listing over the API's read path, paging, errors, one row,
the intake forms, and what must not change or leak."""

import json
import re
from datetime import timedelta
from html import unescape

import pytest
from django.core.cache import cache
from django.db import OperationalError, connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from django.utils.html import escape
from django.views.defaults import server_error

from core.errors import DATABASE_RETRY_AFTER
from rfq.models import AccessRequest, Rfq
from tenders import services
from tenders.markets import MARKETS
from tenders.models import SourceTender
from tenders.read import selectors
from tests.pages_feed import is_open, publish_pages_feed, snapshot

pytestmark = pytest.mark.django_db

LANGS = {"en": "en", "zh-hans": "zh", "zh-hant": "zht"}
H1_HOME = {
    "en": "Public tenders in seven markets, in three languages",
    "zh-hans": "七个市场的公开招标，三种语言",
    "zh-hant": "七個市場的公開招標，三種語言",
}
HTML_LANG = {"en": "en", "zh-hans": "zh-Hans", "zh-hant": "zh-Hant"}


@pytest.fixture
def feed(db, t0):
    cache.clear()
    issue = publish_pages_feed(t0)
    return issue, snapshot(issue)


def html(response) -> str:
    assert response["Content-Type"] == "text/html; charset=utf-8"
    return response.content.decode()


def listed(page: str) -> list[str]:
    return re.findall(r'<a href="/(?:en|zh-hans|zh-hant)/tenders/(AT-[A-Z0-9-]+)/">', page)


def link(page: str, rel: str) -> str | None:
    found = re.search(rf'<a rel="{rel}" href="\?([^"]*)">', page)
    return unescape(found.group(1)) if found else None


def total(page: str) -> int:
    return int(re.search(r'id="total" data-total="(\d+)">', page).group(1))


# --- languages ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "accept, target",
    [
        (None, "/en/"),
        ("en-GB,en;q=0.8", "/en/"),
        ("zh-CN,zh;q=0.9", "/zh-hans/"),
        ("zh-TW", "/zh-hant/"),
        ("zh-HK,en;q=0.5", "/zh-hant/"),
        ("fr-FR,de;q=0.5", "/en/"),
    ],
)
def test_the_root_redirects_by_accept_language(client, accept, target):
    headers = {"HTTP_ACCEPT_LANGUAGE": accept} if accept else {}
    response = client.get("/", **headers)
    assert (response.status_code, response["Location"]) == (302, target)
    assert response["Vary"] == "Accept-Language, Cookie"


def test_published_lane_and_access_addresses_redirect_into_the_pages(client):
    response = client.get("/lanes/solar-energy-equipment/", HTTP_ACCEPT_LANGUAGE="zh-TW")
    assert (response.status_code, response["Location"]) == (
        302,
        "/zh-hant/lanes/solar-energy-equipment/",
    )
    page = html(client.get(response["Location"]))
    assert "<h1>Solar PV and energy-efficiency equipment</h1>" in page
    assert '<p class="muted">採購線</p>' in page
    assert "Every request for quote is answered within 4 hours." in page
    assert client.get("/en/lanes/nothing-here/").status_code == 404
    response = client.get("/access/")
    assert (response.status_code, response["Location"]) == (302, "/en/access/")
    page = html(client.get("/en/access/"))
    assert "<h1>Access to spec-coded detail</h1>" in page
    assert "request_tender_access" in page
    assert '<a class="button" href="/en/access/request/">Ask for access</a>' in page


@pytest.mark.parametrize("lang", LANGS)
def test_home_in_each_language(client, feed, lang):
    _, rows = feed
    response = client.get(f"/{lang}/")
    page = html(response)
    assert response["Content-Language"] == lang
    assert f'<html lang="{HTML_LANG[lang]}">' in page
    assert f"<h1>{H1_HOME[lang]}</h1>" in page
    assert '<dd id="rows-total">45</dd>' in page
    assert '<dd id="new-count">33</dd>' in page
    for code, market in MARKETS.items():
        count = sum(r["market"] == code for r in rows)
        name = getattr(market, f"name_{LANGS[lang]}")
        assert (
            f'<a href="/{lang}/tenders/?market={code}&amp;closing_bucket=all">{name}</a></th>'
            f'<td class="num">{count}</td>'
        ) in page
    assert f'href="/feeds/new.atom?lang={LANGS[lang]}"' in page
    for other in LANGS:
        hreflang = HTML_LANG[other]
        assert (
            f'<link rel="alternate" hreflang="{hreflang}" href="http://testserver/{other}/">'
            in page
        )


def test_the_language_switch_keeps_the_query(client, feed):
    page = html(client.get("/en/tenders/", {"q": "医疗", "market": ["HK", "SG"]}))
    query = "q=%E5%8C%BB%E7%96%97&amp;market=HK&amp;market=SG"
    assert (
        f'<a href="http://testserver/zh-hant/tenders/?{query}" hreflang="zh-Hant" lang="zh-Hant">'
        "繁體中文</a>"
    ) in page
    assert (
        f'<a href="http://testserver/en/tenders/?{query}" hreflang="en" lang="en" '
        'aria-current="true">English</a>'
    ) in page


# --- the listing -------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_the_listing_shows_the_summary_of_the_page_language(client, feed, lang):
    _, rows = feed
    expected = [r for r in rows if is_open(r)][:20]
    page = html(client.get(f"/{lang}/tenders/"))
    assert listed(page) == [r["asaptic_id"] for r in expected]
    assert total(page) == 36
    for row in expected:
        assert f'<p class="summary">{row[f"summary_{LANGS[lang]}"]}</p>' in page


@pytest.mark.parametrize(
    "query",
    [
        {"market": ["HK", "SG"]},
        {"market": "hk,au"},
        {"closing_bucket": "all"},
        {"closing_bucket": ["le_2w", "deadline_passed"]},
        {"value_band": ["unspecified", "2m_10m"]},
        {"new": "true"},
        {"lead_ok": "false"},
        {"category": ["it-hardware", "construction-works"]},
        {"category": "清洁及卫生服务"},
        {"q": "醫療", "new": "false"},
        {"q": "cleaning services", "market": "GB"},
    ],
)
def test_every_filter_gives_the_apis_rows_and_total(client, feed, query):
    api = client.get("/api/v1/tenders", {**query, "limit": 20}).json()
    page = html(client.get("/en/tenders/", query))
    assert listed(page) == [r["asaptic_id"] for r in api["data"]]
    assert total(page) == api["meta"]["total"]


def test_empty_form_fields_mean_not_given(client, feed):
    query = {"q": "", "market": "HK", "new": "", "lead_ok": "", "category": ""}
    page = html(client.get("/en/tenders/", query))
    api = client.get("/api/v1/tenders", {"market": "HK", "limit": 20}).json()
    assert listed(page) == [r["asaptic_id"] for r in api["data"]]
    assert '<input type="checkbox" name="market" value="HK" checked> Hong Kong' in page
    assert '<input type="checkbox" name="market" value="SG"> Singapore' in page


def test_a_chinese_search_finds_traditional_summaries(client, feed):
    _, rows = feed
    expected = [r for r in rows if is_open(r) and "醫療" in r["summary_zht"]]
    assert len(expected) == 12
    page = html(client.get("/zh-hant/tenders/", {"q": "医疗"}))
    assert listed(page) == [r["asaptic_id"] for r in expected]
    assert (
        '<p class="count" role="status" id="total" data-total="12">共 12 項招標符合條件。' in page
    )
    assert page.count('<p class="summary">公共診所醫療影像設備維修。</p>') == 12


@pytest.mark.parametrize(
    "q,words",
    [
        ("CLINICS 维修", ("clinics", "維修")),  # every word, anywhere, in any script
        ('"public office" cleaning', ("public office", "cleaning")),
        ('"office public"', ("office public",)),
    ],
)
def test_the_search_form_takes_words_and_phrases(client, feed, q, words):
    _, rows = feed

    def has(row, word):
        texts = (
            row["summary_en"],
            row["summary_zh"],
            row["summary_zht"],
            *row["category"].values(),
        )
        return any(word in text.casefold() for text in texts)

    expected = [r["asaptic_id"] for r in rows if is_open(r) and all(has(r, w) for w in words)]
    page = html(client.get("/en/tenders/", {"q": q}))
    assert listed(page) == expected[:20]
    assert total(page) == len(expected)
    assert f'<input type="search" id="q" name="q" value="{escape(q)}"' in page
    assert "Several words must all appear; put a phrase in double quotes." in page


def test_paging_to_the_last_page_and_back(client, feed):
    _, rows = feed
    url = "/en/tenders/"
    pages, queries = [], ["closing_bucket=all"]
    while queries[-1] is not None:
        page = html(client.get(f"{url}?{queries[-1]}"))
        pages.append(page)
        queries.append(link(page, "next"))
    assert len(pages) == 3
    assert [listed(p) for p in pages] == [
        [r["asaptic_id"] for r in rows[i : i + 20]] for i in (0, 20, 40)
    ]
    assert "Page 3 of 3." in pages[2]
    assert '<ol class="results" start="41">' in pages[2]
    # Previous from the last page is the second page, whose previous is the first.
    assert link(pages[2], "prev") == queries[1]
    assert link(pages[1], "prev") == "closing_bucket=all"
    assert listed(html(client.get(f"{url}?{link(pages[2], 'prev')}"))) == listed(pages[1])
    assert '<a href="?closing_bucket=all">First page</a>' in pages[2]
    assert link(pages[0], "prev") is None


def test_an_unknown_category_says_what_exists(client, feed):
    api = client.get("/api/v1/tenders", {"category": "nothing"}).json()
    response = client.get("/zh-hans/tenders/", {"category": "nothing", "market": "HK"})
    page = html(response)
    assert response.status_code == 400
    assert "<h2>无法执行此搜索</h2>" in page
    assert api["error"]["param"] == "category"
    assert "<p>本期没有这个类别。请从下列类别中选择一个。</p>" in page
    assert (
        '<li><a href="?market=HK&amp;category=it-hardware">信息技术硬件及设备</a> '
        "<code>it-hardware</code></li>"
    ) in page
    assert page.count('<li><a href="?market=HK&amp;category=') == 23
    assert listed(page) == []


SEARCH_UNREAD = {
    "en": "This search could not be read. Use at most 8 words or phrases and 200 characters, and "
    "close every double quote.",
    "zh-hans": "无法识别此搜索。请最多使用 8 个词语或短语、不超过 200 个字符，并确保每个双引号都成对出现。",
    "zh-hant": "無法識別此搜索。請最多使用 8 個詞語或短語、不超過 200 個字符，並確保每個雙引號都成對出現。",
}
FILTER_UNKNOWN = {
    "en": "The address of this page holds a filter the list does not know. Choose the filters "
    "again below.",
    "zh-hans": "此页面的网址包含列表无法识别的筛选条件。请在下方重新选择筛选条件。",
    "zh-hant": "此頁面的網址包含列表無法識別的篩選條件。請在下方重新選擇篩選條件。",
}


@pytest.mark.parametrize(
    "query, said",
    [
        ({"market": "XX"}, FILTER_UNKNOWN),
        ({"limit_me": "1"}, FILTER_UNKNOWN),
        ({"new": "maybe"}, FILTER_UNKNOWN),
        ({"q": "x" * 201}, SEARCH_UNREAD),
        ({"q": '"x'}, SEARCH_UNREAD),
        ({"q": "a b c d e f g h i"}, SEARCH_UNREAD),
    ],
)
def test_bad_parameters_are_the_apis_refusal_worded_for_people(client, feed, query, said):
    api = client.get("/api/v1/tenders", query)
    assert api.status_code == 400
    for lang, text in said.items():
        response = client.get(f"/{lang}/tenders/", query)
        page = html(response)
        assert response.status_code == 400
        assert f"<p>{escape(text)}</p>" in page
        assert escape(api.json()["error"]["message"]) not in page


def test_cursor_errors_offer_to_start_again(client, feed, t0):
    page = html(client.get("/en/tenders/", {"market": "HK"}))
    second = link(html(client.get("/en/tenders/?closing_bucket=all")), "next")
    response = client.get(f"/en/tenders/?{second.replace('closing_bucket=all', 'market=HK')}")
    assert response.status_code == 400
    assert "<p>This page link is no longer valid.</p>" in html(response)
    assert '<a href="?market=HK">Start again from the first page</a>' in html(response)
    chinese = html(client.get(f"/zh-hant/tenders/?{second.replace('closing_bucket=all', 'q=x')}"))
    assert "<p>此頁面連結已失效。</p>" in chinese
    services.publish_issue(now=t0 + timedelta(hours=1))
    response = client.get(f"/en/tenders/?{second}")
    assert response.status_code == 409
    assert "<p>A new issue of the feed was published since this page was shown.</p>" in html(
        response
    )
    assert '<a href="?closing_bucket=all">Start again from the first page</a>' in html(response)
    assert "<p>本页显示之后，信息源已发布新一期。</p>" in html(
        client.get(f"/zh-hans/tenders/?{second}")
    )
    assert listed(page)  # the first page itself never needs a cursor


def test_no_match_is_a_clear_empty_state(client, feed):
    page = html(client.get("/en/tenders/", {"q": "zebra"}))
    assert '<p class="count" role="status" id="total" data-total="0">0 tenders match.' in page
    assert '<div class="notice" id="empty"><p>No tender matches these filters.</p>' in page
    assert (
        '<a href="?q=zebra&amp;closing_bucket=all">Include tenders whose deadline has passed</a>'
    ) in page
    assert listed(page) == []


UNPUBLISHED = {
    "en": "The first issue of the feed is not published yet. Come back after the weekly "
    "publication.",
    "zh-hans": "信息源的第一期尚未发布。请在每周发布后再来。",
    "zh-hant": "資訊源的第一期尚未發佈。請在每週發佈後再來。",
}


@pytest.mark.parametrize("lang", LANGS)
def test_before_the_first_issue_people_read_when_to_come_back(client, db, lang):
    for path in ("tenders/", "tenders/AT-TEST-0000000001/"):
        response = client.get(f"/{lang}/{path}")
        page = html(response)
        assert response.status_code == 503, path
        assert f"<p>{UNPUBLISHED[lang]}</p>" in page, path
        assert "/api/v1/health" not in page
    assert f'<p class="notice">{UNPUBLISHED[lang]}</p>' in html(client.get(f"/{lang}/"))


# --- one row -----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_a_row_page(client, feed, lang):
    _, rows = feed
    row = rows[7]
    api = LANGS[lang]
    page = html(client.get(f"/{lang}/tenders/{row['asaptic_id']}/"))
    market = getattr(MARKETS[row["market"]], f"name_{api}")
    category = row["category"][f"name_{api}"]
    assert f"<h1>{category} · {market}</h1>" in page
    assert f'<p class="lead" id="summary">{row[f"summary_{api}"]}</p>' in page
    assert f'<code id="listing-id">{row["asaptic_id"]}</code>' in page
    assert f'href="/{lang}/rfq/?at_id={row["asaptic_id"]}"' in page
    assert f'href="/{lang}/access/request/?at_id={row["asaptic_id"]}"' in page
    assert f'href="/api/v1/tenders/{row["asaptic_id"]}?lang={api}"' in page


def test_every_absent_row_is_the_same_404(client, feed, t0):
    _, rows = feed
    withheld = rows[0]["asaptic_id"]
    SourceTender.objects.filter(listing_id=withheld).update(status="withheld", withheld_reason="x")
    services.publish_issue(now=t0 + timedelta(hours=1))
    bodies = set()
    for at_id in (withheld, "AT-0123456789", "nonsense", "AT-TEST-PG99999999"):
        response = client.get(f"/en/tenders/{at_id}/")
        assert response.status_code == 404
        bodies.add(html(response))
    assert len(bodies) == 1
    assert "<h1>Page not found</h1>" in bodies.pop()
    page = html(client.get("/zh-hant/tenders/AT-0123456789/"))
    assert "<h1>找不到頁面</h1>" in page


def test_pages_show_nothing_private(client, feed):
    _, rows = feed
    record = SourceTender.objects.get(listing_id=rows[4]["asaptic_id"])
    private = [
        record.buyer_name,
        record.reference,
        "procurement.example.gov.hk",
        record.title,
        "Raw notice text",
        "buyer@example.gov.hk",
        record.deadline.date().isoformat(),
    ]
    if record.amount is not None:
        private += [str(record.amount), f"{record.amount:,.0f}"]
    urls = ["/en/", "/zh-hant/tenders/?closing_bucket=all", "/en/tenders/?closing_bucket=all"]
    urls += [f"/{lang}/tenders/{r['asaptic_id']}/" for lang in LANGS for r in rows[:6]]
    urls += [f"/en/rfq/?at_id={record.listing_id}", "/feeds/tenders.atom?closing_bucket=all"]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        text = response.content.decode()
        for value in private:
            assert value not in text, (url, value)


def test_pages_are_light_and_need_no_script(client, feed):
    _, rows = feed
    for url in (
        "/en/",
        "/zh-hant/tenders/?closing_bucket=all",
        f"/zh-hans/tenders/{rows[0]['asaptic_id']}/",
        "/en/rfq/",
        "/zh-hant/access/",
    ):
        body = client.get(url).content
        assert len(body) < 50_000, (url, len(body))
        assert b"<script" not in body


# --- forms -------------------------------------------------------------------------------


def form_client() -> tuple[Client, str]:
    csrf = Client(enforce_csrf_checks=True)
    page = csrf.get("/en/rfq/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    return csrf, token


RFQ_FORM = {
    "product": "Ultrasound probes",
    "quantity": "12",
    "target_market": "hk",
    "buyer_contact": "buyer@example.com",
}


def test_the_quote_form_is_prefilled_from_a_row(client, feed):
    _, rows = feed
    row = rows[3]
    page = html(client.get(f"/zh-hans/rfq/?at_id={row['asaptic_id']}"))
    expected = f"{row['asaptic_id']}: {row['summary_zh']}"
    assert f">{expected}</textarea>" in page
    assert f'name="target_market" value="{row["market"]}"' in page
    assert '<label for="id_buyer_contact">您的联系方式</label>' in page
    assert f'name="asaptic_id" value="{row["asaptic_id"]}"' in page
    assert "WeChat: 您的微信号" in page
    assert 'maxlength="500" required aria-describedby="hint_product"' in page
    unknown = html(client.get("/en/rfq/?at_id=AT-0123456789"))
    assert 'aria-describedby="hint_product"></textarea>' in unknown


def test_a_quote_request_goes_through_the_intake_service(feed, mailoutbox):
    csrf, token = form_client()
    response = csrf.post(
        "/zh-hant/rfq/",
        {**RFQ_FORM, "csrfmiddlewaretoken": token, "idempotency_key": "k-1"},
        REMOTE_ADDR="198.51.100.9",
    )
    record = Rfq.objects.get()
    assert response.status_code == 303
    assert response["Location"] == f"/zh-hant/rfq/sent/?reference={record.reference}"
    assert (record.product, record.quantity, record.target_market, record.buyer_contact) == (
        "Ultrasound probes",
        "12",
        "HK",
        "buyer@example.com",
    )
    assert (record.client_ip, record.idempotency_key) == ("198.51.100.9", "k-1")
    page = html(csrf.get(response["Location"]))
    assert f'<strong id="reference">{record.reference}</strong>' in page
    assert "謝謝。我們會在 4 小時內通過您留下的聯繫方式答覆。" in page
    # The same form sent twice (a double click) stores one request.
    again = csrf.post(
        "/zh-hant/rfq/", {**RFQ_FORM, "csrfmiddlewaretoken": token, "idempotency_key": "k-1"}
    )
    assert again["Location"] == response["Location"]
    assert Rfq.objects.count() == 1
    assert response["Cache-Control"] == "max-age=0, no-cache, no-store, must-revalidate, private"


def test_a_quote_request_from_a_messenger_names_its_listing(feed):
    _, rows = feed
    row = rows[3]
    csrf, token = form_client()
    response = csrf.post(
        "/zh-hans/rfq/",
        {
            **RFQ_FORM,
            "buyer_contact": "微信：harbour_lighting",
            "asaptic_id": row["asaptic_id"].lower(),
            "csrfmiddlewaretoken": token,
            "idempotency_key": "k-3",
        },
    )
    assert response.status_code == 303
    record = Rfq.objects.get()
    assert (record.buyer_contact, record.asaptic_id) == (
        "WeChat: harbour_lighting",
        row["asaptic_id"],
    )


@pytest.mark.parametrize(
    "change, said",
    [
        (
            {"buyer_contact": "2123 4567"},
            "Give a valid e-mail address, a phone number starting with + and the country code "
            "(such as +852 2123 4567), or a messenger contact written as WeChat: your_id, "
            "WhatsApp: +852 9123 4567, Line: your_id or Telegram: @your_name.",
        ),
        (
            {"buyer_contact": "Telegram: harbour"},
            "Give a valid e-mail address, a phone number starting with + and the country code "
            "(such as +852 2123 4567), or a messenger contact written as WeChat: your_id, "
            "WhatsApp: +852 9123 4567, Line: your_id or Telegram: @your_name.",
        ),
        (
            {"asaptic_id": "AT-TEST-ZZZZZZZZZZ"},
            "Give the listing id of a tender in this week's issue, such as AT-7K3M9Q2X4B, "
            "or leave it empty.",
        ),
        ({"product": ""}, "Say what you want to source."),
        (
            {"target_market": "XX"},
            "This is not a market or country code we know; give one such as HK or DE.",
        ),
        ({"quantity": "9" * 101}, "Write plain text of at most 100 characters."),
    ],
)
def test_a_bad_quote_request_is_the_apis_refusal_worded_for_people(client, feed, change, said):
    body = {**RFQ_FORM, **change}
    api = client.post("/rfq", data=json.dumps(body), content_type="application/json").json()
    response = client.post("/en/rfq/", {**body, "idempotency_key": "k-2"})
    page = html(response)
    field = api["error"]["param"]
    assert response.status_code == 400
    assert f'<p class="field-error" id="error_{field}">{escape(said)}</p>' in page
    assert f'<p><a href="#id_{field}">{escape(said)}</a></p>' in page
    assert f'aria-describedby="hint_{field} error_{field}" aria-invalid="true"' in page
    assert '<input type="hidden" name="idempotency_key" value="k-2">' in page
    assert f'value="{escape(body["buyer_contact"])}"' in page
    assert Rfq.objects.count() == 0


def test_a_form_without_its_csrf_token_is_refused(feed):
    csrf, _ = form_client()
    response = csrf.post("/en/rfq/", RFQ_FORM)
    assert response.status_code == 403
    assert "<h1>This form could not be sent</h1>" in html(response)
    assert Rfq.objects.count() == 0


def test_over_the_rate_limit_the_form_says_when_to_retry(client, feed, settings):
    settings.RFQ_RATE_LIMIT = "1/hour"
    assert client.post("/en/rfq/", {**RFQ_FORM, "idempotency_key": "a"}).status_code == 303
    response = client.post("/en/rfq/", {**RFQ_FORM, "idempotency_key": "b"})
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    minutes = -(-int(response["Retry-After"]) // 60)
    assert (
        "<p>Too many requests were sent from your network. Please try again in "
        f"{minutes} minutes.</p>"
    ) in html(response)
    chinese = html(client.post("/zh-hans/rfq/", {**RFQ_FORM, "idempotency_key": "c"}))
    wait = re.search(r"<p>从您的网络发送的请求过多。请在 (\d+) 分钟后重试。</p>", chinese)
    assert wait and minutes - 1 <= int(wait.group(1)) <= minutes
    assert Rfq.objects.count() == 1


def test_an_access_request_from_a_row(client, feed):
    _, rows = feed
    at_id = rows[2]["asaptic_id"]
    page = html(client.get(f"/en/access/request/?at_id={at_id}"))
    assert f'name="at_id" value="{at_id}"' in page
    response = client.post(
        "/en/access/request/",
        {
            "at_id": at_id,
            "organisation": "Harbour Imaging Ltd",
            "contact": "+852 2123 4567",
            "purpose": "We maintain imaging equipment and intend to bid.",
        },
    )
    record = AccessRequest.objects.get()
    assert response["Location"] == f"/en/access/request/sent/?reference={record.reference}"
    assert (record.at_id, record.contact) == (at_id, "+852 2123 4567")
    assert "<h1>Your access request is stored</h1>" in html(client.get(response["Location"]))
    for reference in ("RFQ-0000000000", "ACR-123", ""):
        assert client.get(f"/en/access/request/sent/?reference={reference}").status_code == 404


# --- what must not change ----------------------------------------------------------------


def test_the_json_surfaces_are_untouched_by_languages(client, feed):
    _, rows = feed
    urls = [
        "/api/v1/tenders?limit=3",
        "/api/v1/tenders?market=XX",
        f"/api/v1/tenders/{rows[0]['asaptic_id']}",
        "/api/v1/tenders/facets",
        "/api/v1/nothing",
        "/api/v1/spec-coded/AT-0123456789",
        "/agent/capabilities.json",
        "/openapi.json",
        "/llms.txt",
    ]
    for url in urls:
        plain = client.get(url)
        chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-TW,zh;q=0.9")
        assert (chinese.status_code, chinese.content) == (plain.status_code, plain.content), url
        assert sorted(chinese.headers.items()) == sorted(plain.headers.items()), url
        assert not chinese.has_header("Content-Language"), url
        assert "Accept-Language" not in chinese.get("Vary", ""), url
    post = client.post(
        "/rfq", data="{}", content_type="application/json", HTTP_ACCEPT_LANGUAGE="zh-TW"
    )
    assert not post.has_header("Content-Language")
    assert post.json()["error"]["message"].startswith("product is required")


def test_people_get_pages_for_errors(client, db):
    response = client.get("/zh-hans/nothing/")
    assert response.status_code == 404
    assert "<h1>找不到页面</h1>" in html(response)
    assert "<h1>Page not found</h1>" in html(client.get("/nothing-here"))
    request = RequestFactory().get("/zh-hant/")
    with translation.override("zh-hant"):
        response = server_error(request)
    assert response.status_code == 500
    page = response.content.decode()
    assert '<html lang="zh-Hant">' in page
    assert "<h1>我們這邊出錯了</h1>" in page


def test_the_catalogues_are_complete_and_compiled():
    from babel.messages.pofile import read_po
    from django.conf import settings

    for locale, expected in (("zh_Hans", "浏览招标"), ("zh_Hant", "瀏覽招標")):
        with open(settings.LOCALE_PATHS[0] / locale / "LC_MESSAGES" / "django.po", "rb") as fh:
            catalog = read_po(fh)
        untranslated = [m.id for m in catalog if m.id and (not m.string or m.fuzzy)]
        assert untranslated == [], locale
        assert len(catalog) > 100
        with translation.override(locale.lower().replace("_", "-")):
            assert translation.gettext("Browse tenders") == expected


def test_a_page_costs_the_same_queries_whatever_it_shows(client, feed):
    def queries(url):
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    _, rows = feed
    client.get("/api/v1/health")  # the process knows the current issue
    pages = ("/en/tenders/?market=HK&closing_bucket=all", "/en/tenders/?closing_bucket=all")
    assert queries(pages[0]) == queries(pages[1])
    first = [r["asaptic_id"] for r in rows[:2]]
    assert queries(f"/en/tenders/{first[0]}/") == queries(f"/zh-hant/tenders/{first[1]}/")
    # Shown again: the listing's answers are cached, and so is the current issue.
    assert queries(pages[0]) == queries(f"/en/tenders/{first[0]}/") == 0


def test_a_form_sent_again_with_other_content_gets_a_fresh_key(client, feed):
    assert client.post("/en/rfq/", {**RFQ_FORM, "idempotency_key": "k-3"}).status_code == 303
    response = client.post("/en/rfq/", {**RFQ_FORM, "quantity": "13", "idempotency_key": "k-3"})
    page = html(response)
    assert response.status_code == 422
    assert (
        '<p class="notice" role="status">This form was already sent with other content. '
        "Check it and send it again.</p>"
    ) in page
    key = re.search(r'name="idempotency_key" value="([0-9a-f]{32})"', page).group(1)
    assert key != "k-3"
    assert 'name="quantity" value="13"' in page
    assert list(Rfq.objects.values_list("quantity", flat=True)) == ["12"]


def test_a_database_that_does_not_answer_gets_a_503_page_for_people(client, db, monkeypatch):
    def down():
        raise OperationalError("connection refused")

    monkeypatch.setattr(selectors, "current_issue", down)
    client.raise_request_exception = False
    response = client.get("/zh-hans/")
    assert response.status_code == 503
    assert response["Retry-After"] == str(DATABASE_RETRY_AFTER)
    page = html(response)
    assert '<html lang="zh-Hans">' in page
    assert "<h1>信息源暂时不可用</h1>" in page

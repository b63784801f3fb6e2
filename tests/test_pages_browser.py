"""A person in a real browser: home in each language, a search in Chinese, filters, paging to
the last page and back, a row, a request for quote, the language switch, a phone's screen and
the keyboard, with axe-core checking every kind of page.

Debian's Chromium through Playwright on pytest-django's live server (the fixture is in
``conftest.py``); axe-core comes with the ``axe-playwright-python`` package installed by
``dev.py test``. Screenshots go to ``test-artifacts/pages/``.
"""

import json
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import pytest
from axe_playwright_python.sync_playwright import Axe

from rfq.models import Rfq
from tests.pages_feed import publish_pages_feed, snapshot

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "pages"
AXE = Axe()

pytestmark = pytest.mark.slow


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def accessible(page, name: str) -> None:
    """axe-core in the page finds no violation at all, of any impact (the issue asks for no
    serious one); the full report is kept beside the screenshots."""
    violations = AXE.run(page).response["violations"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{name}.axe.json").write_text(json.dumps(violations, indent=1))
    found = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]]) for v in violations]
    assert found == [], name


def listed(page) -> list[str]:
    return page.locator("ol.results h2 a").evaluate_all(
        "links => links.map(a => a.pathname.split('/')[3])"
    )


def api(base: str, **params) -> dict:
    with urllib.request.urlopen(f"{base}/api/v1/tenders?{urlencode(params)}", timeout=10) as r:
        return json.loads(r.read())


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_person_browses_searches_and_asks_for_a_quote(live_server, browser_page, t0):
    page, base = browser_page, live_server.url
    rows = snapshot(publish_pages_feed(t0))

    # Home: / picks English for an English browser; the switch leads to both Chinese pages.
    page.set_extra_http_headers({"Accept-Language": "en-US,en;q=0.9"})
    page.goto(f"{base}/")
    assert page.url == f"{base}/en/"
    assert page.inner_text("h1") == "Public tenders in seven markets, in three languages"
    assert page.inner_text("#rows-total") == "45"
    shot(page, "01-home-en")
    accessible(page, "01-home-en")
    page.click("nav.langs >> text=简体中文")
    assert page.url == f"{base}/zh-hans/"
    assert page.inner_text("h1") == "七个市场的公开招标，三种语言"
    shot(page, "02-home-zh-hans")
    page.click("nav.langs >> text=繁體中文")
    assert page.url == f"{base}/zh-hant/"
    assert page.inner_text("h1") == "七個市場的公開招標，三種語言"
    shot(page, "03-home-zh-hant")
    accessible(page, "03-home-zh-hant")

    # The keyboard reaches the skip link first, and focus is visible.
    page.keyboard.press("Tab")
    focused = page.evaluate(
        "() => [document.activeElement.textContent, getComputedStyle(document.activeElement).outlineStyle]"
    )
    assert focused == ["跳到正文", "solid"]

    # A search in Simplified Chinese finds the Traditional summaries.
    page.fill("#home-q", "医疗")
    page.keyboard.press("Enter")
    page.wait_for_url("**/zh-hant/tenders/?q=*")
    medical = [
        r["asaptic_id"]
        for r in rows
        if "醫療" in r["summary_zht"] and r["closing_bucket"] != "deadline_passed"
    ]
    assert listed(page) == medical and len(medical) == 12
    assert set(page.locator("p.summary").all_inner_texts()) == {"公共診所醫療影像設備維修。"}
    shot(page, "04-search-zh-hant")
    accessible(page, "04-search-zh-hant")

    # Filters: Hong Kong and Canada, new this issue only.
    page.click("details.filters summary")
    page.check("input[name=market][value=HK]")
    page.check("input[name=market][value=CA]")
    page.select_option("#new", "true")
    page.click("text=應用篩選")
    expected = api(base, q="医疗", market="HK,CA", new="true", limit=20)
    assert listed(page) == [r["asaptic_id"] for r in expected["data"]]
    assert page.get_attribute("#total", "data-total") == str(expected["meta"]["total"])
    shot(page, "05-filters-zh-hant")

    # The language switch keeps the query.
    page.click("nav.langs >> text=English")
    assert page.input_value("#q") == "医疗"
    assert page.is_checked("input[name=market][value=HK]")
    assert listed(page) == [r["asaptic_id"] for r in expected["data"]]
    assert set(page.locator("p.summary").all_inner_texts()) == {
        "Maintenance of medical imaging equipment for public clinics."
    }

    # Paging through every row, closed ones included, to the last page and back.
    page.goto(f"{base}/en/tenders/")
    page.click("details.filters summary")
    for value in ("le_2w", "2_4w", "gt_4w", "deadline_passed"):
        page.check(f"input[name=closing_bucket][value='{value}']")
    # Each click loads a new page: wait for it, or a busy machine reads the old one (or none).
    with page.expect_navigation():
        page.click("text=Apply filters")
    seen = [listed(page)]
    while page.locator("a[rel=next]").count():
        with page.expect_navigation():
            page.click("a[rel=next]")
        seen.append(listed(page))
    assert [len(ids) for ids in seen] == [20, 20, 5]
    assert [i for ids in seen for i in ids] == [r["asaptic_id"] for r in rows]
    assert "Page 3 of 3." in page.inner_text("#total")
    shot(page, "06-last-page")
    accessible(page, "06-last-page")
    with page.expect_navigation():
        page.click("a[rel=prev]")
    assert listed(page) == seen[1]
    assert "Page 2 of 3." in page.inner_text("#total")

    # One row, then a request for quote about it.
    first = seen[1][0]
    page.click(f"ol.results a[href='/en/tenders/{first}/']")
    assert page.inner_text("#listing-id") == first
    row = next(r for r in rows if r["asaptic_id"] == first)
    assert page.inner_text("#summary") == row["summary_en"]
    shot(page, "07-row")
    accessible(page, "07-row")
    page.click("#ask-quote")
    assert page.input_value("#id_product") == f"{first}: {row['summary_en']}"
    page.fill("#id_buyer_contact", "2123 4567")
    page.click("button[type=submit]")
    assert page.inner_text("#error_buyer_contact") == (
        "Give a valid e-mail address, a phone number starting with + and the country code (such "
        "as +852 2123 4567), or a messenger contact written as WeChat: your_id, WhatsApp: "
        "+852 9123 4567, Line: your_id or Telegram: @your_name."
    )
    assert Rfq.objects.count() == 0
    shot(page, "08-quote-error")
    accessible(page, "08-quote-error")
    page.fill("#id_buyer_contact", "+852 2123 4567")
    page.click("button[type=submit]")
    page.wait_for_selector("#reference")
    record = Rfq.objects.get()
    assert page.inner_text("#reference") == record.reference
    assert (record.product, record.buyer_contact, record.target_market) == (
        f"{first}: {row['summary_en']}",
        "+852 2123 4567",
        row["market"],
    )
    shot(page, "09-quote-sent")

    # A phone: the listing fits the screen's width.
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{base}/zh-hans/tenders/?q=%E5%8C%BB%E7%96%97")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    shot(page, "10-phone-zh-hans")
    accessible(page, "10-phone-zh-hans")

"""A person in Chromium subscribes to a search from the listing page and opens its feed, in
each language; the confirmation arrives at a real SMTP server. Screenshots (looked at by a
person) go to ``test-artifacts/pages/``."""

import pytest
from django.core.cache import cache

from tenders.models import Subscription
from tests.pages_feed import publish_pages_feed
from tests.smtp_support import links, smtp_server, text_of
from tests.test_pages_browser import accessible, shot
from tests.worker_support import work_off_the_queue

pytestmark = pytest.mark.slow

TEXTS = {
    "en": ("Get this search by e-mail each week", "Check your inbox", "This is an Atom feed"),
    "zh-hans": ("每周通过电子邮件接收此搜索", "请查收邮件", "这是一个 Atom 订阅源"),
    "zh-hant": ("每週透過電子郵件接收此搜尋", "請查收郵件", "這是一個 Atom 訂閱源"),
}

SEARCH = {
    "en": "“医疗” · Hong Kong",
    "zh-hans": "“医疗” · 香港",
    "zh-hant": "“医疗” · 香港",
}


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_subscribe_form_and_the_feed_link_in_each_language(
    live_server, browser_page, t0, settings
):
    page, base = browser_page, live_server.url
    publish_pages_feed(t0)
    cache.clear()
    with smtp_server() as inbox:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", inbox.port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.PUBLIC_BASE_URL = base
        for n, (lang, (heading, sent, note)) in enumerate(TEXTS.items()):
            page.goto(f"{base}/{lang}/tenders/?q=医疗&market=HK")
            assert page.inner_text("#subscribe-title") == heading
            assert page.is_visible("#email") and page.is_visible("#feed-link")
            page.locator("#subscribe").scroll_into_view_if_needed()
            shot(page, f"20-subscribe-{lang}")
            accessible(page, f"20-subscribe-{lang}")

            page.fill("#email", f"reader-{lang}@example.com")
            page.click("#subscribe-button")
            page.wait_for_selector("#sent")
            assert page.inner_text("h1") == sent
            shot(page, f"21-subscribe-sent-{lang}")
            work_off_the_queue()  # the worker's part: the confirmation mail
            inbox.wait(n + 1)
            mail = inbox.messages[n]
            assert mail["To"] == f"reader-{lang}@example.com"
            assert "/confirm/" in text_of(mail)
            stored = Subscription.objects.get(email=f"reader-{lang}@example.com")
            assert stored.query == {"q": "医疗", "market": "HK"}
            assert not stored.confirmed

            # The link in the mail: a page with a button; the button confirms.
            link = next(u for u in links(text_of(mail)) if "/confirm/" in u)
            page.goto(link)
            assert page.inner_text("#search") == SEARCH[lang]
            shot(page, f"23-confirm-{lang}")
            accessible(page, f"23-confirm-{lang}")
            page.click("#confirm")
            page.wait_for_selector("#confirmed")
            stored.refresh_from_db()
            assert stored.confirmed
            page.click("#manage")
            page.wait_for_selector("#digests")
            assert page.locator("#digests li").count() == 1
            assert {"en": "English", "zh-hans": "简体中文", "zh-hant": "繁體中文"}[lang] in (
                page.inner_text("#digests")
            )
            shot(page, f"24-manage-{lang}")
            accessible(page, f"24-manage-{lang}")

            # The visible feed link opens a readable page (the feed through its stylesheet).
            page.goto(f"{base}/{lang}/tenders/?q=医疗&market=HK")
            page.click("#feed-link")
            page.wait_for_selector("#feed-note")
            assert page.inner_text("#feed-note").startswith(note)
            assert page.locator("ol.results li").count() >= 1
            shot(page, f"22-feed-{lang}")

"""Saved searches mailed each week, against a real SMTP server (aiosmtpd on 127.0.0.1): the
listing page's form, the confirmation link, the digest after a publication, one-click leave,
privacy of addresses, expiry, the manage page and the admin."""

import base64
import contextlib
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from tenders import services, subscriptions, tasks
from tenders.models import DigestDelivery, Job, Subscription
from tenders.read import selectors
from tests.pages_feed import ADDED, PREVIOUS, _records
from tests.smtp_support import html_of, links, path_of, smtp_server, text_of
from tests.worker_support import work_off_the_queue

pytestmark = pytest.mark.django_db
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "mail"

API = {"en": "en", "zh-hans": "zh", "zh-hant": "zht"}
CONFIRM_SUBJECT = {
    "en": "Confirm your weekly tender digest",
    "zh-hans": "请确认您的每周招标摘要",
    "zh-hant": "請確認您的每週招標摘要",
}
DIGEST_SUBJECT = {
    "en": "{n} new tenders for your search in issue {issue}",
    "zh-hans": "第 {issue} 期有 {n} 项符合您搜索的新招标",
    "zh-hant": "第 {issue} 期有 {n} 項符合您搜尋的新招標",
}
SUBSCRIBE_HEADING = {
    "en": "Get this search by e-mail each week",
    "zh-hans": "每周通过电子邮件接收此搜索",
    "zh-hant": "每週透過電子郵件接收此搜尋",
}


@pytest.fixture
def inbox(settings):
    cache.clear()
    with smtp_server() as server:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST = "127.0.0.1"
        settings.EMAIL_PORT = server.port
        settings.EMAIL_USE_TLS = False
        settings.EMAIL_USE_SSL = False
        settings.PUBLIC_BASE_URL = "http://testserver"
        yield server


def publish(t0, start, count, when, capture):
    _records(t0, start, count)
    with capture(execute=True):
        return services.publish_issue(now=when).issue


def form_token(page: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def subscribe_from_page(client, lang: str, query: dict, address: str):
    page = client.get(f"/{lang}/tenders/", query)
    assert page.status_code == 200
    html = page.content.decode()
    assert f'<h2 id="subscribe-title">{SUBSCRIBE_HEADING[lang]}</h2>' in html
    assert 'id="feed-link"' in html
    body = {**query, "email": address, "csrfmiddlewaretoken": form_token(html)}
    return client.post(f"/{lang}/subscriptions/", body)


def run_jobs():
    work_off_the_queue()


@pytest.mark.parametrize("lang", ["en", "zh-hans", "zh-hant"])
def test_subscribe_confirm_receive_one_digest_leave_and_receive_nothing(
    inbox, t0, lang, django_capture_on_commit_callbacks
):
    publish(t0, 0, PREVIOUS, t0 - timedelta(days=7), django_capture_on_commit_callbacks)
    client = Client(enforce_csrf_checks=True)
    address = f"reader-{lang}@example.com"
    query = {"q": "医疗"}

    response = subscribe_from_page(client, lang, query, address)
    assert response.status_code == 303
    assert response["Location"] == f"/{lang}/subscriptions/sent/"
    assert client.get(response["Location"]).status_code == 200

    # The confirmation (sent by a worker, off the request), and nothing else before the link
    # is used.
    run_jobs()
    inbox.wait(1)
    (confirmation,) = inbox.messages
    assert confirmation["To"] == address
    assert confirmation["Subject"].strip() == CONFIRM_SUBJECT[lang]
    assert confirmation["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    confirm_link = next(u for u in links(text_of(confirmation)) if "/confirm/" in u)
    assert confirm_link in html_of(confirmation)
    assert path_of(confirm_link).startswith(f"/{lang}/subscriptions/confirm/")
    subscription = Subscription.objects.get()
    assert (subscription.email, subscription.lang, subscription.confirmed) == (
        address,
        API[lang],
        False,
    )
    # A mail scanner's GET confirms nothing.
    assert client.get(path_of(confirm_link)).status_code == 200
    assert not Subscription.objects.get().confirmed
    # An issue published before the confirmation sends nothing.
    publish(t0, 100, 3, t0 - timedelta(days=3), django_capture_on_commit_callbacks)
    run_jobs()
    assert len(inbox.messages) == 1

    page = client.get(path_of(confirm_link)).content.decode()
    confirmed = client.post(path_of(confirm_link), {"csrfmiddlewaretoken": form_token(page)})
    assert confirmed.status_code == 200
    assert Subscription.objects.get().confirmed

    # The next issue: exactly one digest, with the listing's new matching rows.
    issue = publish(t0, PREVIOUS, ADDED, t0, django_capture_on_commit_callbacks)
    run_jobs()
    inbox.wait(2)
    assert len(inbox.messages) == 2
    digest = inbox.messages[1]
    expected = selectors.list_tenders({**query, "new": "true", "lang": API[lang], "limit": "50"})
    rows = expected["data"]
    assert rows, "the fixture has new rows about 医疗"
    total = expected["meta"]["total"]
    assert digest["Subject"].strip() == DIGEST_SUBJECT[lang].format(n=total, issue=issue.issue_id)
    assert digest["Message-ID"] == f"<digest.{subscription.pk}.{issue.pk}@testserver>"
    text, html = text_of(digest), html_of(digest)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)  # kept for a person to read
    (ARTIFACTS / f"digest-{lang}.txt").write_text(text)
    (ARTIFACTS / f"digest-{lang}.html").write_text(html)
    for row in rows:
        assert row["asaptic_id"] in text and row["summary"] in text
        assert f"/{lang}/tenders/{row['asaptic_id']}/" in html
    others = selectors.list_tenders({"new": "true", "lang": API[lang], "limit": "200"})["data"]
    for row in others:
        if row["asaptic_id"] not in {r["asaptic_id"] for r in rows}:
            assert row["asaptic_id"] not in text
    assert DigestDelivery.objects.get().state == DigestDelivery.State.SENT

    # The job run again (a retry) sends nothing more.
    tasks.digests_enqueue(issue)
    run_jobs()
    assert len(inbox.messages) == 2

    # One POST to the header's URL, as a mail client sends it (no cookie, no CSRF token).
    header = digest["List-Unsubscribe"]
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = re.fullmatch(r"<(https?://[^>]+)>", header.strip()).group(1)
    one_click = Client(enforce_csrf_checks=True).post(
        path_of(url),
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert one_click.status_code == 200
    assert not Subscription.objects.exists()
    assert not DigestDelivery.objects.exists()

    publish(t0, 200, 5, t0 + timedelta(days=7), django_capture_on_commit_callbacks)
    run_jobs()
    assert len(inbox.messages) == 2


def test_the_same_answer_for_every_address(inbox, t0, django_capture_on_commit_callbacks, settings):
    settings.SUBSCRIPTION_ADDRESS_RATE_LIMIT = "2/day"
    publish(t0, 0, PREVIOUS, t0, django_capture_on_commit_callbacks)
    client = Client()

    def ask(address):
        response = client.post("/en/subscriptions/", {"email": address, "market": "HK"})
        run_jobs()
        return response.status_code, response["Location"]

    new = ask("new@example.com")
    Subscription.objects.create(
        email="old@example.com",
        lang="en",
        query={"market": "HK"},
        search_key=Subscription.objects.get().search_key,
        confirmed_at=timezone.now(),
    )
    assert ask("old@example.com") == new  # already confirmed: same answer, no mail
    assert ask("new@example.com") == new  # pending: a second confirmation
    assert ask("new@example.com") == new  # over the address's limit: same answer, no mail
    inbox.wait(2)
    assert [m["To"] for m in inbox.messages] == ["new@example.com", "new@example.com"]
    assert Subscription.objects.count() == 2


def test_the_network_limit_is_refused_and_bad_input_saves_nothing(
    inbox, t0, django_capture_on_commit_callbacks, settings
):
    settings.SUBSCRIPTION_RATE_LIMIT = "2/hour"
    publish(t0, 0, PREVIOUS, t0, django_capture_on_commit_callbacks)
    client = Client()
    bad_address = client.post("/en/subscriptions/", {"email": "not-an-address", "q": "x"})
    assert bad_address.status_code == 400
    assert "Give an e-mail address such as buyer@example.com." in bad_address.content.decode()
    bad_search = client.post("/zh-hans/subscriptions/", {"email": "a@example.com", "market": "XX"})
    assert bad_search.status_code == 400
    assert not Subscription.objects.exists()
    for n in range(2):
        ok = client.post("/en/subscriptions/", {"email": f"r{n}@example.com"})
        assert ok.status_code == 303
    refused = client.post("/en/subscriptions/", {"email": "r9@example.com"})
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert Subscription.objects.count() == 2


def test_unconfirmed_subscriptions_expire_and_their_links_with_them(
    inbox, t0, django_capture_on_commit_callbacks, settings
):
    publish(t0, 0, PREVIOUS, t0, django_capture_on_commit_callbacks)
    Client().post("/en/subscriptions/", {"email": "late@example.com"})
    run_jobs()
    inbox.wait(1)
    link = next(u for u in links(text_of(inbox.messages[0])) if "/confirm/" in u)
    subscription = Subscription.objects.get()
    Subscription.objects.filter(pk=subscription.pk).update(
        created_at=timezone.now() - timedelta(days=8)
    )
    assert subscriptions.expire_unconfirmed() == 1
    gone = Client().get(path_of(link))
    assert gone.status_code == 404
    assert "This link is not valid any more" in gone.content.decode()
    # A link altered by one character is not valid either.
    assert Client().get(path_of(link)[:-3] + "x/").status_code == 404


def test_the_manage_page_lists_and_removes_an_addresss_digests(inbox, t0, settings):
    made = [
        Subscription.objects.create(
            email="me@example.com", lang=lang, query={}, search_key=key, confirmed_at=timezone.now()
        )
        for lang, key in (("en", "a"), ("zh", "b"), ("zht", "c"))
    ]
    Subscription.objects.create(email="other@example.com", lang="en", query={}, search_key="a")
    url = path_of(subscriptions.manage_url("me@example.com", "en"))
    client = Client()
    page = client.get(url).content.decode()
    assert page.count('name="delete" value="') == 4  # three digests and "all"
    assert "other@example.com" not in page
    client.post(url, {"delete": str(made[0].pk)})
    assert set(Subscription.objects.values_list("pk", flat=True)) == {
        made[1].pk,
        made[2].pk,
        Subscription.objects.get(email="other@example.com").pk,
    }
    client.post(url, {"delete": "all"})
    assert list(Subscription.objects.values_list("email", flat=True)) == ["other@example.com"]
    assert client.get("/en/subscriptions/manage/forged/").status_code == 404


def test_the_admin_counts_per_search_and_erases_an_address(admin_client):
    for n, (lang, key, confirmed) in enumerate(
        [("en", "market=HK", True), ("en", "market=HK", True), ("zh", "market=HK", False)]
    ):
        Subscription.objects.create(
            email=f"p{n}@example.com",
            lang=lang,
            query={"market": "HK"},
            search_key=key,
            confirmed_at=timezone.now() if confirmed else None,
        )
    Subscription.objects.create(email="P0@Example.com", lang="zht", query={}, search_key="")
    page = admin_client.get("/admin/tenders/subscription/").content.decode()
    assert "<td>market=HK</td><td>en</td><td>2</td><td>0</td>" in page
    assert "<td>market=HK</td><td>zh</td><td>0</td><td>1</td>" in page
    target = Subscription.objects.get(email="p0@example.com")
    response = admin_client.post(
        "/admin/tenders/subscription/",
        {"action": "erase_addresses", "_selected_action": [target.pk]},
    )
    assert response.status_code == 302
    assert sorted(Subscription.objects.values_list("email", flat=True)) == [
        "p1@example.com",
        "p2@example.com",
    ]


def test_a_digest_holds_at_most_50_rows_and_a_link_to_the_rest(
    inbox, t0, settings, django_capture_on_commit_callbacks
):
    settings.DIGEST_MAX_ROWS = 5
    publish(t0, 0, PREVIOUS, t0 - timedelta(days=7), django_capture_on_commit_callbacks)
    Subscription.objects.create(
        email="all@example.com",
        lang="en",
        query={},
        search_key="",
        confirmed_at=timezone.now(),
    )
    Subscription.objects.create(
        email="none@example.com",
        lang="en",
        query={"q": "zebra"},
        search_key="q=zebra",
        confirmed_at=timezone.now(),
    )
    issue = publish(t0, PREVIOUS, ADDED, t0, django_capture_on_commit_callbacks)
    run_jobs()
    inbox.wait(1)
    assert [m["To"] for m in inbox.messages] == ["all@example.com"]
    text = text_of(inbox.messages[0])
    total = selectors.list_tenders({"new": "true"})["meta"]["total"]
    assert text.count("/en/tenders/AT-TEST-") == 5
    assert f"{total - 5} more: http://testserver/en/tenders/?new=true" in text
    job = Job.objects.get(kind="digest")
    assert job.result["sent"] == 1 and job.result["empty"] == 1
    assert DigestDelivery.objects.get(
        issue=issue, subscription__email="none@example.com"
    ).state == (DigestDelivery.State.EMPTY)


def test_a_saved_search_is_described_with_the_pages_labels():
    from django.utils import translation

    from tenders.digests import describe

    query = {"market": "HK,sg", "q": "医疗 pumps", "lead_ok": "true", "closing_bucket": "all"}
    with translation.override("en"):
        assert describe(query) == (
            "Hong Kong, Singapore · “医疗 pumps” · Supplier interest accepted · any closing date"
        )
    with translation.override("zh-hant"):
        assert describe({**query, "lead_ok": "false", "value_band": "lt_500k"}) == (
            "香港, 新加坡 · “医疗 pumps” · 不接受供應商意向 · 不限截止時間 · 50 萬美元以下"
        )
    assert describe({}) == ""


def test_no_link_carries_the_address():
    subscription = Subscription.objects.create(
        email="Private.Person@example.com", lang="en", query={}, search_key=""
    )
    for url in (
        subscriptions.manage_url(subscription.email, "en"),
        subscriptions.unsubscribe_url(subscription),
        subscriptions.confirm_url(subscription),
    ):
        decoded = url
        for part in url.split("/"):
            for chunk in part.split(":"):
                with contextlib.suppress(ValueError):
                    decoded += base64.urlsafe_b64decode(chunk + "=" * (-len(chunk) % 4)).decode(
                        "latin-1"
                    )
        assert "private" not in decoded.lower(), url
    # The manage link of the same address in another letter case names the same subscriptions.
    key = subscriptions.address_of_manage(
        path_of(subscriptions.manage_url("private.person@EXAMPLE.com", "en")).split("/")[-2]
    )
    assert [s.pk for s in subscriptions.subscriptions_of(key)] == [subscription.pk]


def test_a_digest_run_stopped_by_the_mail_server_is_retried_from_the_admin(
    admin_client, settings, t0, django_capture_on_commit_callbacks
):
    from tests.smtp_support import free_port

    publish(t0, 0, PREVIOUS, t0 - timedelta(days=7), django_capture_on_commit_callbacks)
    for n in range(6):
        Subscription.objects.create(
            email=f"r{n}@example.com",
            lang="en",
            query={},
            search_key="",
            confirmed_at=timezone.now(),
        )
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()  # nothing listens
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 1
    issue = publish(t0, PREVIOUS, ADDED, t0, django_capture_on_commit_callbacks)
    run_jobs()
    job = Job.objects.get(kind="digest")
    assert job.state == "failed"
    assert "The mail server could not be reached" in job.message
    assert job.message.endswith("Retry the job once it answers.")
    assert not DigestDelivery.objects.filter(issue=issue).exists()  # no claim left behind
    with smtp_server() as inbox:
        settings.EMAIL_PORT = inbox.port
        response = admin_client.post(f"/admin/tenders/job/{job.pk}/retry/")
        assert response.status_code == 302
        run_jobs()
        inbox.wait(6)
        assert sorted(m["To"] for m in inbox.messages) == [f"r{n}@example.com" for n in range(6)]

"""End to end in a real browser: a curator fixes a leaking summary, approves, previews,
publishes (a real worker process runs the job), finds the row in the public feed, then
withdraws it; and a curator picks a concept by typing Chinese, approves and publishes, and the
row's public page names the concept in each language.

Drives the real admin on pytest-django's live server with Debian's Chromium through Playwright
(``dev.py test`` installs Chromium when it is missing; without it this test fails, it never
skips). Screenshots of the key pages go to ``test-artifacts/browser/``.

The public side is checked through the flat file of the current snapshot, which every public
surface serves from, and through the REST endpoints ``GET /api/v1/tenders`` and
``GET /api/v1/tenders/{at_id}`` whenever they are routed (they are built on the REST branch).
"""

import gzip
import json
import re
import secrets
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage
from django.urls import Resolver404, resolve
from django.utils import timezone

from tenders.models import SourceTender
from tenders.read.selectors import current_issue
from tests.factories import SourceTenderFactory
from tests.staff_support import code, enrol
from tests.worker_support import worker_process

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "browser"
LEAKING = "Supply of network switches. Contact buyer@example.gov.hk for the documents."
FIXED = "Supply of network switches and wireless access points for a public body."

pytestmark = pytest.mark.slow


def _routed(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


def _get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _flat_file_rows() -> tuple[str, set[str]]:
    issue = current_issue()
    with default_storage.open(issue.flat_file) as fh:
        document = json.loads(gzip.decompress(fh.read()))
    return issue.snapshot_etag, {row["asaptic_id"] for row in document["rows"]}


def _public_state(base_url: str, listing_id: str) -> tuple[str, bool]:
    """(snapshot etag, whether the row is public), from the flat file and, when routed, REST."""
    etag, ids = _flat_file_rows()
    listed = listing_id in ids
    if _routed("/api/v1/tenders"):
        status, body = _get(f"{base_url}/api/v1/tenders?limit=200&closing_bucket=all")
        assert status == 200, body
        assert body["meta"]["snapshot_etag"] == etag
        assert (listing_id in {row["asaptic_id"] for row in body["data"]}) == listed
        status, body = _get(f"{base_url}/api/v1/tenders/{listing_id}")
        if listed:
            assert status == 200 and body["data"]["asaptic_id"] == listing_id
            assert body["data"]["summary_en"] == FIXED
        else:
            assert status == 404 and body["error"]["code"] == "not_found", body
    return etag, listed


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_curator_fixes_approves_publishes_and_withdraws(live_server, browser_page, tmp_path):
    page = browser_page
    password = secrets.token_urlsafe(16)
    curator = get_user_model().objects.create_superuser("curator", "curator@example.org", password)
    phone = enrol(curator)  # a superuser may publish: it signs in with a second factor
    record = SourceTenderFactory(
        listing_id="AT-TEST-BR0WSERM01",
        status=SourceTender.Status.DRAFT,
        summary_en=LEAKING,
        deadline=timezone.now() + timedelta(days=20),
    )
    base = live_server.url

    # Log in.
    page.goto(f"{base}/admin/")
    page.fill("#id_username", "curator")
    page.fill("#id_password", password)
    page.fill("#id_otp_token", code(phone))
    shot(page, "01-login")
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    assert "Tender feed: staff" in page.inner_text("#site-name")
    shot(page, "02-index")

    # The draft record shows its finding.
    page.goto(f"{base}/admin/tenders/sourcetender/{record.pk}/change/")
    panel = page.locator("#gate-findings")
    assert "1 finding(s)" in panel.inner_text()
    assert "e-mail address in summary_en" in panel.inner_text()
    shot(page, "03-finding")

    # Fix it: the findings update as the curator types.
    page.fill("#id_summary_en", FIXED)
    page.wait_for_function(
        "document.getElementById('gate-findings').innerText.includes('ready to approve')"
    )
    shot(page, "04-fixed-live")

    # Save and approve.
    page.click("input[name=_approve]")
    page.wait_for_selector("ul.messagelist")
    assert "Approved 1 record(s)." in page.inner_text("ul.messagelist")
    record.refresh_from_db()
    assert (record.status, record.summary_en) == ("approved", FIXED)
    shot(page, "05-approved")
    page.goto(f"{base}/admin/tenders/sourcetender/")
    assert page.inner_text(".field-findings_badge") == "clean"
    assert page.inner_text(".field-status") == "Approved"
    shot(page, "05b-records")

    # Preview, then publish.
    page.goto(f"{base}/admin/tenders/issue/preview/")
    assert page.inner_text("#count-published") == "1"
    assert page.inner_text("#count-new") == "1"
    assert page.inner_text("#count-withheld") == "0"
    shot(page, "06-preview")
    # Publishing queues a job: the Issues page shows it waiting, then (a worker started, the
    # page refreshing itself) its outcome, with a link to the new issue.
    page.click("input[name=publish]")
    page.wait_for_selector(".job-panel")
    assert "Publication queued as job #" in page.inner_text("ul.messagelist")
    assert page.inner_text(".job-state") == "Waiting for a worker"
    assert "No worker has reported" in page.inner_text(".job-progress")
    shot(page, "07-queued")
    with worker_process(tmp_path):
        page.wait_for_selector(".job-panel[data-state=succeeded]", timeout=60_000)
    message = page.inner_text(".job-message")
    assert message.startswith("Done after ") and "Published 20" in message
    published_etag = re.search(r"etag ([0-9a-f]{32})\.", message).group(1)
    shot(page, "07-published")
    page.click(".job-subject")
    page.wait_for_selector("#content h1")
    assert published_etag in page.inner_text("#content")
    etag, listed = _public_state(base, record.listing_id)
    assert (etag, listed) == (published_etag, True)

    # Withdraw it at once.
    page.goto(f"{base}/admin/tenders/issue/withdraw/")
    page.fill("#id_listing_id", record.listing_id)
    page.fill("#id_reason", "Buyer named in an attachment")
    shot(page, "08-withdraw-form")
    page.click("input[type=submit][value='Withdraw now']")
    page.wait_for_selector("ul.messagelist")
    message = page.inner_text("ul.messagelist")
    assert f"Withdrew {record.listing_id}" in message
    shot(page, "09-withdrawn")
    etag, listed = _public_state(base, record.listing_id)
    assert listed is False and etag != published_etag
    assert etag in message
    record.refresh_from_db()
    assert record.status == "withheld"


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_curator_picks_a_concept_in_chinese_and_the_public_pages_name_it(
    live_server, browser_page, tmp_path
):
    page = browser_page
    password = secrets.token_urlsafe(16)
    curator = get_user_model().objects.create_superuser("curator", "curator@example.org", password)
    phone = enrol(curator)  # a superuser may publish: it signs in with a second factor
    record = SourceTenderFactory(
        listing_id="AT-TEST-C0NCEPT001",
        market="CA",
        status=SourceTender.Status.DRAFT,
        title="Portable Diagnostic Ultrasound (6D063-122963/A)",
        # The source title as a summary: a leak.
        summary_en="Portable Diagnostic Ultrasound (6D063-122963/A) for Kelowna",
        deadline=timezone.now() + timedelta(days=20),
    )
    base = live_server.url
    page.goto(f"{base}/admin/")
    page.fill("#id_username", "curator")
    page.fill("#id_password", password)
    page.fill("#id_otp_token", code(phone))
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")

    # The title's reference is found, and its place is not in the vocabulary.
    page.goto(f"{base}/admin/tenders/sourcetender/{record.pk}/change/")
    panel = page.inner_text("#gate-findings")
    assert "reference-number-like code" in panel
    assert "a word not in the public vocabulary in summary_en: Kelowna" in panel
    # Type Chinese, pick the concept from the suggestions.
    page.fill(".concept-search", "超声")
    option = page.locator(".concept-suggestions li[data-code='33112200']")
    option.wait_for()
    assert "Ultrasonic unit / 超声波设备 / 超聲波設備" in option.inner_text()
    shot(page, "20-concept-suggestions")
    option.click()
    assert page.input_value("input.concept-codes") == "33112200"
    assert "超声波设备" in page.inner_text(".concept-chosen")
    shot(page, "21-concept-picked")

    # Save and approve: the summaries are drafted from the concept, then approved.
    page.click("input[name=_approve]")
    page.wait_for_selector("ul.messagelist")
    messages = page.inner_text("ul.messagelist")
    assert "Summaries drafted from the concepts" in messages and "Approved 1 record(s)." in messages
    record.refresh_from_db()
    assert record.status == "approved" and record.concepts == ["33112200"]
    assert record.category.slug == "medical-supplies"  # the category follows the concept
    assert record.summary_en == "Ultrasonic unit. Supplies for a public buyer in Canada."
    shot(page, "22-approved")

    # Publish from the Issues page; a worker process runs the job.
    page.goto(f"{base}/admin/tenders/issue/preview/")
    page.click("input[name=publish]")
    page.wait_for_selector(".job-panel")
    with worker_process(tmp_path):
        page.wait_for_selector(".job-panel[data-state=succeeded]", timeout=60_000)
    assert ": 1 rows (1 new," in page.inner_text(".job-message")

    # The row's public page names the concept in each language; nothing of the title.
    for prefix, label in (
        ("en", "Ultrasonic unit"),
        ("zh-hans", "超声波设备"),
        ("zh-hant", "超聲波設備"),
    ):
        page.goto(f"{base}/{prefix}/tenders/{record.listing_id}/")
        text = page.inner_text("body")
        assert label in text, (prefix, text)
        assert "6D063" not in text and "Portable" not in text and "Kelowna" not in text
        shot(page, f"23-row-{prefix}")

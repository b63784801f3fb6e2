"""A curator's Monday in a real browser (Chromium), with the shared samples: import the
Canadian notices as a file and the GB folder as a zip, review the list with the public text,
filter "has findings", approve every clean record through the confirmation page (as a job),
preview with the reasons records are left out, publish, and open the issue's page. A real
worker runs every job; while each runs, the page is watched and must never show the red
"worker stopped" warning. Screenshots go to ``test-artifacts/browser/monday-*.png`` and are
the pictures of docs/staff-monday.md."""

import re
import secrets
import time
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from tenders.models import ImportRun, Issue, SourceTender
from tests.factories import SourceTenderFactory
from tests.test_browser import ARTIFACTS
from tests.worker_support import worker_process

SAMPLES = Path("/work/shared/data/ocds")
CA_FILE = SAMPLES / "ca-buyandsell-tenders-2014" / "tenders_releases.json.gz"
GB_FOLDER = SAMPLES / "gb-contracts-finder"

pytestmark = pytest.mark.slow


def shot(page, name: str) -> None:
    """The screen as the curator sees it (the viewport, not the whole long list)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _watch_job(page, name: str, timeout: float = 240) -> list[str]:
    """Wait for the page's job panel to finish, reloading as the page itself does; fail if
    the red warning shows at any moment. The states seen, in order."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    shot_running = False
    while True:
        panel = page.locator(".job-panel").first
        state = panel.get_attribute("data-state")
        label = page.inner_text(".job-panel .job-state")
        if not seen or seen[-1] != label:
            seen.append(label)
        assert page.locator(".job-panel .job-stopped").count() == 0, f"false alarm in {name}"
        assert "No sign of life" not in page.inner_text(".job-panel")
        if state == "running" and not shot_running:
            shot(page, f"monday-{name}-running")
            shot_running = True
        if state in ("succeeded", "failed"):
            assert state == "succeeded", page.inner_text(".job-panel")
            return seen
        assert time.monotonic() < deadline, f"{name} still {state}"
        time.sleep(0.3)
        page.reload()


def _gb_zip(into: Path) -> Path:
    path = into / "gb-contracts-finder.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(GB_FOLDER.glob("*.json")):
            archive.write(file, f"gb-contracts-finder/{file.name}")
    return path


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_curators_monday(live_server, browser_page, tmp_path):
    assert CA_FILE.exists() and GB_FOLDER.is_dir(), "the shared samples are missing"
    page = browser_page
    password = secrets.token_urlsafe(16)
    get_user_model().objects.create_superuser("curator", "curator@example.org", password)
    # The week's own records: still open, so the issue has rows (every sample closed years ago).
    soon = timezone.now() + timedelta(days=9)
    for n in range(3):
        SourceTenderFactory(status="draft", title=f"Open notice {n}", deadline=soon)
    # And one a person wrote with the buyer's e-mail in it: the gate finds it.
    SourceTenderFactory(
        status="draft",
        title="Leaking notice",
        deadline=soon,
        summary_en="Supply of network switches. Write to buyer@example.gov.hk for details.",
    )
    base = live_server.url
    page.goto(f"{base}/admin/login/?next=/admin/tenders/importrun/")
    page.fill("#id_username", "curator")
    page.fill("#id_password", password)
    page.click("input[type=submit]")

    with worker_process(tmp_path) as worker:
        # 1. The Canadian sample as one file.
        page.click("text=Import a file")
        page.select_option("#id_format", "ocds")
        page.select_option("#id_market", "CA")
        page.set_input_files("#id_file", str(CA_FILE))
        shot(page, "monday-01-upload")
        page.click("input[type=submit][value=Import]")
        page.wait_for_selector(".job-panel")
        seen = _watch_job(page, "ca-import")
        assert seen[-1] == "Succeeded" and "Waiting for a worker" not in seen[1:]
        assert "Imported upload tenders_releases.json.gz: 5513 read" in page.inner_text(
            ".job-message"
        )
        shot(page, "monday-02-ca-imported")

        # 2. The GB folder as a zip: one run, counts for each of its 21 files.
        page.click("text=Import a file")
        page.select_option("#id_format", "ocds")
        page.select_option("#id_market", "GB")
        page.set_input_files("#id_file", str(_gb_zip(tmp_path)))
        page.click("input[type=submit][value=Import]")
        page.wait_for_selector(".job-panel")
        _watch_job(page, "gb-import")
        assert "Imported upload gb-contracts-finder.zip: 21 read" in page.inner_text(".job-message")
        page.click(".job-subject")
        page.wait_for_selector("table.import-files")
        assert page.locator("table.import-files tbody tr").count() == 21
        page.evaluate("document.querySelector('table.import-files').scrollIntoView()")
        shot(page, "monday-03-gb-run-per-file")

        # 3. The list: the public text beside a short private title, a findings badge.
        page.goto(f"{base}/admin/tenders/sourcetender/")
        assert page.locator(".public-text").count() > 0
        assert page.locator(".findings-badge").count() > 0
        shot(page, "monday-04-list-public-text")

        # 4. Has findings.
        started = time.perf_counter()
        page.click("#changelist-filter a:text('Has findings')")
        page.wait_for_selector("#changelist")
        print(f"\nHas findings over {SourceTender.objects.count():,} records: "
              f"{time.perf_counter() - started:.2f} s")  # fmt: skip
        assert "findings=yes" in page.url
        with_findings = SourceTender.objects.filter(findings__gt=0).count()
        assert with_findings > 0
        assert page.locator(".findings-badge.has-findings").count() == min(with_findings, 50)
        assert page.locator(".findings-badge.clean").count() == 0
        shot(page, "monday-05-has-findings")

        # 5. Approve every clean draft: select across, confirm, a job does it.
        page.goto(f"{base}/admin/tenders/sourcetender/?findings=no&status__exact=draft")
        clean = SourceTender.objects.filter(status="draft", findings=0).count()
        page.check("#action-toggle")
        page.click("span.question a")  # "Select all N source tenders"
        page.select_option("select[name=action]", "approve_records")
        page.click("button[name=index]")
        page.wait_for_selector("#bulk-confirm")
        assert page.inner_text("#bulk-count") == str(clean)
        assert "a worker does it as a job" in page.inner_text("#bulk-as-job")
        assert page.locator("#bulk-rows tbody tr").count() == 10
        # Every sample closed years ago: the page says so before anything is approved.
        assert "closed over 28 days ago: approved, they are still left out" in page.inner_text(
            "#bulk-out-of-feed"
        )
        shot(page, "monday-06-confirm-approval")
        page.click("#bulk-confirm-button")
        page.wait_for_selector(".job-panel")
        assert f"Approve {clean:,} records queued as job #" in page.inner_text("ul.messagelist")
        _watch_job(page, "approve")
        assert page.inner_text(".job-message").startswith("Done after ")
        assert f"Approved {clean} record(s)." in page.inner_text(".job-message")
        shot(page, "monday-07-approved")
        assert SourceTender.objects.filter(status="approved").count() == clean

        # 6. Preview: what is left out, and why, with links to those records.
        page.goto(f"{base}/admin/tenders/issue/preview/")
        excluded = page.inner_text("#excluded")
        assert re.search(r"Deadline passed over 28 days ago \(approved\)\s+\d+", excluded)
        assert page.inner_text("#count-published") == "3"
        shot(page, "monday-08-preview")
        page.click("#excluded a >> nth=0")
        page.wait_for_selector("#result_list")
        assert "closes=out" in page.url
        shot(page, "monday-09-left-out-records")

        # 7. Publish, then the issue's page.
        page.goto(f"{base}/admin/tenders/issue/preview/")
        page.click("input[name=publish]")
        page.wait_for_selector(".job-panel")
        _watch_job(page, "publish")
        shot(page, "monday-10-published")
        page.click(".job-subject")
        page.wait_for_selector("#issue-report")
        issue = Issue.objects.get(is_current=True)
        assert page.inner_text("#issue-rows") == "3"
        assert "Hong Kong" in page.inner_text("#issue-markets")
        assert page.locator("#issue-public").count() == 1
        shot(page, "monday-11-issue")
        assert worker.poll() is None
    assert issue.rows_total == 3
    assert ImportRun.objects.count() == 2

"""In a real browser: a curator uploads the HK GLD file, reads the run, opens an imported
record. Debian's Chromium through Playwright (the ``browser_page`` fixture of conftest.py);
screenshots go to ``test-artifacts/browser/``."""

import secrets
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from tenders.models import ImportedNotice, ImportRun
from tests.test_browser import shot
from tests.worker_support import worker_process

HK_FILE = Path(__file__).resolve().parent / "data" / "gld" / "TenderNotice.xml"

pytestmark = pytest.mark.slow


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_curator_uploads_a_file_and_reads_the_run(live_server, browser_page, tmp_path):
    page = browser_page
    password = secrets.token_urlsafe(16)
    get_user_model().objects.create_superuser("importer", "importer@example.org", password)
    base = live_server.url
    page.goto(f"{base}/admin/login/?next=/admin/tenders/importrun/")
    page.fill("#id_username", "importer")
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.click("text=Import a file")
    page.select_option("#id_format", "gld")
    page.set_input_files("#id_file", str(HK_FILE))
    shot(page, "import-01-upload")
    page.click("input[type=submit][value=Import]")
    # The upload is queued (a large file would outlast the request); the runs page follows it.
    page.wait_for_selector(".job-panel")
    assert page.url == f"{base}/admin/tenders/importrun/"
    assert "Queued Import upload TenderNotice.xml as job #" in page.inner_text("ul.messagelist")
    assert page.inner_text(".job-state") == "Waiting for a worker"
    with worker_process(tmp_path):
        page.wait_for_selector(".job-panel[data-state=succeeded]", timeout=60_000)
    assert page.inner_text(".job-message").endswith(
        "Imported upload TenderNotice.xml: 3 read: 3 created, 0 updated, 0 unchanged, "
        "0 closed at source, 0 failed."
    )
    shot(page, "import-02-done")
    run = ImportRun.objects.get()
    page.click(".job-subject")
    page.wait_for_selector(".field-created .readonly")
    assert page.url == f"{base}/admin/tenders/importrun/{run.pk}/change/"
    assert page.inner_text(".field-created .readonly") == "3"
    assert page.inner_text(".field-location .readonly") == "upload TenderNotice.xml"
    shot(page, "import-02-run")

    cleaning = ImportedNotice.objects.get(notice_id="FEHD/T/2026/0042").tender
    page.goto(f"{base}/admin/tenders/sourcetender/{cleaning.pk}/change/")
    imported = page.inner_text(".field-imported_from .readonly")
    assert imported.startswith(
        f"GLD notice FEHD/T/2026/0042, state at source: active (last import: run {run.pk})"
    )
    assert "the closing date was revised" in imported
    assert "ready to approve" in page.inner_text("#gate-findings")
    shot(page, "import-03-record")

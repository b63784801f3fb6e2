from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.db import connections

# A fixed publication clock: Monday 2026-11-23 06:00 UTC is in ISO week 2026-W48.
T0 = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Flat files and other stored media go to a per-test folder."""
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _fresh_process_caches():
    """Each test starts as a new server process would: nothing answered or read yet (the
    shared tier of the answer cache lives in the test's database, or a test's own Redis)."""
    from tenders.read import answers, current

    answers.reset()
    current.forget()
    yield
    answers.reset()
    current.forget()


@pytest.fixture
def t0():
    return T0


@pytest.fixture
def admin_client(db, admin_user):
    """pytest-django's superuser client, signed in with the second factor its permissions
    require (core.signin), as the login form would leave it."""
    from django.test import Client

    from tests.staff_support import sign_in

    return sign_in(Client(), admin_user)


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@pytest.fixture
def browser_page(monkeypatch):
    """A page in Debian's headless Chromium driven by Playwright (never a downloaded browser;
    ``dev.py test`` installs Chromium when it is missing, and without it the test fails)."""
    assert CHROMIUM.exists(), (
        f"{CHROMIUM} is missing: install Debian's Chromium (apt-get install chromium); "
        "`python3 dev.py test` does it when run as root."
    )
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls the test makes
    # between browser steps are still plain synchronous calls.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    # The live server's request threads must not keep database connections open after each
    # request, or the test database cannot be dropped at the end of the run.
    monkeypatch.setitem(connections["default"].settings_dict, "CONN_MAX_AGE", 0)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(20_000)
        try:
            yield page
        finally:
            browser.close()
            # ORM calls made while Playwright's loop runs get their own connection objects
            # (asgiref's context-local storage): close them here, or they outlive the run.
            connections.close_all()


def add_vocabulary_words(texts) -> list[str]:
    """Add to the public vocabulary every word of ``texts`` ((lang, text) pairs) that it lacks,
    as a second person with the permission would (allowances of kind ``out_of_vocabulary`` for
    every record): for tests about the gate's detectors, whose summaries are free text."""
    from tenders.models import GateAllowance
    from tenders.vocabulary.coverage import vocabulary

    checked = vocabulary()
    words = sorted({w for lang, text in texts for w in checked.unknown(text, lang)})
    GateAllowance.objects.bulk_create(
        [GateAllowance(kind="out_of_vocabulary", phrase=w, reason="test words") for w in words],
        ignore_conflicts=True,
    )
    from tenders.sanitize.loading import forget_gate

    forget_gate()  # bulk_create sends no signal: the cached gate must not outlive the words
    return words

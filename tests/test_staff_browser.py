"""In a real browser: a superuser made without a second factor (as `dev.py run` makes one)
mistypes the password, is told to wait, signs in, must enrol an authenticator app (the key
read off the page, the code computed as a phone would), gets recovery codes, reaches the
admin, and finds every step in the sign-in log. Debian's Chromium through Playwright;
screenshots go to ``test-artifacts/browser/``."""

import secrets
import time
from base64 import b32decode

import pytest
from django.contrib.auth import get_user_model
from django_otp.oath import totp

from core.forms import INVALID
from tests.test_browser import shot

pytestmark = pytest.mark.slow


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_superuser_is_slowed_then_enrols_a_second_factor_in_the_browser(
    live_server, browser_page, settings
):
    settings.STAFF_SIGN_IN_LIMITS = {**settings.STAFF_SIGN_IN_LIMITS, "delay_after": 1}
    page = browser_page
    password = secrets.token_urlsafe(16)
    get_user_model().objects.create_superuser("boss", "boss@example.org", password)
    base = live_server.url

    page.goto(f"{base}/admin/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "not the password")
    page.click("input[type=submit]")
    assert page.inner_text(".errornote") == INVALID
    # At once again: refused with the waiting time, whatever the password.
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    assert page.inner_text(".errornote") == (
        "Too many failed sign-ins. Wait 1 second before trying again."
    )
    shot(page, "staff-01-wait")
    time.sleep(1.1)
    page.fill("#id_password", password)
    page.click("input[type=submit]")

    # Signed in with the password alone: only the enrolment page is open.
    page.wait_for_selector("#enrol-form")
    assert page.url == f"{base}/admin/second-factor/"
    assert "needs a second factor before anything else" in page.inner_text("ul.messagelist")
    assert page.locator("#enrol-qr svg").count() == 1
    shot(page, "staff-02-enrol")
    page.goto(f"{base}/admin/tenders/issue/")
    assert page.url == f"{base}/admin/second-factor/"

    key = b32decode(page.inner_text("#enrol-secret"))
    page.fill("#id_otp_token", f"{totp(key):06d}")
    page.click("#enrol-form input[type=submit]")
    page.wait_for_selector("#recovery-codes")
    assert page.locator("#recovery-codes li").count() == 10
    shot(page, "staff-03-codes")
    page.click("text=Continue to the admin")
    page.wait_for_selector("#site-name")
    assert page.url == f"{base}/admin/"

    page.goto(f"{base}/admin/core/signinevent/")
    log = page.inner_text("#result_list")
    for kind in ("failed", "refused (waiting or locked)", "signed in", "second factor enrolled"):
        assert kind in log
    shot(page, "staff-04-log")

"""Staff accounts through the real login form (Django's test client): failed sign-ins wait and
then lock, with one message whether the account exists or not; a second factor for accounts
that can publish; sessions that end; re-authentication before publishing and withdrawing; the
sign-in log; where the admin lives. The lock shared by two server processes is in
test_staff_lock_processes.py, the browser in test_staff_browser.py."""

import os
import socket
import subprocess
import sys
import time
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from core import signin, throttle
from core.forms import INVALID, UNAVAILABLE
from core.models import SignInEvent
from tenders.models import Job
from tests.staff_support import code, enrol, sign_in

ROOT = Path(__file__).resolve().parent.parent
LOGIN = "/admin/login/"
PASSWORD = "correct horse battery"

pytestmark = pytest.mark.django_db


@pytest.fixture
def publisher(django_user_model):
    """A staff member who may publish and withdraw (not a superuser)."""
    user = django_user_model.objects.create_user(
        "publisher", "publisher@example.org", PASSWORD, is_staff=True
    )
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["add_issue", "view_issue", "view_sourcetender"])
    )
    return user


def log_in(client, username, password=PASSWORD, otp_token="", next_="/admin/"):
    return client.post(
        LOGIN,
        {"username": username, "password": password, "otp_token": otp_token, "next": next_},
    )


def errors(response) -> list[str]:
    return list(response.context["form"].non_field_errors())


def kinds(username: str) -> list[str]:
    return list(
        SignInEvent.objects.filter(username=username).order_by("pk").values_list("kind", flat=True)
    )


# --- the schedule, as plain functions --------------------------------------------------------


def test_each_failure_past_the_first_few_waits_twice_as_long_then_the_account_locks():
    limits = throttle.Limits(
        delay_after=3, first_delay=1, max_delay=8, lock_after=7, lock_seconds=60
    )
    count, now, waits = throttle.Count(), 1000.0, []
    for _ in range(7):
        count = throttle.after_failure(count, limits, now)
        waits.append(throttle.wait_for(count, limits, now))
    assert waits == [0, 0, 1, 2, 4, 8, 60]  # the 7th failure locks for 60 s
    assert throttle.wait_for(count, limits, now + 59.5) == 0.5
    assert throttle.wait_for(count, limits, now + 60) == 0
    # After the lock lifts, counting starts again.
    assert throttle.after_failure(count, limits, now + 61).failures == 1
    assert limits.for_address().lock_after == 21


# --- through the login form ------------------------------------------------------------------


def test_failures_wait_then_lock_the_right_password_is_refused_and_the_lock_lifts(
    client, settings, publisher, mailoutbox
):
    settings.STAFF_SIGN_IN_LIMITS = {
        **settings.STAFF_SIGN_IN_LIMITS,
        "delay_after": 2,
        "first_delay": 1.0,
        "lock_after": 3,
        "lock_seconds": 2.0,
    }
    device = enrol(publisher)
    for _ in range(2):
        assert errors(log_in(client, "publisher", "wrong guess")) == [INVALID]
    # The third attempt, at once: refused with the wait, its password never checked.
    assert errors(log_in(client, "publisher", PASSWORD, code(device))) == [
        "Too many failed sign-ins. Wait 1 second before trying again."
    ]
    time.sleep(1.1)
    [locked] = errors(log_in(client, "publisher", "wrong again"))
    assert locked.startswith("Too many failed sign-ins: signing in is locked")
    assert "Try again in 2 seconds" in locked
    # The right password and code during the lock: refused, not signed in.
    refused = log_in(client, "publisher", PASSWORD, code(device))
    assert refused.status_code == 200 and errors(refused)[0].startswith("Too many failed")
    assert "_auth_user_id" not in client.session
    # The account is told by e-mail, once.
    [mail] = mailoutbox
    assert mail.to == ["publisher@example.org"] and mail.subject == "Staff account locked"
    assert "locked after repeated failed sign-ins" in mail.body and "127.0.0.1" in mail.body
    time.sleep(2.1)
    done = log_in(client, "publisher", PASSWORD, code(device))
    assert done.status_code == 302 and done["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200
    assert kinds("publisher") == [
        "failed",
        "failed",
        "refused",
        "failed",
        "locked",
        "refused",
        "signed_in",
    ]
    event = SignInEvent.objects.filter(username="publisher", kind="locked").get()
    assert (event.address, event.user) == ("127.0.0.1", publisher)


def test_a_mail_server_that_is_down_does_not_break_the_lockout(client, settings, publisher, caplog):
    settings.STAFF_SIGN_IN_LIMITS = {**settings.STAFF_SIGN_IN_LIMITS, "lock_after": 1}
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    with socket.socket() as unused:  # bound, never listening: connections are refused
        unused.bind(("127.0.0.1", 0))
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", unused.getsockname()[1]
        settings.EMAIL_USE_TLS = False
        [locked] = errors(log_in(client, "publisher", "wrong guess"))
    assert "signing in is locked" in locked
    assert "could not send the lockout e-mail to publisher" in caplog.text
    assert kinds("publisher") == ["failed", "locked"]


def test_without_its_shared_cache_sign_in_is_refused_with_a_clear_message(
    client, settings, publisher, caplog
):
    with socket.socket() as unused:  # a Redis that does not answer
        unused.bind(("127.0.0.1", 0))
        settings.CACHES = {
            **settings.CACHES,
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": f"redis://127.0.0.1:{unused.getsockname()[1]}/0",
                "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
            },
        }
        response = log_in(client, "publisher")
    assert response.status_code == 200 and errors(response) == [UNAVAILABLE]
    assert "_auth_user_id" not in client.session
    assert "the shared cache does not answer" in caplog.text
    assert list(SignInEvent.objects.values_list("kind", "detail")) == [("refused", "no cache")]


def test_a_lock_can_be_lifted_at_once_from_the_command_line(client, settings, publisher):
    settings.STAFF_SIGN_IN_LIMITS = {**settings.STAFF_SIGN_IN_LIMITS, "lock_after": 1}
    [locked] = errors(log_in(client, "publisher", "wrong guess"))
    assert "locked" in locked and "locked" in errors(log_in(client, "publisher"))[0]
    out = StringIO()
    call_command("unlock_staff", "publisher", stdout=out)
    assert out.getvalue() == "publisher: failed sign-ins forgotten, no lock.\n"
    assert log_in(client, "publisher").status_code == 302


def test_the_message_is_the_same_whether_the_account_exists_or_not(client, settings, publisher):
    settings.STAFF_SIGN_IN_LIMITS = {**settings.STAFF_SIGN_IN_LIMITS, "delay_after": 1}
    for name in ("publisher", "nobody-here"):
        assert errors(log_in(client, name, "wrong guess")) == [INVALID]
        assert errors(log_in(client, name, "wrong guess")) == [
            "Too many failed sign-ins. Wait 1 second before trying again."
        ]
    # The address has its own count, three times as long: other accounts still sign in.
    assert kinds("nobody-here") == ["failed", "refused"]
    assert SignInEvent.objects.get(username="nobody-here", kind="failed").user is None


def test_hostile_values_in_the_login_form_get_the_form_again_never_a_500(client, publisher):
    enrol(publisher)
    for data in (
        {"username": "pub\x00lisher", "password": PASSWORD},
        {"username": "x" * 10_000, "password": PASSWORD},
        {"username": "publisher", "password": PASSWORD, "otp_token": "' OR 1=1 --"},
        {"username": "publisher", "password": PASSWORD, "otp_token": "\x00" * 6},
        {"username": "publisher", "password": PASSWORD, "otp_token": "9" * 5000},
        {"username": ["a", "b"], "password": "p" * 100_000},
    ):
        response = client.post(LOGIN, data)
        assert response.status_code == 200, data
        assert "_auth_user_id" not in client.session


def test_an_address_guessing_many_accounts_is_slowed_too(client, settings, publisher):
    settings.STAFF_SIGN_IN_LIMITS = {**settings.STAFF_SIGN_IN_LIMITS, "delay_after": 1}
    for n in range(3):  # one failure each for three names: three for the address
        assert errors(log_in(client, f"name{n}", "wrong guess")) == [INVALID]
    assert errors(log_in(client, "publisher", PASSWORD)) == [
        "Too many failed sign-ins. Wait 1 second before trying again."
    ]


# --- the second factor -----------------------------------------------------------------------


def test_a_publisher_cannot_publish_without_a_second_factor_then_enrols(client, publisher):
    signed_in = log_in(client, "publisher")  # no device yet: password alone signs in ...
    assert signed_in.status_code == 302
    # ... to the enrolment page only.
    for url in ("/admin/", "/admin/tenders/issue/", "/admin/tenders/issue/withdraw/"):
        response = client.get(url)
        assert (response.status_code, response["Location"]) == (302, "/admin/second-factor/")
    refused = client.post(reverse("admin:tenders_issue_publish"))
    assert refused["Location"] == "/admin/second-factor/"
    assert not Job.objects.exists()

    page = client.get("/admin/second-factor/")
    assert page.status_code == 200 and "<svg" in page.content.decode()
    device = TOTPDevice.objects.get(user=publisher, confirmed=False)
    assert page.context["secret"]  # the key to type when the code cannot be scanned
    wrong = client.post("/admin/second-factor/", {"otp_token": "000000"})
    assert "That code does not match" in wrong.content.decode()
    too_soon = client.post("/admin/second-factor/", {"otp_token": code(device)})
    assert "Too many wrong codes: wait 1 second" in too_soon.content.decode()
    time.sleep(1.1)  # django-otp's own throttle on each device doubles from 1 s
    done = client.post("/admin/second-factor/", {"otp_token": code(device)})
    codes = done.context["codes"]
    assert len(codes) == 10 and len(set(codes)) == 10
    device.refresh_from_db()
    assert device.confirmed
    assert kinds("publisher") == ["signed_in", "enrolled"]

    published = client.post(reverse("admin:tenders_issue_publish"))
    assert published["Location"] == reverse("admin:tenders_issue_changelist")
    assert Job.objects.filter(kind="publish").count() == 1

    # From now on the code is asked at sign-in; a recovery code works once instead.
    client.logout()
    assert errors(log_in(client, "publisher")) == [INVALID]
    assert errors(log_in(client, "publisher", otp_token="123456")) == [INVALID]
    assert log_in(client, "publisher", otp_token=codes[0]).status_code == 302
    assert client.get("/admin/").status_code == 200
    client.logout()
    assert errors(log_in(client, "publisher", otp_token=codes[0])) == [INVALID]
    assert StaticToken.objects.filter(device__user=publisher).count() == 9
    time.sleep(1.1)  # the app's device still counts the wrong "123456" for a second
    assert log_in(client, "publisher", otp_token=code(device, ahead=1)).status_code == 302
    details = SignInEvent.objects.filter(username="publisher").order_by("pk")
    assert list(details.values_list("kind", "detail"))[-5:] == [
        ("failed", "code missing"),
        ("failed", "wrong code"),
        ("signed_in", "password and code"),
        ("failed", "wrong code"),
        ("signed_in", "password and code"),
    ]


def test_staff_without_sensitive_permissions_need_no_second_factor_unless_set(
    client, settings, django_user_model
):
    reader = django_user_model.objects.create_user("reader", password=PASSWORD, is_staff=True)
    reader.user_permissions.add(Permission.objects.get(codename="view_issue"))
    assert log_in(client, "reader").status_code == 302
    assert client.get("/admin/tenders/issue/").status_code == 200
    # The optional enrolment is one link away.
    assert 'href="/admin/second-factor/"' in client.get("/admin/").content.decode()
    settings.STAFF_SECOND_FACTOR_FOR_ALL = True
    assert client.get("/admin/tenders/issue/")["Location"] == "/admin/second-factor/"


def test_a_superuser_without_a_device_signs_in_and_enrols_from_the_admin(client):
    # As `dev.py run` makes it from DJANGO_SUPERUSER_*: a password, no device.
    get_user_model().objects.create_superuser("boss", "", PASSWORD)
    assert log_in(client, "boss").status_code == 302
    assert client.get("/admin/")["Location"] == "/admin/second-factor/"
    client.get("/admin/second-factor/")
    device = TOTPDevice.objects.get(user__username="boss")
    assert "codes" in client.post("/admin/second-factor/", {"otp_token": code(device)}).context
    assert client.get("/admin/").status_code == 200


# --- sessions and re-authentication ----------------------------------------------------------


def test_a_session_older_than_its_limit_signs_in_again(client, settings, publisher):
    sign_in(client, publisher)
    assert client.get("/admin/").status_code == 200
    session = client.session
    session[signin.SIGNED_IN_AT] = time.time() - settings.STAFF_SESSION_SECONDS - 1
    session.save()
    response = client.get("/admin/tenders/issue/")
    assert response.status_code == 302
    assert response["Location"] == "/admin/login/?next=%2Fadmin%2Ftenders%2Fissue%2F"
    assert "_auth_user_id" not in client.session
    assert client.get("/admin/").status_code == 302
    assert kinds("publisher")[-1] == "expired"
    assert settings.SESSION_EXPIRE_AT_BROWSER_CLOSE and settings.SESSION_COOKIE_AGE == 8 * 3600


def test_publishing_and_withdrawing_ask_for_the_password_again_after_a_while(
    client, settings, publisher
):
    sign_in(client, publisher)
    device = enrol(publisher)
    session = client.session
    session[signin.AUTHENTICATED_AT] = time.time() - settings.STAFF_REAUTH_SECONDS - 1
    session.save()
    again = client.post(reverse("admin:tenders_issue_publish"))
    assert (
        again["Location"] == "/admin/reauthenticate/?next=%2Fadmin%2Ftenders%2Fissue%2Fpreview%2F"
    )
    assert not Job.objects.exists()
    withdraw = client.get("/admin/tenders/issue/withdraw/?id=AT-1")
    assert withdraw["Location"] == (
        "/admin/reauthenticate/?next=%2Fadmin%2Ftenders%2Fissue%2Fwithdraw%2F%3Fid%3DAT-1"
    )
    page = client.get(withdraw["Location"])
    assert (
        "Confirm it is you" in page.content.decode() and "otp_token" in page.context["form"].fields
    )
    wrong = client.post(
        "/admin/reauthenticate/", {"password": "nope", "otp_token": code(device), "next": "/x"}
    )
    assert wrong.context["form"].non_field_errors() == [INVALID]
    ok = client.post(
        "/admin/reauthenticate/",
        {
            "password": PASSWORD,
            "otp_token": code(device),
            "next": "/admin/tenders/issue/withdraw/?id=AT-1",
        },
    )
    assert ok["Location"] == "/admin/tenders/issue/withdraw/?id=AT-1"
    assert client.get(ok["Location"]).status_code == 200
    assert client.post(reverse("admin:tenders_issue_publish"))["Location"] == (
        reverse("admin:tenders_issue_changelist")
    )
    assert Job.objects.filter(kind="publish").count() == 1
    assert kinds("publisher")[-2:] == ["failed", "reauthenticated"]
    # Somewhere else is never a place to return to.
    session = client.session
    session[signin.AUTHENTICATED_AT] = 0
    session.save()
    away = client.post(
        "/admin/reauthenticate/",
        {"password": PASSWORD, "otp_token": code(device, ahead=1), "next": "https://evil.example/"},
    )
    assert away["Location"] == "/admin/"


def test_allowing_for_every_record_asks_for_the_password_again(admin_client, settings):
    session = admin_client.session
    session[signin.AUTHENTICATED_AT] = time.time() - settings.STAFF_REAUTH_SECONDS - 1
    session.save()
    response = admin_client.get("/admin/tenders/gateallowance/add/")
    assert response["Location"].startswith("/admin/reauthenticate/?next=")


def test_passwords_need_twelve_characters(publisher):
    with pytest.raises(ValidationError, match="at least 12 characters"):
        password_validation.validate_password("Xq7!mZ2#pL9", publisher)
    password_validation.validate_password("Xq7!mZ2#pL9w", publisher)


# --- the log, and where the admin lives ------------------------------------------------------


def test_the_sign_in_log_is_shown_to_staff_and_never_edited(client, admin_client, publisher):
    log_in(client, "publisher", "wrong guess")
    page = admin_client.get("/admin/core/signinevent/").content.decode()
    assert "publisher" in page and "wrong username or password" in page and "127.0.0.1" in page
    event = SignInEvent.objects.get(username="publisher")
    assert admin_client.get(f"/admin/core/signinevent/{event.pk}/change/").status_code == 200
    assert admin_client.get("/admin/core/signinevent/add/").status_code == 403
    assert admin_client.post(f"/admin/core/signinevent/{event.pk}/delete/").status_code == 403


def test_the_log_keeps_a_year(settings):
    SignInEvent.objects.bulk_create(
        [SignInEvent(kind="failed", username=n) for n in ("old", "recent")]
    )
    SignInEvent.objects.filter(username="old").update(
        at=timezone.now() - timedelta(days=settings.STAFF_SIGN_IN_LOG_DAYS, minutes=1)
    )
    call_command("run_schedules", verbosity=0)
    assert list(SignInEvent.objects.values_list("username", flat=True)) == ["recent"]


def test_robots_txt_keeps_crawlers_off_the_admin_and_admin_pages_say_noindex(client):
    response = client.get("/robots.txt")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    assert response.content.decode() == "User-agent: *\nDisallow: /admin/\n"
    assert client.get(LOGIN)["X-Robots-Tag"] == "noindex, nofollow"


def test_the_admin_answers_only_on_its_host_when_one_is_set(client, settings):
    settings.ALLOWED_HOSTS = ["testserver", "staff.example.org"]
    settings.STAFF_ADMIN_HOST = "staff.example.org"
    assert client.get(LOGIN).status_code == 404
    assert client.get(LOGIN, HTTP_HOST="staff.example.org").status_code == 200
    assert client.get("/robots.txt").status_code == 200


def test_the_admin_path_is_a_setting_and_is_not_published_in_robots_txt(tmp_path):
    script = (
        "from django.urls import reverse; from django.test import Client; "
        "print(reverse('admin:login')); print(Client().get('/robots.txt').content.decode())"
    )
    env = {
        **os.environ,
        "STAFF_ADMIN_PATH": "/back-office-7f3/",
        "TENDERS_VAR_DIR": str(tmp_path),
        "ALLOWED_HOSTS": "testserver",
    }
    result = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "shell", "--no-imports", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout == "/back-office-7f3/login/\nUser-agent: *\nDisallow:\n\n"
    env["STAFF_ADMIN_PATH"] = "../etc"
    bad = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0 and "STAFF_ADMIN_PATH must be" in bad.stderr

"""The sign-in lock is shared by every server process: two gunicorn servers on the test
database (whose cache table is the shared cache when REDIS_URL is unset; and with Redis),
failures spread over both, the lock then refusing the right password on both and lifting after
its time, the lockout e-mail through a real SMTP server; and simultaneous guesses."""

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
import redis
from django.contrib.auth import get_user_model

from core.models import SignInEvent
from tests.api.test_answers import redis_server  # noqa: F401 (a fixture)
from tests.smtp_support import smtp_server
from tests.worker_support import worker_database_url

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery"
LOCK_SECONDS = 4

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def gunicorn(tmp_path: Path, name: str, workers: int = 1, redis_url: str = "", smtp_port=0):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update(
        DATABASE_URL=worker_database_url(),
        TENDERS_VAR_DIR=str(tmp_path),
        DJANGO_DEBUG="0",
        BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY=str(workers),
        STAFF_SIGN_IN_DELAY_AFTER="10",  # no waits before the lock: this test is about the lock
        STAFF_SIGN_IN_LOCK_AFTER="3",
        STAFF_SIGN_IN_LOCK_SECONDS=str(LOCK_SECONDS),
    )
    env.pop("EMAIL_BACKEND", None)
    if smtp_port:  # the lockout e-mail goes to the test's SMTP server
        env.update(EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(smtp_port), EMAIL_USE_TLS="0")
    else:
        env.pop("EMAIL_HOST", None)
    log_path = tmp_path / f"{name}.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("gunicorn")),
                "-c",
                "config/gunicorn.conf.py",
                "config.wsgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(f"{base}/healthz", timeout=5):
                        break
                except urllib.error.HTTPError:
                    break  # answering
                except OSError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail(f"gunicorn {name} did not start:\n" + log_path.read_text())
                time.sleep(0.3)
            server.base, server.log_path = base, log_path
            yield server
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    """One person's cookies (the CSRF cookie works on both servers: one SECRET_KEY)."""

    def __init__(self):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect
        )

    def sign_in(self, base: str, username: str, password: str, barrier=None) -> tuple[int, str]:
        with self.opener.open(f"{base}/admin/login/", timeout=30) as page:
            html = page.read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
        if barrier is not None:
            barrier.wait(timeout=60)  # every guess leaves at once
        body = urllib.parse.urlencode(
            {
                "csrfmiddlewaretoken": token,
                "username": username,
                "password": password,
                "otp_token": "",
                "next": "/admin/",
            }
        ).encode()
        try:
            with self.opener.open(f"{base}/admin/login/", data=body, timeout=30) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as redirect:  # 302 when signed in (not followed)
            return redirect.code, redirect.headers.get("Location", "")


def message(html: str) -> str:
    found = re.search(r'<p class="errornote">\s*(.*?)\s*</p>', html, re.S)
    return found.group(1) if found else ""


@pytest.mark.parametrize("shared_cache", ["database", "redis"])
def test_the_lock_holds_across_two_server_processes_and_lifts_after_its_time(
    tmp_path, shared_cache, request
):
    # The cache every process shares: the database's cache table, or Redis (REDIS_URL).
    redis_url = request.getfixturevalue("redis_server") if shared_cache == "redis" else ""
    name = f"clerk-{uuid.uuid4().hex[:8]}"  # a Redis may outlive the test database
    get_user_model().objects.create_user(name, f"{name}@example.org", PASSWORD, is_staff=True)
    with ExitStack() as servers:
        mail = servers.enter_context(smtp_server())
        a = servers.enter_context(gunicorn(tmp_path, "a", redis_url=redis_url, smtp_port=mail.port))
        b = servers.enter_context(gunicorn(tmp_path, "b", redis_url=redis_url, smtp_port=mail.port))
        person = Browser()
        # Three wrong passwords, spread over both processes: the third locks the account.
        assert person.sign_in(a.base, name, "guess one")[0] == 200
        assert person.sign_in(b.base, name, "guess two")[0] == 200
        status, html = person.sign_in(a.base, name, "guess three")
        assert status == 200 and "signing in is locked" in message(html)
        if redis_url:  # the counts are in Redis indeed
            keys = redis.Redis.from_url(redis_url).keys("tenders:*staff-sign-in:account:*")
            assert keys
        # The right password, on either process, from another browser: refused.
        for server in (b, a):
            status, html = Browser().sign_in(server.base, name, PASSWORD)
            assert status == 200
            assert message(html).startswith("Too many failed sign-ins: signing in is locked")
            assert re.search(r"Try again in [1-4] seconds?", message(html))
        time.sleep(LOCK_SECONDS + 0.5)
        status, location = Browser().sign_in(b.base, name, PASSWORD)
        assert (status, location) == (302, "/admin/")
    # One e-mail to the account, through SMTP, from the process that locked it.
    [locked] = mail.messages
    assert (locked["To"], locked["Subject"]) == (f"{name}@example.org", "Staff account locked")
    assert "locked after repeated failed sign-ins, the last from 127.0.0.1" in (
        locked.get_content()
    )
    kinds = list(
        SignInEvent.objects.filter(username=name).order_by("pk").values_list("kind", flat=True)
    )
    assert kinds == ["failed", "failed", "failed", "locked", "refused", "refused", "signed_in"]


def test_simultaneous_guesses_on_both_servers_are_each_counted_and_none_passes_the_limit(
    tmp_path,
):
    """Twelve wrong passwords sent at once, six to each server (three workers each): attempts
    for one account take turns, so exactly three are checked before the lock and the other
    nine are refused unchecked."""
    get_user_model().objects.create_user("clerk", "clerk@example.org", PASSWORD, is_staff=True)
    with ExitStack() as servers:
        a = servers.enter_context(gunicorn(tmp_path, "a", workers=3))
        b = servers.enter_context(gunicorn(tmp_path, "b", workers=3))
        people = [Browser() for _ in range(12)]
        for n, person in enumerate(people):  # each has its CSRF cookie and token ready
            person.base = (a, b)[n % 2].base
        barrier = threading.Barrier(len(people))

        def guess(person_n):
            n, person = person_n
            return person.sign_in(person.base, "clerk", f"guess {n}", barrier=barrier)

        with ThreadPoolExecutor(max_workers=len(people)) as pool:
            answers = list(pool.map(guess, enumerate(people)))
        assert [status for status, _ in answers] == [200] * 12
        html = Browser().sign_in(a.base, "clerk", PASSWORD)[1]
        assert "signing in is locked" in message(html)
    failed = SignInEvent.objects.filter(username="clerk", kind="failed").count()
    locked = SignInEvent.objects.filter(username="clerk", kind="locked").count()
    refused = SignInEvent.objects.filter(username="clerk", kind="refused").count()
    assert (failed, locked, refused) == (3, 1, 10)

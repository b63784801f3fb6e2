"""Fifty buyers at once against a real server: every submission stored exactly once."""

import json
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.servers.basehttp import ThreadedWSGIServer
from pytest_django.live_server_helper import LiveServer

from rfq.models import Rfq

SUBMISSIONS = 50


class _WideBacklogServer(ThreadedWSGIServer):
    # Django's test server listens with a backlog of 10; fifty simultaneous connects overflow
    # it and the kernel resets some before the server even sees them. Production servers
    # (gunicorn: 2048) queue them; so does this one.
    request_queue_size = 128


@pytest.fixture
def live_intake_server(transactional_db):
    """pytest-django's live server (a thread of Django's threaded WSGI server on the
    transactional test database), with a production-sized listen backlog."""
    server = LiveServer("127.0.0.1", start=False)
    server.thread.server_class = _WideBacklogServer
    server.start()
    yield server
    server.stop()


@pytest.mark.slow
def test_fifty_concurrent_submissions_store_fifty_records(live_intake_server, settings):
    # Every thread comes from 127.0.0.1; this test is about storage, not about the limit.
    settings.RFQ_RATE_LIMIT = ""
    barrier = threading.Barrier(SUBMISSIONS)

    def submit(n: int) -> tuple[int, dict]:
        body = json.dumps(
            {"product": f"Item {n}", "quantity": str(n), "buyer_contact": f"buyer{n}@example.com"}
        ).encode()
        request = urllib.request.Request(
            f"{live_intake_server.url}/rfq",
            data=body,
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        barrier.wait(timeout=30)
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())

    with ThreadPoolExecutor(max_workers=SUBMISSIONS) as pool:
        results = list(pool.map(submit, range(SUBMISSIONS)))

    assert [status for status, _ in results] == [200] * SUBMISSIONS
    answered = {body["reference"] for _, body in results}
    stored = dict(Rfq.objects.values_list("reference", "product"))
    assert len(stored) == SUBMISSIONS
    assert set(stored) == answered
    # Each answer names the record made from that very submission.
    assert {body["reference"]: f"Item {n}" for n, (_, body) in enumerate(results)} == stored

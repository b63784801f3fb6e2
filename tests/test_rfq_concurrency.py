"""Buyers at once against a real server: every submission stored exactly once, and
concurrent retries of one submission counted once against the rate limit."""

import json
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.cache import cache
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
def live_intake_server(django_db_serialized_rollback, transactional_db):
    """pytest-django's live server (a thread of Django's threaded WSGI server on the
    transactional test database), with a production-sized listen backlog. Serialized rollback,
    like every transactional test here: a flush that recreates content types would collide
    with the next test that restores the serialized database."""
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


def _post(url: str, product: str, key: str) -> tuple[int, dict]:
    body = json.dumps({"product": product, "buyer_contact": "buyer@example.com"}).encode()
    request = urllib.request.Request(
        f"{url}/rfq",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "Idempotency-Key": key},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _at_once(url: str, product: str, key: str, copies: int) -> list[tuple[int, dict]]:
    barrier = threading.Barrier(copies)

    def retry(_):
        barrier.wait(timeout=30)
        return _post(url, product, key)

    with ThreadPoolExecutor(max_workers=copies) as pool:
        return list(pool.map(retry, range(copies)))


@pytest.mark.slow
def test_concurrent_retries_of_one_key_take_one_slot_and_are_never_limited(
    live_intake_server, settings
):
    settings.RFQ_RATE_LIMIT = "10/hour"  # every thread is 127.0.0.1: one client
    cache.clear()
    url = live_intake_server.url

    # Thirty copies of one submission at once: one record, one slot, the same answer to all.
    first = _at_once(url, "Pumps", "key-first", 30)
    assert {status for status, _ in first} == {200}
    assert len({body["reference"] for _, body in first}) == 1
    assert Rfq.objects.count() == 1

    # So nine more submissions fit in the hour...
    for n in range(8):
        assert _post(url, f"Valves {n}", f"key-{n}")[0] == 200
    # ... and with one slot left, twenty copies of the last one all get its answer.
    last = _at_once(url, "Cables", "key-last", 20)
    assert [status for status, _ in last] == [200] * 20
    assert len({body["reference"] for _, body in last}) == 1
    assert Rfq.objects.count() == 10

    # Only now is the client at its limit; the refusal stores nothing.
    status, body = _post(url, "Lamps", "key-over")
    assert (status, body["error"]["code"]) == (429, "rate_limited")
    assert Rfq.objects.count() == 10
    assert _post(url, "Cables", "key-last") == (200, last[0][1])

"""The intake services: what every surface (REST, tool server) relies on."""

import socket
import threading
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from django.core.cache import cache
from django.db import connection

from core.clients import ClientInfo
from core.errors import ApiError
from rfq import services
from rfq.models import AccessRequest, Rfq, Status

T = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)
CLIENT = ClientInfo("198.51.100.7", "agent/1.0")
RFQ = {
    "product": "LED street lights, 120 W, IP66",
    "quantity": "2,000 units",
    "target_market": "hk",
    "buyer_contact": "+85221234567",
}
ACCESS = {
    "at_id": "AT-7K3M9Q2X4B",
    "organisation": "Harbour Lighting Ltd",
    "contact": "bids@example.com",
    "purpose": "We supply street lighting in Hong Kong and intend to bid.",
}


@pytest.fixture(autouse=True)
def _fresh_cache(db):
    cache.clear()


@pytest.fixture
def closed_port():
    """A local port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def next_text(reference: str, noun: str = "request for quote") -> str:
    return (
        f"Thank you: your {noun} is stored. We answer you at the contact you gave within 4 "
        f"hours. Quote {reference} in any follow-up."
    )


def test_an_rfq_is_stored_with_everything_staff_need(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        receipt = services.rfq_submit(payload=RFQ, client=CLIENT, now=T)
    assert receipt == services.Receipt(receipt.reference, next_text(receipt.reference), False)
    assert receipt.as_dict() == {
        "received": True,
        "reference": receipt.reference,
        "next": next_text(receipt.reference),
    }
    record = Rfq.objects.get()
    assert {
        "reference": record.reference,
        "product": record.product,
        "quantity": record.quantity,
        "target_market": record.target_market,
        "buyer_contact": record.buyer_contact,
        "status": record.status,
        "received_at": record.received_at,
        "reply_due_at": record.reply_due_at,
        "answered_at": record.answered_at,
        "closed_at": record.closed_at,
        "staff_notes": record.staff_notes,
        "client_ip": record.client_ip,
        "user_agent": record.user_agent,
        "idempotency_key": record.idempotency_key,
    } == {
        "reference": receipt.reference,
        "product": "LED street lights, 120 W, IP66",
        "quantity": "2,000 units",
        "target_market": "HK",
        "buyer_contact": "+852 2123 4567",
        "status": Status.NEW,
        "received_at": T,
        "reply_due_at": T + timedelta(hours=4),
        "answered_at": None,
        "closed_at": None,
        "staff_notes": "",
        "client_ip": "198.51.100.7",
        "user_agent": "agent/1.0",
        "idempotency_key": None,
    }
    assert len(callbacks) == 1  # the notification waits for the commit


def test_invalid_input_stores_nothing_and_tells_staff_nothing(
    mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ApiError) as caught:
        services.rfq_submit(payload={**RFQ, "buyer_contact": "2123 4567"}, client=CLIENT)
    assert (caught.value.status, caught.value.code, caught.value.param) == (
        400,
        "invalid_parameter",
        "buyer_contact",
    )
    assert Rfq.objects.count() == 0
    assert mailoutbox == []


def test_staff_are_emailed_after_the_commit(
    settings, mailoutbox, django_capture_on_commit_callbacks
):
    settings.RFQ_NOTIFY_EMAIL = "sourcing@example.com"
    settings.DEFAULT_FROM_EMAIL = "feed@example.com"
    settings.PUBLIC_BASE_URL = "https://feed.example.com"
    with django_capture_on_commit_callbacks(execute=True):
        receipt = services.rfq_submit(payload=RFQ, client=CLIENT, now=T)
    record = Rfq.objects.get()
    [mail] = mailoutbox
    assert (mail.to, mail.from_email) == (["sourcing@example.com"], "feed@example.com")
    assert mail.subject == (
        f"New request for quote {receipt.reference}: LED street lights, 120 W, IP66 "
        "(reply due 2026-11-23 10:00 UTC)"
    )
    assert mail.body == (
        "A new request for quote arrived. Reply due: 2026-11-23 10:00 UTC.\n\n"
        f"Reference: {receipt.reference}\n"
        "Received: 2026-11-23 06:00 UTC\n"
        "Product: LED street lights, 120 W, IP66\n"
        "Quantity: 2,000 units\n"
        "Target market: HK\n\n"
        "The sender's contact details are in the admin:\n"
        f"https://feed.example.com/admin/rfq/rfq/{record.pk}/change/\n"
    )
    assert "2123" not in mail.subject + mail.body  # contact details stay in the admin


def test_no_notification_address_means_no_mail(
    settings, mailoutbox, django_capture_on_commit_callbacks
):
    settings.RFQ_NOTIFY_EMAIL = ""
    with django_capture_on_commit_callbacks(execute=True):
        services.rfq_submit(payload=RFQ, client=CLIENT)
    assert Rfq.objects.count() == 1
    assert mailoutbox == []


def test_a_failing_mail_server_loses_nothing(
    settings, caplog, django_capture_on_commit_callbacks, closed_port
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", closed_port  # nothing listens
    settings.EMAIL_USE_TLS = False
    with django_capture_on_commit_callbacks(execute=True):
        receipt = services.rfq_submit(payload=RFQ, client=CLIENT)
    assert Rfq.objects.get().reference == receipt.reference
    assert f"Staff notification for {receipt.reference} could not be sent" in caplog.text


# --- idempotency --------------------------------------------------------------------------


def test_a_retry_with_the_same_key_returns_the_first_answer_and_stores_nothing(
    mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first = services.rfq_submit(payload=RFQ, client=CLIENT, idempotency_key="k-1", now=T)
        # Same content written differently, from another address, later: still a retry.
        again = services.rfq_submit(
            payload={**RFQ, "target_market": "HK", "buyer_contact": "+852 2123 4567"},
            client=ClientInfo("203.0.113.50", "other"),
            idempotency_key='"k-1"',
            now=T + timedelta(minutes=5),
        )
    assert again == services.Receipt(first.reference, first.next, replayed=True)
    assert Rfq.objects.count() == 1
    assert len(mailoutbox) == 1


def test_the_same_key_with_different_content_is_a_conflict():
    services.rfq_submit(payload=RFQ, client=CLIENT, idempotency_key="k-2")
    with pytest.raises(ApiError) as caught:
        services.rfq_submit(
            payload={**RFQ, "quantity": "3,000 units"}, client=CLIENT, idempotency_key="k-2"
        )
    assert (caught.value.status, caught.value.body()) == (
        422,
        {
            "error": {
                "code": "idempotency_conflict",
                "message": "This Idempotency-Key was already used for a different submission. "
                "Use a new key for a new submission, or send exactly the same content to retry.",
                "param": "Idempotency-Key",
            }
        },
    )
    assert Rfq.objects.count() == 1


def test_keys_are_separate_per_intake():
    rfq = services.rfq_submit(payload=RFQ, client=CLIENT, idempotency_key="shared")
    access = services.access_request_submit(payload=ACCESS, client=CLIENT, idempotency_key="shared")
    assert (rfq.replayed, access.replayed) == (False, False)
    assert (Rfq.objects.count(), AccessRequest.objects.count()) == (1, 1)


def test_without_a_key_every_submission_is_stored():
    a = services.rfq_submit(payload=RFQ, client=CLIENT)
    b = services.rfq_submit(payload=RFQ, client=CLIENT)
    assert a.reference != b.reference
    assert Rfq.objects.count() == 2


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_concurrent_retries_with_one_key_store_one_record(settings):
    settings.RFQ_RATE_LIMIT = ""
    settings.RFQ_NOTIFY_EMAIL = ""
    barrier = threading.Barrier(8)
    receipts, errors = [], []

    def submit():
        try:
            barrier.wait()
            receipts.append(
                services.rfq_submit(payload=RFQ, client=CLIENT, idempotency_key="race-1")
            )
        except Exception as error:  # collected, asserted below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert Rfq.objects.count() == 1
    stored = Rfq.objects.get().reference
    assert {r.reference for r in receipts} == {stored}
    assert sorted(r.replayed for r in receipts) == [False] + [True] * 7


def test_a_reference_collision_draws_again(monkeypatch):
    taken = services.rfq_submit(payload=RFQ, client=CLIENT).reference
    draws = iter([taken, taken, "RFQ-0000000001"])
    monkeypatch.setattr(services.references, "new_reference", lambda prefix: next(draws))
    assert services.rfq_submit(payload=RFQ, client=CLIENT).reference == "RFQ-0000000001"
    assert Rfq.objects.count() == 2


# --- rate limits --------------------------------------------------------------------------


def test_over_the_limit_nothing_is_stored_and_the_wait_is_given(settings):
    settings.RFQ_RATE_LIMIT = "2/hour"
    for minute in (0, 1):
        services.rfq_submit(payload=RFQ, client=CLIENT, now=T + timedelta(minutes=minute))
    with pytest.raises(ApiError) as caught:
        services.rfq_submit(payload=RFQ, client=CLIENT, now=T + timedelta(minutes=39, seconds=30))
    assert (caught.value.status, caught.value.body()) == (
        429,
        {
            "error": {
                "code": "rate_limited",
                "message": "Too many submissions from your network address: the limit is 2 per "
                "hour. Try again in 21 min.",
            },
            "retry_after": 1230,
        },
    )
    assert Rfq.objects.count() == 2
    # Another address is not affected; the same address may send again in the next window.
    services.rfq_submit(
        payload=RFQ, client=ClientInfo("198.51.100.8"), now=T + timedelta(minutes=40)
    )
    services.rfq_submit(payload=RFQ, client=CLIENT, now=T + timedelta(hours=1))
    assert Rfq.objects.count() == 4


def test_invalid_submissions_and_replays_do_not_count(settings):
    settings.RFQ_RATE_LIMIT = "1/hour"
    for _ in range(3):
        with pytest.raises(ApiError):
            services.rfq_submit(payload={"product": "x"}, client=CLIENT, now=T)
    first = services.rfq_submit(payload=RFQ, client=CLIENT, idempotency_key="k", now=T)
    # At the limit, a retry of the stored submission still gets its answer.
    assert (
        services.rfq_submit(payload=RFQ, client=CLIENT, idempotency_key="k", now=T).reference
        == first.reference
    )
    with pytest.raises(ApiError) as caught:
        services.rfq_submit(payload=RFQ, client=CLIENT, now=T)
    assert caught.value.code == "rate_limited"
    assert Rfq.objects.count() == 1


def test_access_requests_have_their_own_limit(settings):
    settings.RFQ_RATE_LIMIT = "1/hour"
    settings.ACCESS_REQUEST_RATE_LIMIT = "1/hour"
    services.rfq_submit(payload=RFQ, client=CLIENT, now=T)
    services.access_request_submit(payload=ACCESS, client=CLIENT, now=T)
    with pytest.raises(ApiError) as caught:
        services.access_request_submit(payload=ACCESS, client=CLIENT, now=T)
    assert (caught.value.status, caught.value.extra) == (429, {"retry_after": 3600})
    assert AccessRequest.objects.count() == 1


def test_an_empty_limit_setting_means_no_limit(settings):
    settings.RFQ_RATE_LIMIT = ""
    for _ in range(12):
        services.rfq_submit(payload=RFQ, client=CLIENT, now=T)
    assert Rfq.objects.count() == 12


# --- access requests ----------------------------------------------------------------------


def test_an_access_request_is_stored_and_staff_are_told(
    settings, mailoutbox, django_capture_on_commit_callbacks
):
    settings.RFQ_NOTIFY_EMAIL = "sourcing@example.com"
    with django_capture_on_commit_callbacks(execute=True):
        receipt = services.access_request_submit(
            payload={**ACCESS, "at_id": "at-7k3m9q2x4b"}, client=CLIENT, now=T
        )
    assert receipt.reference.startswith("ACR-") and len(receipt.reference) == 14
    assert receipt.next == next_text(receipt.reference, "request for tender access")
    record = AccessRequest.objects.get()
    assert (record.at_id, record.organisation, record.contact, record.purpose) == (
        "AT-7K3M9Q2X4B",
        "Harbour Lighting Ltd",
        "bids@example.com",
        "We supply street lighting in Hong Kong and intend to bid.",
    )
    assert (record.status, record.received_at, record.reply_due_at, record.client_ip) == (
        Status.NEW,
        T,
        T + timedelta(hours=4),
        "198.51.100.7",
    )
    [mail] = mailoutbox
    assert mail.subject == (
        f"New tender access request {receipt.reference}: Harbour Lighting Ltd (reply due 2026-11-23 10:00 UTC)"
    )
    assert "Listing: AT-7K3M9Q2X4B\n" in mail.body and "bids@example.com" not in mail.body


def test_the_answer_is_the_same_for_any_well_formed_listing_id():
    """Whether an id is published, withheld or unknown is never revealed by the intake."""
    a = services.access_request_submit(payload={**ACCESS, "at_id": "AT-0000000000"}, client=CLIENT)
    b = services.access_request_submit(
        payload={**ACCESS, "at_id": "AT-TEST-ZZZZZZZZZZ"}, client=CLIENT
    )
    assert a.next.replace(a.reference, "") == b.next.replace(b.reference, "")
    assert (a.replayed, b.replayed) == (False, False)


# --- the database unreachable -----------------------------------------------------------


def test_a_database_that_cannot_take_the_record_answers_503_and_stores_nothing(settings):
    """Another session holds the table locked; our insert times out: a real PostgreSQL error."""
    settings.RFQ_RATE_LIMIT = ""
    params = connection.get_connection_params()
    keys = ("dbname", "user", "password", "host", "port")
    with psycopg.connect(**{k: params[k] for k in keys if params.get(k)}) as other:
        other.execute("LOCK TABLE rfq_rfq IN ACCESS EXCLUSIVE MODE")
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '200ms'")
        with pytest.raises(ApiError) as caught:
            services.rfq_submit(payload=RFQ, client=CLIENT)
        other.rollback()
    assert (caught.value.status, caught.value.body()) == (
        503,
        {
            "error": {
                "code": "service_unavailable",
                "message": "Your request for quote could not be stored just now and nothing was "
                "recorded. Please send it again in a minute.",
            },
            "retry_after": 60,
        },
    )
    assert Rfq.objects.count() == 0

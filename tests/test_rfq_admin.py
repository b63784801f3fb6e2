"""The staff queues in the admin: ordering, actions through one bulk service, the admin log."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache

from core.clients import ClientInfo
from rfq import services
from rfq.models import AccessRequest, Rfq, Status

pytestmark = pytest.mark.django_db

T = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)
CLIENT = ClientInfo("198.51.100.7", "agent/1.0")


@pytest.fixture(autouse=True)
def _no_limits(settings):
    settings.RFQ_RATE_LIMIT = ""
    settings.ACCESS_REQUEST_RATE_LIMIT = ""
    cache.clear()


def rfq(received: datetime, product: str = "LED street lights") -> Rfq:
    receipt = services.rfq_submit(
        payload={"product": product, "buyer_contact": "buyer@example.com"},
        client=CLIENT,
        now=received,
    )
    return Rfq.objects.get(reference=receipt.reference)


def access(received: datetime) -> AccessRequest:
    receipt = services.access_request_submit(
        payload={
            "organisation": "Harbour Lighting Ltd",
            "contact": "bids@example.com",
            "purpose": "To bid.",
        },
        client=CLIENT,
        now=received,
    )
    return AccessRequest.objects.get(reference=receipt.reference)


def listed(admin_client, url: str) -> list[str]:
    response = admin_client.get(url)
    assert response.status_code == 200
    return [obj.reference for obj in response.context["cl"].result_list]


def test_the_queue_lists_open_items_most_overdue_first_then_the_rest_newest_first(
    admin_client, admin_user
):
    a = rfq(T)
    b = rfq(T - timedelta(hours=2))
    c = rfq(T - timedelta(hours=5))
    d = rfq(T - timedelta(hours=1))
    e = rfq(T + timedelta(hours=1))
    services.rfq_set_status(ids=[c.pk], status=Status.ANSWERED, actor=admin_user)
    services.rfq_set_status(ids=[d.pk], status=Status.CLOSED, actor=admin_user)
    assert listed(admin_client, "/admin/rfq/rfq/") == [
        b.reference,
        a.reference,
        e.reference,
        d.reference,
        c.reference,
    ]
    assert listed(admin_client, "/admin/rfq/rfq/?status__exact=new") == [
        b.reference,
        a.reference,
        e.reference,
    ]


def test_the_access_request_queue_is_ordered_the_same_way(admin_client, admin_user):
    a = access(T)
    b = access(T - timedelta(hours=3))
    c = access(T - timedelta(hours=9))
    services.access_request_set_status(ids=[c.pk], status=Status.CLOSED, actor=admin_user)
    assert listed(admin_client, "/admin/rfq/accessrequest/") == [
        b.reference,
        a.reference,
        c.reference,
    ]


def test_the_reply_filter_splits_overdue_from_waiting(admin_client, admin_user):
    overdue = rfq(datetime.now(UTC) - timedelta(hours=5))
    waiting = rfq(datetime.now(UTC))
    done = rfq(datetime.now(UTC) - timedelta(hours=6))
    services.rfq_set_status(ids=[done.pk], status=Status.ANSWERED, actor=admin_user)
    assert listed(admin_client, "/admin/rfq/rfq/?reply=overdue") == [overdue.reference]
    assert listed(admin_client, "/admin/rfq/rfq/?reply=due") == [waiting.reference]
    assert listed(admin_client, "/admin/rfq/rfq/?reply=done") == [done.reference]


def test_the_list_shows_reply_due_age_and_an_overdue_mark(admin_client):
    record = rfq(datetime.now(UTC) - timedelta(hours=5))
    page = admin_client.get("/admin/rfq/rfq/").content.decode()
    assert record.reference in page
    assert '<strong style="color: var(--error-fg)">overdue by ' in page
    assert "reply due" in page.lower() and "age" in page.lower()


def test_mark_answered_changes_open_items_in_one_service_call_and_logs_them(
    admin_client, admin_user
):
    a, b = rfq(T), rfq(T + timedelta(minutes=1))
    closed = rfq(T + timedelta(minutes=2))
    services.rfq_set_status(ids=[closed.pk], status=Status.CLOSED, actor=admin_user)
    LogEntry.objects.all().delete()
    response = admin_client.post(
        "/admin/rfq/rfq/",
        {"action": "mark_answered", "_selected_action": [a.pk, b.pk, closed.pk]},
        follow=True,
    )
    assert [str(m) for m in response.context["messages"]] == [
        f"Marked answered: {a.reference}, {b.reference}.",
        "1 left as they were (already answered or closed).",
    ]
    a.refresh_from_db()
    b.refresh_from_db()
    closed.refresh_from_db()
    assert (a.status, b.status, closed.status) == (Status.ANSWERED, Status.ANSWERED, Status.CLOSED)
    assert a.answered_at is not None and a.answered_at == b.answered_at
    assert closed.answered_at is None
    entries = list(
        LogEntry.objects.order_by("object_id").values_list(
            "user_id",
            "content_type",
            "object_id",
            "object_repr",
            "action_flag",
            "change_message",
            "action_time",
        )
    )
    content_type = ContentType.objects.get_for_model(Rfq).pk
    assert entries == [
        (
            admin_user.pk,
            content_type,
            str(a.pk),
            a.reference,
            CHANGE,
            "Marked answered.",
            a.answered_at,
        ),
        (
            admin_user.pk,
            content_type,
            str(b.pk),
            b.reference,
            CHANGE,
            "Marked answered.",
            a.answered_at,
        ),
    ]


def test_mark_closed_applies_to_new_and_answered_items(admin_client, admin_user):
    new, answered = access(T), access(T)
    services.access_request_set_status(
        ids=[answered.pk], status=Status.ANSWERED, actor=admin_user, now=T
    )
    admin_client.post(
        "/admin/rfq/accessrequest/",
        {"action": "mark_closed", "_selected_action": [new.pk, answered.pk]},
    )
    new.refresh_from_db()
    answered.refresh_from_db()
    assert (new.status, answered.status) == (Status.CLOSED, Status.CLOSED)
    assert new.closed_at == answered.closed_at and new.closed_at is not None
    assert answered.answered_at == T
    assert LogEntry.objects.filter(change_message="Marked closed.").count() == 2


def test_the_status_service_costs_the_same_for_one_item_or_many(
    admin_user, django_assert_num_queries
):
    one = [rfq(T).pk]
    many = [rfq(T).pk for _ in range(20)]
    ContentType.objects.get_for_model(Rfq)  # the content-type cache is process-wide
    with django_assert_num_queries(5):
        assert (
            len(services.rfq_set_status(ids=one, status=Status.ANSWERED, actor=admin_user, now=T))
            == 1
        )
    with django_assert_num_queries(5):
        assert (
            len(services.rfq_set_status(ids=many, status=Status.ANSWERED, actor=admin_user, now=T))
            == 20
        )


def test_staff_edit_notes_but_not_the_submission(admin_client):
    record = rfq(T, product="Hospital beds")
    url = f"/admin/rfq/rfq/{record.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert "buyer@example.com" in page and "198.51.100.7" in page
    response = admin_client.post(
        url, {"staff_notes": "Called back; quote sent.", "product": "changed", "status": "closed"}
    )
    assert response.status_code == 302
    record.refresh_from_db()
    assert (record.staff_notes, record.product, record.status) == (
        "Called back; quote sent.",
        "Hospital beds",
        Status.NEW,
    )
    assert LogEntry.objects.get(object_id=str(record.pk)).user.username == "admin"


def test_submissions_cannot_be_added_in_the_admin(admin_client):
    assert admin_client.get("/admin/rfq/rfq/add/").status_code == 403
    assert admin_client.get("/admin/rfq/accessrequest/add/").status_code == 403


def test_the_queues_are_for_staff_only(client):
    rfq(T)
    response = client.get("/admin/rfq/rfq/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_only_a_superuser_may_delete_a_submission(client, admin_client, django_user_model):
    from django.contrib.auth.models import Permission

    record = rfq(T, product="Line one\nLine two")
    rfq(T, product="<script>alert(1)</script>")
    staff = django_user_model.objects.create_user("clerk", password="pw", is_staff=True)
    staff.user_permissions.set(Permission.objects.filter(content_type__app_label="rfq"))
    client.force_login(staff)
    page = client.get(f"/admin/rfq/rfq/{record.pk}/change/").content.decode()
    assert '<div class="readonly"><p>Line one<br>Line two</p></div>' in page
    other = Rfq.objects.exclude(pk=record.pk).get()
    page = client.get(f"/admin/rfq/rfq/{other.pk}/change/").content.decode()
    assert "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>" in page
    assert client.get(f"/admin/rfq/rfq/{record.pk}/delete/").status_code == 403
    assert admin_client.get(f"/admin/rfq/rfq/{record.pk}/delete/").status_code == 200
    assert Rfq.objects.count() == 2


def test_the_queue_shows_the_listing_a_request_names_with_a_link(admin_client, t0):
    from tenders import publication
    from tenders.models import SnapshotRow
    from tests.factories import SourceTenderFactory

    SourceTenderFactory(market="HK")
    issue = publication.publish_issue(now=t0).issue
    at_id = SnapshotRow.objects.filter(issue=issue).values_list("asaptic_id", flat=True)[0]
    services.rfq_submit(
        payload={"product": "Lamps", "buyer_contact": "Line: harbour", "asaptic_id": at_id},
        client=CLIENT,
    )
    rfq(T, product="Without a listing")
    link = f'<a href="/en/tenders/{at_id}/" target="_blank" rel="noopener">{at_id}</a>'
    listing = admin_client.get("/admin/rfq/rfq/").content.decode()
    assert listing.count(link) == 1
    record = Rfq.objects.get(asaptic_id=at_id)
    detail = admin_client.get(f"/admin/rfq/rfq/{record.pk}/change/").content.decode()
    assert link in detail
    assert "Line: harbour" in detail

"""Reads of the staff queues."""

from django.db.models import Case, DateTimeField, F, QuerySet, When

from .models import IntakeRecord, Status

# Open items first, most overdue at the top (reply due ascending); then answered and closed
# items, newest first. The primary key keeps the order total.
QUEUE_ORDERING = (
    Case(
        When(status=Status.NEW, then=F("reply_due_at")), default=None, output_field=DateTimeField()
    ).asc(nulls_last=True),
    F("received_at").desc(),
    F("pk").desc(),
)


def queue(model: type[IntakeRecord]) -> QuerySet:
    return model.objects.order_by(*QUEUE_ORDERING)

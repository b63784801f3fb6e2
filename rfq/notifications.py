"""Staff e-mail about new submissions, sent through Django's mail framework after the record is
committed.

The mail names the reference, what was asked and when the reply is due, and links to the admin;
it carries no contact details: those stay in the admin, where access is controlled and logged.
A failing mail server is logged and swallowed: the record is already stored and shows in the
admin queue, so the sender's request must not fail because of it.
"""

import logging
from datetime import UTC

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from .models import IntakeRecord, Rfq

log = logging.getLogger(__name__)


def notify_staff(record: IntakeRecord) -> None:
    recipient = settings.RFQ_NOTIFY_EMAIL
    if not recipient:
        return
    subject, body = message_for(record)
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [recipient], fail_silently=False)
    except Exception:
        # Any backend failure (refused connection, timeout, authentication, bad address).
        log.exception("Staff notification for %s could not be sent", record.reference)


def message_for(record: IntakeRecord) -> tuple[str, str]:
    meta = record._meta
    link = settings.PUBLIC_BASE_URL + reverse(
        f"admin:{meta.app_label}_{meta.model_name}_change", args=[record.pk]
    )
    due = record.reply_due_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    received = record.received_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if isinstance(record, Rfq):
        headline = _one_line(record.product, 80)
        kind = "request for quote"
        lines = [
            ("Product", record.product),
            ("Quantity", record.quantity or "not given"),
            ("Target market", record.target_market or "not given"),
        ]
    else:
        headline = _one_line(record.organisation, 80)
        kind = "tender access request"
        lines = [
            ("Organisation", record.organisation),
            ("Listing", record.at_id or "not given"),
            ("Purpose", record.purpose),
        ]
    subject = f"New {kind} {record.reference}: {headline} (reply due {due})"
    body = "\n".join(
        [
            f"A new {kind} arrived. Reply due: {due}.",
            "",
            f"Reference: {record.reference}",
            f"Received: {received}",
            *(f"{label}: {value}" for label, value in lines),
            "",
            "The sender's contact details are in the admin:",
            link,
            "",
        ]
    )
    return subject, body


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"

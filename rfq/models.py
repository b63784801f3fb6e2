"""Requests for quote and requests for tender access: two staff queues.

Records are created only by ``rfq.services`` (one validator, one intake path for REST and the
tool server) and change status only through its bulk services, which also write the admin log.
Contact details and the sender's address are private: they appear in the admin and nowhere
else.
"""

from django.db import models
from django.db.models import Q

from . import references


class Status(models.TextChoices):
    NEW = "new", "New"
    ANSWERED = "answered", "Answered"
    CLOSED = "closed", "Closed"


class IntakeRecord(models.Model):
    """What both queues share: reference, timing, status, staff notes, abuse-handling data and
    the idempotency key of the submission."""

    reference = models.CharField(
        max_length=14,
        unique=True,
        editable=False,
        help_text="The reference the sender was given. Quote it in every reply.",
    )
    status = models.CharField(
        max_length=10,
        choices=Status.choices,
        default=Status.NEW,
        help_text="Changed with the list actions “Mark answered” and “Mark closed”.",
    )
    received_at = models.DateTimeField(
        "received", editable=False, help_text="When the submission was stored."
    )
    reply_due_at = models.DateTimeField(
        "reply due",
        editable=False,
        help_text="When the sender must have an answer: 4 hours after it was received.",
    )
    answered_at = models.DateTimeField("answered", null=True, blank=True, editable=False)
    closed_at = models.DateTimeField("closed", null=True, blank=True, editable=False)
    staff_notes = models.TextField(
        blank=True,
        help_text="Internal notes for the team: what was answered, by whom, next steps. Never "
        "shown to the sender.",
    )
    client_ip = models.GenericIPAddressField(
        "sender's address",
        null=True,
        blank=True,
        editable=False,
        help_text="Network address the submission came from; for handling abuse only.",
    )
    user_agent = models.CharField(
        "sender's software",
        max_length=300,
        blank=True,
        editable=False,
        help_text="The User-Agent the submission came with; for handling abuse only.",
    )
    idempotency_key = models.CharField(
        max_length=255,
        null=True,
        blank=True,
        editable=False,
        help_text="The sender's Idempotency-Key: a retry with it returns this record's answer.",
    )
    fingerprint = models.CharField(
        max_length=64,
        editable=False,
        help_text="SHA-256 of the cleaned submission; a key reused for different content is "
        "refused.",
    )

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.reference


class Rfq(IntakeRecord):
    product = models.CharField(max_length=500, help_text="What the buyer wants to source.")
    quantity = models.CharField(max_length=100, blank=True)
    target_market = models.CharField(
        max_length=2,
        blank=True,
        help_text="Where the goods are needed: ISO 3166 alpha-2 or one of our market codes.",
    )
    buyer_contact = models.CharField(
        max_length=254,
        help_text="Reply here: an e-mail address, an international phone number or a "
        "messenger contact (WeChat, WhatsApp, Line, Telegram). Private.",
    )
    asaptic_id = models.CharField(
        "listing id",
        max_length=18,
        blank=True,
        help_text="The listing the request is about, when the sender named one (it was in the "
        "current issue when sent).",
    )

    class Meta:
        verbose_name = "request for quote"
        verbose_name_plural = "requests for quote"
        constraints = [
            models.UniqueConstraint(
                fields=["idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="rfq_unique_idempotency_key",
            ),
            models.CheckConstraint(
                condition=Q(reference__regex=references.RFQ_REFERENCE_RE.pattern),
                name="rfq_reference_format",
            ),
            models.CheckConstraint(condition=Q(status__in=Status.values), name="rfq_status_valid"),
        ]
        indexes = [models.Index(fields=["status", "reply_due_at"], name="rfq_queue_idx")]


class AccessRequest(IntakeRecord):
    at_id = models.CharField(
        "listing id",
        max_length=18,
        blank=True,
        help_text="The listing the sender asked about, when given (format checked only; it "
        "may have left the feed since).",
    )
    organisation = models.CharField(max_length=200)
    contact = models.CharField(
        max_length=254,
        help_text="Reply here: an e-mail address, an international phone number or a "
        "messenger contact (WeChat, WhatsApp, Line, Telegram). Private.",
    )
    purpose = models.CharField(max_length=1000, help_text="Why the sender needs the detail.")

    class Meta:
        verbose_name = "tender access request"
        verbose_name_plural = "tender access requests"
        constraints = [
            models.UniqueConstraint(
                fields=["idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="accessrequest_unique_idempotency_key",
            ),
            models.CheckConstraint(
                condition=Q(reference__regex=references.ACCESS_REQUEST_REFERENCE_RE.pattern),
                name="accessrequest_reference_format",
            ),
            models.CheckConstraint(
                condition=Q(status__in=Status.values), name="accessrequest_status_valid"
            ),
        ]
        indexes = [models.Index(fields=["status", "reply_due_at"], name="accessrequest_queue_idx")]

"""Saved searches mailed as a digest of each weekly issue (double opt-in), and the record of
every digest sent. Addresses are staff-only data: they appear in the admin and in the mail
sent to them, nowhere else."""

import hashlib
import hmac

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from tenders.read.rows import LANGS


def address_key(email: str) -> str:
    """HMAC-SHA256 of the lower-cased address under the project's secret."""
    key = hashlib.sha256(b"tenders.subscriptions.address:" + settings.SECRET_KEY.encode())
    return hmac.new(key.digest(), email.strip().lower().encode(), hashlib.sha256).hexdigest()


class Subscription(models.Model):
    email = models.EmailField(
        max_length=254, help_text="Where the digest goes (domain lower-cased). Private."
    )
    address_key = models.CharField(
        max_length=64,
        editable=False,
        db_index=True,
        help_text="A keyed hash of the address (lower-cased): what a manage link names, so no "
        "link carries the address itself.",
    )
    lang = models.CharField(
        max_length=3,
        choices=[(code, code) for code in LANGS],
        help_text="The language of the mails: en, zh (Simplified) or zht (Traditional).",
    )
    query = models.JSONField(
        default=dict,
        blank=True,
        help_text="The saved search: the listing's parameters as the listing page sent them.",
    )
    search_key = models.CharField(
        max_length=2000,
        help_text="The search in canonical form (the listing's filters key): equal for equal "
        "searches.",
    )
    created_at = models.DateTimeField(default=timezone.now)
    confirmed_at = models.DateTimeField(
        null=True, blank=True, help_text="Empty until the address clicked the confirmation."
    )
    confirmation_sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["email", "search_key", "lang"], name="subscription_one_per_search"
            ),
            models.CheckConstraint(condition=Q(lang__in=LANGS), name="subscription_lang_valid"),
        ]
        indexes = [
            models.Index(fields=["confirmed_at"], name="subscription_confirmed_idx"),
            models.Index(fields=["email"], name="subscription_email_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.email} · {self.search_key or 'all'} · {self.lang}"

    def save(self, *args, **kwargs):
        if not self.address_key:
            self.address_key = address_key(self.email)
        super().save(*args, **kwargs)

    @property
    def confirmed(self) -> bool:
        return self.confirmed_at is not None


class DigestDelivery(models.Model):
    """One digest of one issue for one subscription, claimed before it is sent: the unique
    pair is what keeps a retry from sending a second mail."""

    class State(models.TextChoices):
        CLAIMED = "claimed", "Claimed (sending)"
        SENT = "sent", "Sent"
        EMPTY = "empty", "Nothing new matched"
        FAILED = "failed", "Refused by the mail server"

    subscription = models.ForeignKey(
        Subscription, on_delete=models.CASCADE, related_name="deliveries"
    )
    issue = models.ForeignKey("tenders.Issue", on_delete=models.CASCADE, related_name="+")
    state = models.CharField(max_length=8, choices=State.choices, default=State.CLAIMED)
    rows = models.PositiveIntegerField(default=0, help_text="Rows new in the issue that matched.")
    claimed_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)

    class Meta:
        verbose_name_plural = "digest deliveries"
        constraints = [
            models.UniqueConstraint(fields=["subscription", "issue"], name="digest_once_per_issue")
        ]

    def __str__(self) -> str:
        return f"digest of subscription #{self.subscription_id} for issue #{self.issue_id}"

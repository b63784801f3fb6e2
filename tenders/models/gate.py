"""Curators' allow-lists for the sanitization gate: findings marked as not a leak.

One model for both lists: an allowance with a record belongs to that record only; one without
applies to every record. Added and removed only through ``tenders.allowances`` (the admin
calls it), which writes an admin log entry for each change: who, when, what. Private.
"""

from django.conf import settings
from django.db import models


class GateAllowance(models.Model):
    tender = models.ForeignKey(
        "tenders.SourceTender",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="gate_allowances",
        help_text="The record this allowance is for; empty: every record (global allow-list).",
    )
    kind = models.CharField(
        max_length=20,
        help_text="The kind of finding allowed (as the gate names it, e.g. reference_like); "
        "other kinds on the same text are still found.",
    )
    phrase = models.CharField(
        max_length=200,
        help_text="The text as it stands in the summary (any case): the finding itself or a "
        "longer phrase around it, e.g. 'HP LaserJet' rather than 'HP'.",
    )
    reason = models.CharField(
        max_length=300, help_text="Why this is not a leak, for the staff who read it later."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tender_id", "kind", "phrase"]
        verbose_name = "gate allowance"
        verbose_name_plural = "gate allow-list"
        # An allowance of kind ``out_of_vocabulary`` adds a word to the public vocabulary.
        permissions = [("add_vocabulary_word", "Can add vocabulary word")]
        constraints = [
            models.UniqueConstraint(
                fields=["tender", "kind", "phrase"],
                condition=models.Q(tender__isnull=False),
                name="gateallowance_record_unique",
            ),
            models.UniqueConstraint(
                fields=["kind", "phrase"],
                condition=models.Q(tender__isnull=True),
                name="gateallowance_global_unique",
            ),
        ]

    def __str__(self) -> str:
        scope = self.tender.listing_id if self.tender_id else "every record"
        return f"{self.kind}: {self.phrase!r} ({scope})"

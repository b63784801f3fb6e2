"""The private directory of public bodies: every name a buyer is known by.

Importers add each buyer, department and contact name a notice gives (in every language it
gives them); staff add official names, short forms and abbreviations in the admin; a seed list
covers the main public bodies of the seven markets. The sanitization gate checks every record's
public text against the whole directory, not only the record's own buyer. Private: nothing here
reaches a public surface.
"""

import unicodedata

from django.db import models

from ..markets import MARKET_CHOICES

NAME_MAX = 300


def name_key(name: str) -> str:
    """A name folded for comparison: NFKC, case-folded, runs of white space as one space."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())[:NAME_MAX]


class PublicBody(models.Model):
    """A buyer, department or statutory body, a contact person named in notices, or a tender
    portal that publishes notices (the contract withholds each row's source)."""

    class Kind(models.TextChoices):
        BODY = "body", "Public body"
        PERSON = "person", "Contact person"
        SOURCE = "source", "Tender portal or source"

    class Origin(models.TextChoices):
        SEED = "seed", "Seed list"
        IMPORT = "import", "Imported notice"
        STAFF = "staff", "Staff"

    market = models.CharField(
        max_length=2,
        choices=MARKET_CHOICES,
        blank=True,
        help_text="The market the body buys in; empty when it is not known.",
    )
    kind = models.CharField(
        max_length=6,
        choices=Kind.choices,
        default=Kind.BODY,
        help_text="What the names are: the gate reports a body, a person or a portal.",
    )
    origin = models.CharField(
        max_length=6,
        choices=Origin.choices,
        default=Origin.STAFF,
        help_text="Where the entry came from. Imported names made only of ordinary words "
        "('Corporate Services') are not looked for; seed and staff names always are.",
    )
    name = models.CharField(
        max_length=300, help_text="The name staff see first (usually the official English one)."
    )
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["market", "name"]
        verbose_name = "public body"
        verbose_name_plural = "directory of public bodies"
        indexes = [models.Index(fields=["market", "kind"], name="publicbody_market_kind")]

    def __str__(self) -> str:
        return f"{self.name} ({self.market})" if self.market else self.name


class PublicBodyName(models.Model):
    """One spelling of a body's name: official, short form or abbreviation, in one language."""

    class Form(models.TextChoices):
        FULL = "full", "Full name"
        SHORT = "short", "Short form"
        ABBREVIATION = "abbreviation", "Abbreviation"

    body = models.ForeignKey(PublicBody, on_delete=models.CASCADE, related_name="names")
    name = models.CharField(max_length=300)
    key = models.CharField(
        max_length=300,
        editable=False,
        help_text="The name folded for comparison (NFKC, case, spacing); set on save.",
    )
    lang = models.CharField(
        max_length=8,
        blank=True,
        help_text="Language of this spelling: en, zh-hans, zh-hant, fr, ... (empty: unknown).",
    )
    form = models.CharField(
        max_length=12,
        choices=Form.choices,
        default=Form.FULL,
        help_text="Full names and short forms are found in any case where written as a name; "
        "abbreviations exactly as written (HyD, C&ED). Abbreviations that are also ordinary "
        "terms (HA, CAD, GPA) only count where they stand as a name ('issued by the HA').",
    )

    class Meta:
        ordering = ["body", "form", "name"]
        constraints = [
            models.UniqueConstraint(fields=["body", "key"], name="publicbodyname_body_key"),
        ]
        indexes = [models.Index(fields=["key"], name="publicbodyname_key")]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        self.key = name_key(self.name)
        super().save(*args, **kwargs)

"""What the sourcing service offers, as staff keep it: lanes, markets, compliance, engagement.

Everything in the capabilities document (``/agent/capabilities.json``) and the sourcing tools
of the MCP server is read from these tables, so staff change the offer in the admin and no code
changes. Only ``active`` rows are public.
"""

from django.core.exceptions import ValidationError
from django.db import models


class Market(models.Model):
    code = models.CharField(
        max_length=8,
        unique=True,
        help_text="Public code, upper case: the feed's two-letter market codes (HK, SG, GB...).",
    )
    name_en = models.CharField("English name", max_length=80)
    name_zh = models.CharField("Simplified Chinese name", max_length=40)
    name_zht = models.CharField("Traditional Chinese name", max_length=40)
    notes = models.TextField(
        blank=True, help_text="Public: what we do for buyers in this market, in one or two lines."
    )
    position = models.PositiveSmallIntegerField(default=0, help_text="Order in public lists.")
    active = models.BooleanField(default=True, help_text="Only active markets are published.")

    class Meta:
        ordering = ["position", "code"]

    def __str__(self) -> str:
        return f"{self.code} {self.name_en}"


class ComplianceItem(models.Model):
    slug = models.SlugField(
        max_length=64, unique=True, help_text="Public id, e.g. ce-marking. Lanes refer to it."
    )
    name = models.CharField(max_length=120, help_text="Public name, e.g. 'CE marking'.")
    description = models.TextField(
        help_text="Public: what we check or provide, in plain words (no supplier names)."
    )
    markets = models.ManyToManyField(
        Market, blank=True, related_name="compliance", help_text="Where it applies."
    )
    position = models.PositiveSmallIntegerField(default=0)
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["position", "slug"]
        verbose_name = "compliance item"

    def __str__(self) -> str:
        return self.name


class Lane(models.Model):
    slug = models.SlugField(
        max_length=64,
        unique=True,
        help_text="Public id of the lane (agents and links use it): change it only with care.",
    )
    name = models.CharField(max_length=120, help_text="Public name, e.g. 'Medical consumables'.")
    summary = models.TextField(help_text="Public: what this lane sources, in one or two lines.")
    sources = models.CharField(
        max_length=300,
        help_text="Public: where supply comes from, in one sentence. Never name a supplier.",
    )
    markets = models.ManyToManyField(Market, related_name="lanes", help_text="Markets served.")
    compliance = models.ManyToManyField(
        ComplianceItem, blank=True, related_name="lanes", help_text="What we check on this lane."
    )
    page_url = models.URLField(
        "page URL",
        blank=True,
        help_text="Optional public page about the lane; blank uses the lane's page on this site.",
    )
    position = models.PositiveSmallIntegerField(default=0, help_text="Order in public lists.")
    active = models.BooleanField(default=True, help_text="Only active lanes are published.")

    class Meta:
        ordering = ["position", "slug"]

    def __str__(self) -> str:
        return self.name


class Engagement(models.Model):
    """How a buyer works with us (the deposit-first model). One row; the admin keeps it so."""

    name = models.CharField(max_length=80, default="Deposit-first")
    summary = models.TextField(help_text="Public: the model in two or three sentences.")
    reply_within_hours = models.PositiveSmallIntegerField(
        default=4,
        help_text="The reply promise: every RFQ contact is answered within this many hours. "
        "Agents quote it to buyers; change it only when the team can keep the new promise.",
    )
    reply_note = models.CharField(
        max_length=300,
        blank=True,
        help_text="Public: what the first reply contains, e.g. questions or an indicative price.",
    )
    deposit_percent = models.PositiveSmallIntegerField(
        help_text="Share of the order value paid as deposit before production starts (percent)."
    )
    deposit_terms = models.TextField(
        help_text="Public: when the deposit is refunded or credited, in plain words."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "engagement model"

    def __str__(self) -> str:
        return (
            f"{self.name} ({self.deposit_percent}% deposit, reply in {self.reply_within_hours} h)"
        )

    def clean(self):
        if not 0 < self.deposit_percent <= 100:
            raise ValidationError({"deposit_percent": "Give a percentage from 1 to 100."})
        if not self.reply_within_hours:
            raise ValidationError({"reply_within_hours": "Give at least 1 hour."})


class EngagementStep(models.Model):
    """One stage of the engagement: what the buyer pays, when, and what they get for it."""

    engagement = models.ForeignKey(Engagement, on_delete=models.CASCADE, related_name="steps")
    position = models.PositiveSmallIntegerField(default=0)
    stage = models.CharField(max_length=80, help_text="e.g. 'Request for quote'.")
    buyer_pays = models.CharField(
        max_length=120, help_text="e.g. 'Nothing' or '30% deposit'. Public."
    )
    when = models.CharField(max_length=160, help_text="When it is paid, e.g. 'On order'. Public.")
    buyer_gets = models.TextField(help_text="What the buyer receives at this stage. Public.")

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.stage

"""Imports of public notices: configured sources, recorded runs, and each imported procedure.

``ImportedNotice`` ties a ``SourceTender`` to the notice it came from, keyed by the notice's own
identity in its scheme (an OCDS ``ocid``, an eForms ``ContractFolderID``, a GLD ``TenderNo``, a
CSV row's id within its market), so the record keeps its listing id forever. It keeps the raw
notice compressed (every release or notice version seen), so drafting can be re-run when its
rules improve. Private: nothing here reaches a public surface.
"""

import zlib

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from ..markets import MARKET_CHOICES
from .feed import SourceTender


class ImportFormat(models.TextChoices):
    OCDS = "ocds", "OCDS (JSON release or record packages, JSON Lines)"
    EFORMS = "eforms", "eForms XML (TED notices, EU)"
    GLD = "gld", "HK GLD e-Tender Box TenderNotice.xml"
    CSV = "csv", "CSV with the documented columns"
    CANADABUYS = "canadabuys", "CanadaBuys tender notice CSV (bilingual columns, CA)"
    TED = "ted", "TED Search API v3, then each notice's eForms XML (EU)"


class ImportSource(models.Model):
    """A publisher's feed staff import from, by hand or on a schedule."""

    name = models.CharField(max_length=120, unique=True, help_text="What staff call this feed.")
    format = models.CharField(max_length=16, choices=ImportFormat.choices)
    market = models.CharField(
        max_length=2,
        choices=MARKET_CHOICES,
        blank=True,
        help_text="Required for OCDS and CSV; eForms is always EU and GLD always HK.",
    )
    url = models.CharField(
        "URL",
        max_length=500,
        help_text="Where the notices are read from: an http(s) address (OCDS pages are followed "
        "through links.next) or a path on the server.",
    )
    enabled = models.BooleanField(
        default=True, help_text="Disabled sources are kept but not imported from."
    )
    every_hours = models.PositiveSmallIntegerField(
        "import every (hours)",
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(24 * 31)],
        help_text="Import automatically when the last import started this many hours ago or "
        "more (24 = daily); empty = only by hand. Needs manage.py run_schedules in cron.",
    )
    request_interval = models.FloatField(
        "seconds between requests",
        default=0,
        validators=[MinValueValidator(0), MaxValueValidator(3600)],
        help_text="The publisher's published limit as a spacing: 10 = at most 12 requests in "
        "2 minutes. 0 = no spacing (files on this server).",
    )
    options = models.JSONField(
        default=dict,
        blank=True,
        help_text="How the source asks for what is new: since_param (the URL parameter of the "
        "window's start, e.g. updatedFrom), since_format (datetime or date), overlap_minutes, "
        "first_days (how far back the first run reads), query (TED's expert query).",
    )
    checkpoint = models.JSONField(
        default=dict,
        blank=True,
        help_text="Where the last run stopped: since (the start of the next window), next (the "
        "page or token a failed run resumes from), etag and last_modified (a file's validators).",
    )
    preset = models.CharField(
        max_length=40, blank=True, help_text="The ready-made source this one was created from."
    )
    note = models.TextField(blank=True, help_text="Licence and limits of the publisher's data.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        permissions = [("run_import", "Can import notices from sources and files")]

    def __str__(self) -> str:
        return self.name


class ImportRun(models.Model):
    """One import: what was read and what became of it, with each failure a curator can fix."""

    class State(models.TextChoices):
        RUNNING = "running", "Running"
        COMPLETED = "completed", "Completed"
        FAILED = "failed", "Failed"

    source = models.ForeignKey(
        ImportSource, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    format = models.CharField(max_length=16, choices=ImportFormat.choices)
    location = models.CharField(max_length=500, help_text="The file, folder or URL read.")
    market = models.CharField(max_length=2, choices=MARKET_CHOICES, blank=True)
    since = models.DateField(null=True, blank=True)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.RUNNING)
    read = models.PositiveIntegerField(
        default=0, help_text="Items read: releases, notices or rows (several may be one procedure)."
    )
    created = models.PositiveIntegerField(default=0)
    updated = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0)
    closed = models.PositiveIntegerField(
        default=0, help_text="Procedures found cancelled, awarded, completed or withdrawn."
    )
    skipped = models.JSONField(default=dict, blank=True, help_text="Skipped procedures by reason.")
    failed = models.PositiveIntegerField(default=0)
    failures = models.JSONField(
        default=list, blank=True, help_text="Each failure: place, notice id and what to do."
    )
    error = models.TextField(blank=True, help_text="Why the run itself failed.")
    files = models.JSONField(
        default=dict,
        blank=True,
        help_text="When the run read several files, the counts of each (read, created, "
        "updated, unchanged, skipped, failed), a procedure counted in the file of its latest "
        "version.",
    )

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"{self.format.upper()} {self.location} ({self.state})"

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    def summary(self) -> str:
        skipped = f", {self.skipped_total} skipped" if self.skipped_total else ""
        return (
            f"{self.read} read: {self.created} created, {self.updated} updated, "
            f"{self.unchanged} unchanged, {self.closed} closed at source{skipped}, "
            f"{self.failed} failed"
        )


class ImportedNotice(models.Model):
    """The notice a source record was imported from (private)."""

    tender = models.OneToOneField(
        SourceTender, on_delete=models.CASCADE, primary_key=True, related_name="imported"
    )
    scheme = models.CharField(max_length=16, choices=ImportFormat.choices)
    notice_id = models.CharField(
        max_length=200, help_text="The notice's own id: ocid, ContractFolderID, TenderNo."
    )
    source = models.ForeignKey(
        ImportSource, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    raw = models.BinaryField(help_text="Every release or notice version seen, zlib-compressed.")
    raw_hash = models.CharField(max_length=64)
    state_at_source = models.CharField(
        max_length=16,
        help_text="active, planned, cancelled, unsuccessful, awarded, complete or withdrawn.",
    )
    closed_reason = models.CharField(max_length=300, blank=True)
    notes = models.JSONField(default=list, blank=True, help_text="What the importer guessed.")
    draft_hash = models.CharField(
        max_length=64,
        blank=True,
        help_text="The summaries the importer last drafted; when staff have edited them since, "
        "an update keeps the staff's text.",
    )
    first_run = models.ForeignKey(ImportRun, null=True, on_delete=models.SET_NULL, related_name="+")
    last_run = models.ForeignKey(ImportRun, null=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scheme", "notice_id"], name="importednotice_key"),
        ]

    def __str__(self) -> str:
        return f"{self.scheme}:{self.notice_id}"

    def raw_text(self) -> str:
        return zlib.decompress(bytes(self.raw)).decode()

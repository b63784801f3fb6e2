"""The filters of the source record list, as a curator asks: has the gate found something,
when does it close, where was it imported from, did a person edit it.

Each filter's ``queryset`` is a plain selection of ``SourceTender`` rows; the preview links
to the list filtered by the same parameters (``tenders.issue_report.unpublished_by_reason``).
"""

from datetime import timedelta

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import CharField, Exists, OuterRef, Q
from django.db.models.functions import Cast
from django.utils import timezone

from .. import findings
from ..models import ImportRun, ImportSource, SourceTender


class FindingsFilter(admin.SimpleListFilter):
    """Records the gate finds something in, or nothing (counts kept until the text or the
    gate changes: the first use after an import scans the records, later ones read)."""

    title = "findings"
    parameter_name = "findings"

    def lookups(self, request, model_admin):
        return [("yes", "Has findings"), ("no", "Clean")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return findings.with_findings(queryset, self.value() == "yes")
        return queryset


def closing_ranges(now=None) -> dict:
    """The closing ranges a curator filters by, as querysets' lookups."""
    now = now or timezone.now()
    out = now - timedelta(days=settings.TENDERS_PASSED_GRACE_DAYS)
    return {
        "2w": Q(deadline__gte=now, deadline__lt=now + timedelta(weeks=2)),
        "4w": Q(deadline__gte=now + timedelta(weeks=2), deadline__lt=now + timedelta(weeks=4)),
        "later": Q(deadline__gte=now + timedelta(weeks=4)),
        "passed": Q(deadline__lt=now),
        "out": Q(deadline__lt=out),
    }


class ClosingFilter(admin.SimpleListFilter):
    title = "closes"
    parameter_name = "closes"

    def lookups(self, request, model_admin):
        days = settings.TENDERS_PASSED_GRACE_DAYS
        return [
            ("2w", "Within 2 weeks"),
            ("4w", "In 2–4 weeks"),
            ("later", "Later"),
            ("passed", "Passed"),
            ("out", f"Passed over {days} days ago (out of the feed)"),
        ]

    def queryset(self, request, queryset):
        ranges = closing_ranges()
        if self.value() in ranges:
            return queryset.filter(ranges[self.value()])
        return queryset


class SourceFilter(admin.SimpleListFilter):
    title = "imported from"
    parameter_name = "source"

    def lookups(self, request, model_admin):
        sources = [(str(s.pk), s.name) for s in ImportSource.objects.order_by("name")]
        return [*sources, ("upload", "An uploaded file"), ("staff", "Entered by staff")]

    def queryset(self, request, queryset):
        value = self.value()
        if value == "upload":
            return queryset.filter(imported__isnull=False, imported__source__isnull=True)
        if value == "staff":
            return queryset.filter(imported__isnull=True)
        if value and value.isdigit():
            return queryset.filter(imported__source_id=int(value))
        return queryset


class RunFilter(admin.SimpleListFilter):
    """The records an import run created or last updated (the 20 latest runs offered)."""

    title = "import run"
    parameter_name = "run"

    def lookups(self, request, model_admin):
        runs = ImportRun.objects.order_by("-started_at", "-pk")[:20]
        return [(str(r.pk), f"Run {r.pk}: {r.location or r.source}"[:80]) for r in runs]

    def queryset(self, request, queryset):
        value = self.value()
        if value and value.isdigit():
            run = int(value)
            return queryset.filter(Q(imported__first_run_id=run) | Q(imported__last_run_id=run))
        return queryset


def edited_by_people() -> Exists:
    """Whether a person saved the record's form or chose its concepts (the admin's log)."""
    kind = ContentType.objects.get_for_model(SourceTender)
    return Exists(
        LogEntry.objects.filter(
            content_type=kind,
            object_id=Cast(OuterRef("pk"), CharField()),
            action_flag__in=[ADDITION, CHANGE],
        ).filter(
            Q(change_message__startswith="[{")  # the change form's own message
            | Q(change_message__startswith="Concepts:")
        )
    )


class EditedFilter(admin.SimpleListFilter):
    title = "edited by a person"
    parameter_name = "edited"

    def lookups(self, request, model_admin):
        return [("yes", "Edited by a person"), ("no", "As imported or drafted")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(Q(edited_by_people()) | Q(imported__isnull=True))
        if self.value() == "no":
            return queryset.filter(~Q(edited_by_people()) & Q(imported__isnull=False))
        return queryset


class SummaryFilter(admin.SimpleListFilter):
    title = "summaries"
    parameter_name = "summary"

    def lookups(self, request, model_admin):
        return [("missing", "One or more missing"), ("all", "All three")]

    def queryset(self, request, queryset):
        missing = Q(summary_en="") | Q(summary_zh="") | Q(summary_zht="")
        if self.value() == "missing":
            return queryset.filter(missing)
        if self.value() == "all":
            return queryset.exclude(missing)
        return queryset

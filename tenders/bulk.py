"""Curation of many records at once: approve, withhold, re-draft or check a selection of any
size, the same way whether the admin runs it in the request (a few hundred records) or a
worker runs it as a job (``tasks.bulk_enqueue``).

``bulk_run`` calls the record services of ``tenders.curation`` on batches of
``BULK_BATCH`` records, each batch in its own transaction, and adds up what they did; one call
with every record gives the same records changed and the same refusals (a test runs both).
``bulk_confirmation`` is what the confirmation page shows before anything changes: the count,
the first rows as they will be published, and what will be refused and why, read from a sample
and from the findings counts kept on the records, so the page stays quick at any size.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from . import curation, findings
from .curation import Actor, CurationError
from .models import SourceTender
from .sanitize.loading import current_gate

BULK_BATCH = 1000
CONFIRM_SAMPLE = 200  # records whose refusals the confirmation page works out in full
CONFIRM_ROWS = 10  # rows shown as they will be published

# Action: (verb for staff, past tense, what the refusals are called)
ACTIONS = {
    "approve": ("Approve", "Approved", "approved"),
    "withhold": ("Withhold", "Withheld", "withheld"),
    "draft": ("Re-draft", "Re-drafted", "drafted"),
    "check": ("Check", "Checked", "clean"),
}


def inline_limit() -> int:
    """Selections above this many records run as a job, not in the request."""
    return settings.TENDERS_BULK_INLINE_LIMIT


@dataclass
class BulkOutcome:
    """What a bulk action did to ``selected`` records: how many it changed (for a check: how
    many were clean), and why it left the others (listing id: reasons)."""

    action: str
    selected: int = 0
    done: int = 0
    refused: dict[str, list[str]] = field(default_factory=dict)
    notes: dict[str, list[str]] = field(default_factory=dict)

    def message(self) -> str:
        """One sentence for staff (the job's outcome, the admin's first message)."""
        if self.action == "check":
            return (
                f"Checked {self.selected} record(s): {self.done} clean, "
                f"{len(self.refused)} with findings."
            )
        if self.action == "draft":
            text = (
                f"Drafted summaries for {self.done} record(s) from their own concepts; "
                "read them and approve."
            )
        else:
            text = f"{ACTIONS[self.action][1]} {self.done} record(s)."
        if self.refused:
            text += f" {len(self.refused)} refused (not {ACTIONS[self.action][2]})."
        return text


def _batch(action: str, ids: list[int], user: Actor, reason: str, outcome: BulkOutcome) -> None:
    if action == "approve":
        result = curation.tenders_approve(ids=ids, user=user)
    elif action == "withhold":
        result = curation.tenders_withhold(ids=ids, reason=reason, user=user)
    elif action == "draft":
        result = curation.tenders_draft_summaries(ids=ids, user=user)
    else:
        found = curation.tender_check(ids=ids, user=user)
        outcome.done += sum(1 for f in found.values() if not f)
        outcome.refused.update(
            {
                lid: [f"{x.label} in {x.field}: {x.excerpt}" for x in f]
                for lid, f in found.items()
                if f
            }
        )
        return
    outcome.done += len(result.done)
    outcome.refused.update(result.refused)
    outcome.notes.update(result.notes)


def bulk_run(
    *,
    action: str,
    ids: Sequence[int],
    user: Actor,
    reason: str = "",
    progress: Callable[[int, int], None] | None = None,
    batch: int | None = None,
) -> BulkOutcome:
    """Run ``action`` on the records ``ids``, a batch at a time; raise ``CurationError`` (and
    change nothing) for a request refused as a whole (no record, no reason to withhold)."""
    if action not in ACTIONS:
        raise CurationError(f"Unknown action {action!r}.")
    ids = sorted(set(ids))
    if not ids:
        raise CurationError("Select at least one record.")
    if action == "withhold":
        curation.withhold_reason(reason)  # refused before any batch is changed
    outcome = BulkOutcome(action=action, selected=len(ids))
    batch = batch or BULK_BATCH
    for start in range(0, len(ids), batch):
        _batch(action, ids[start : start + batch], user, reason, outcome)
        if progress:
            progress(min(start + batch, len(ids)), len(ids))
    return outcome


@dataclass
class Confirmation:
    """What the confirmation page of a bulk action shows before anything changes."""

    action: str
    count: int
    rows: list[SourceTender]
    refused: dict[str, list[str]]
    sampled: int
    with_findings: int
    unscanned: int
    already: int
    as_job: bool
    out_of_feed: int  # closed so long ago that no publication includes them


def bulk_confirmation(action: str, queryset: QuerySet) -> Confirmation:
    """The count, the first rows as they will be published (for approval: those that pass),
    the refusals among the first ``CONFIRM_SAMPLE`` records, and across the whole selection
    the records with findings by their kept counts and those not scanned yet."""
    queryset = queryset.order_by("pk")
    count = queryset.count()
    sample = list(queryset.select_related("category")[:CONFIRM_SAMPLE])
    refused: dict[str, list[str]] = {}
    if action == "approve":
        gate, rates = current_gate(), curation.currency_rates()
        for record in sample:
            if problems := curation.approval_problems(record, rates=rates, gate=gate):
                refused[record.listing_id] = problems
    rows = [r for r in sample if r.listing_id not in refused][:CONFIRM_ROWS]
    key = findings.findings_key(current_gate())
    fresh = findings.findings_fresh(queryset, key)
    scanned = fresh.count()
    status = {
        "approve": SourceTender.Status.APPROVED,
        "withhold": SourceTender.Status.WITHHELD,
    }.get(action)
    return Confirmation(
        action=action,
        count=count,
        rows=rows,
        refused=refused,
        sampled=len(sample),
        with_findings=fresh.filter(findings__gt=0).count(),
        unscanned=count - scanned,
        already=queryset.filter(status=status).count() if status else 0,
        as_job=count > inline_limit(),
        out_of_feed=queryset.filter(deadline__lt=out_of_feed_before()).count(),
    )


def out_of_feed_before():
    """Records closing before this are left out of every publication (``eligible_tenders``)."""
    return timezone.now() - timedelta(days=settings.TENDERS_PASSED_GRACE_DAYS)

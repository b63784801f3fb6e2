"""Publication of a weekly issue from the approved source records (guarantees: the package's
docstring)."""

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Value
from django.utils import timezone

from .. import calendar
from ..models import (
    Category,
    CurrencyRate,
    Issue,
    IssueCount,
    SnapshotRow,
    SourceTender,
    WithheldRecord,
)
from ..sanitize.loading import current_gate
from .planning import (
    CANDIDATE_FIELDS,
    BatchPlanner,
    Candidate,
    CategoryNames,
    PlanContext,
    Planned,
    batched,
    reason_kind,
)
from .snapshots import (
    CELL_FIELDS,
    PublicationError,
    discard,
    facets_from_cells,
    prune,
    publication_lock,
    switch_to,
    write_flat_file,
)
from .storage import snapshot_store

log = logging.getLogger(__name__)

WITHHELD_SAMPLE = 500

# progress(phase, done, total): called as work advances, at most once per batch. Phases, in
# order: "read and plan" (records), then for a real publication "build indexes", "write flat
# file" and "switch" (each 0 of 1, then 1 of 1). Jobs and the command show it to people.
Progress = Callable[[str, int, int], None]
PLAN_PHASE = "read and plan"


@contextmanager
def _timed(timings: dict[str, float], phase: str) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        timings[phase] = timings.get(phase, 0.0) + time.perf_counter() - started


@dataclass
class PublicationSummary:
    issue_id: str
    generated: datetime
    dry_run: bool
    eligible: int = 0
    published: int = 0
    new: int = 0
    continuing: int = 0
    dropped: int = 0
    withheld: int = 0
    previous_issue_id: str | None = None
    replaces_same_week: bool = False
    withheld_by_reason: Counter = field(default_factory=Counter)
    withheld_samples: list[tuple[str, list[str]]] = field(default_factory=list)
    issue: Issue | None = None
    # Seconds spent in each phase, for the command's report and the benchmark.
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def snapshot_etag(self) -> str:
        return self.issue.snapshot_etag if self.issue else ""


def eligible_tenders(generated: datetime, previous: Issue | None):
    """Approved and staff-withheld records whose deadline is not long past, in a stable order."""
    cutoff = generated - timedelta(days=settings.TENDERS_PASSED_GRACE_DAYS)
    qs = SourceTender.objects.filter(
        status__in=[SourceTender.Status.APPROVED, SourceTender.Status.WITHHELD],
        deadline__gte=cutoff,
    ).order_by("pk")
    if previous is None or previous.rows_pruned:
        qs = qs.annotate(in_previous=Value(False))
    else:
        earlier = SnapshotRow.objects.filter(issue=previous, asaptic_id=OuterRef("listing_id"))
        qs = qs.annotate(in_previous=Exists(earlier))
    # Plain tuples, not model instances: planning a million records skips a million __init__s.
    return qs.values_list(*CANDIDATE_FIELDS, "in_previous")


def _previous_issue(issue_id: str) -> Issue | None:
    return (
        Issue.objects.filter(state=Issue.State.LIVE, issue_id__lt=issue_id)
        .order_by("-issue_id")
        .first()
    )


def _check_clock(issue_id: str) -> None:
    current = Issue.objects.filter(is_current=True).first()
    if current and current.issue_id > issue_id:
        raise PublicationError(
            f"The current issue is {current.issue_id}; an issue for an earlier week "
            f"({issue_id}) cannot replace it. Check the --at clock."
        )


def _record_withheld(summary: PublicationSummary, planned: Planned) -> None:
    summary.withheld += 1
    summary.withheld_by_reason.update({reason_kind(r) for r in planned.reasons})
    if len(summary.withheld_samples) < WITHHELD_SAMPLE:
        summary.withheld_samples.append((planned.listing_id, planned.reasons))


def _plan_all(
    summary: PublicationSummary,
    previous: Issue | None,
    progress: Progress | None,
) -> Iterator[list[Planned]]:
    """Stream eligible records in batches and decide each one. Counts go into ``summary``.

    Large publications plan in worker processes (``TENDERS_PUBLISH_WORKERS``) while this
    process reads; batches come back in order either way.
    """
    context = PlanContext(
        generated=summary.generated,
        rates={r.currency: r.usd_per_unit for r in CurrencyRate.objects.all()},
        secret=settings.TENDERS_SORT_KEY_SECRET,
        categories={
            c.pk: CategoryNames(c.slug, c.name_en, c.name_zh, c.name_zht)
            for c in Category.objects.all()
        },
        gate=current_gate(fresh=True),
    )
    batch_size = settings.TENDERS_PUBLISH_BATCH
    qs = eligible_tenders(summary.generated, previous)
    summary.eligible = qs.count()
    parallel = summary.eligible >= settings.TENDERS_PUBLISH_PARALLEL_FROM
    timings = summary.timings
    reading, planning = "read source records", "plan rows (gate, buckets, search)"

    def candidates() -> Iterator[list[Candidate]]:
        chunks = batched(qs.iterator(chunk_size=batch_size), batch_size)
        while True:
            with _timed(timings, reading):
                chunk = next(chunks, None)
            if chunk is None:
                return
            yield [Candidate._make(row) for row in chunk]

    done = 0
    with BatchPlanner(context, settings.TENDERS_PUBLISH_WORKERS if parallel else 0) as planner:
        batches = planner.plan(candidates())
        while True:
            read_before, started = timings.get(reading, 0.0), time.perf_counter()
            planned = next(batches, None)
            waited = time.perf_counter() - started - (timings.get(reading, 0.0) - read_before)
            timings[planning] = timings.get(planning, 0.0) + waited
            if planned is None:
                break
            for p in planned:
                if p.values is None:
                    _record_withheld(summary, p)
                else:
                    summary.published += 1
                    summary.new += p.cell[-1]
            done += len(planned)
            if progress:
                progress(PLAN_PHASE, done, summary.eligible)
            yield planned
    summary.continuing = summary.published - summary.new
    summary.dropped = previous.rows_total - summary.continuing if previous else 0


def _step(progress: Progress | None, phase: str):
    """Report a one-step phase as started; returns the call that reports it done."""
    if progress:
        progress(phase, 0, 1)
    return lambda: progress(phase, 1, 1) if progress else None


def _load_issue(
    issue: Issue,
    planned_batches: Iterable[list[Planned]],
    timings: dict[str, float],
    *,
    force_orm: bool = False,
    progress: Progress | None = None,
) -> Counter:
    """Load the rows of a building issue and its withheld records; return the cell counts."""
    cells: Counter = Counter()
    with transaction.atomic():
        loader = snapshot_store(bulk=not force_orm).loader(issue)
        for planned in planned_batches:
            with _timed(timings, "load rows"):
                rows = [p.values for p in planned if p.values is not None]
                loader.write(rows)
                cells.update(p.cell for p in planned if p.cell is not None)
                WithheldRecord.objects.bulk_create(
                    [
                        WithheldRecord(issue=issue, tender_id=p.tender_pk, reasons=p.reasons)
                        for p in planned
                        if p.values is None
                    ]
                )
        done = _step(progress, "build indexes")
        with _timed(timings, "build indexes and attach"):
            loader.finish()
        done()
        IssueCount.objects.bulk_create(
            [
                IssueCount(issue=issue, rows=n, **dict(zip(CELL_FIELDS, cell, strict=True)))
                for cell, n in cells.items()
            ],
            batch_size=2000,
        )
    return cells


def _build_and_switch(
    issue: Issue,
    planned_batches: Iterable[list[Planned]],
    timings: dict[str, float],
    *,
    force_orm: bool = False,
    progress: Progress | None = None,
) -> None:
    try:
        cells = _load_issue(issue, planned_batches, timings, force_orm=force_orm, progress=progress)
        issue.facets = facets_from_cells(cells)
        done = _step(progress, "write flat file")
        with _timed(timings, "write flat file"):
            write_flat_file(issue)
        done()
        issue.save()
        done = _step(progress, "switch")
        with _timed(timings, "switch"):
            switch_to(issue, issue.generated)
        done()
    except BaseException:
        log.exception(
            "Building issue %s (#%s) failed; the current issue is unchanged.",
            issue.issue_id,
            issue.pk,
        )
        discard(issue)
        raise


def publish_issue(
    *,
    now: datetime | None = None,
    dry_run: bool = False,
    user=None,
    progress: Progress | None = None,
    force_orm: bool = False,
) -> PublicationSummary:
    """Publish this week's issue from the approved records (see the module docstring).

    ``dry_run`` plans everything and reports the same counts, writing nothing.
    ``force_orm`` loads rows with INSERTs even on PostgreSQL (tests compare both paths).
    """
    generated = (now or timezone.now()).astimezone(UTC).replace(microsecond=0)
    issue_id = calendar.issue_id_for(generated)
    _check_clock(issue_id)
    previous = _previous_issue(issue_id)
    summary = PublicationSummary(
        issue_id=issue_id,
        generated=generated,
        dry_run=dry_run,
        previous_issue_id=previous.issue_id if previous else None,
        replaces_same_week=Issue.objects.filter(state=Issue.State.LIVE, issue_id=issue_id).exists(),
    )
    if dry_run:
        for _ in _plan_all(summary, previous, progress):
            pass
        return summary

    with publication_lock():
        issue = Issue.objects.create(
            issue_id=issue_id, generated=generated, previous=previous, published_by=user
        )
        summary.issue = issue

        def batches():
            yield from _plan_all(summary, previous, progress)
            issue.rows_total = summary.published
            issue.withheld = summary.withheld
            issue.new_count = summary.new
            issue.continuing_count = summary.continuing
            issue.dropped_count = summary.dropped

        _build_and_switch(issue, batches(), summary.timings, force_orm=force_orm, progress=progress)
        prune(generated)
    return summary

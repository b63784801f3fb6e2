"""Publication of a weekly issue from the approved source records (guarantees: the package's
docstring)."""

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .. import calendar
from ..models import Category, CurrencyRate, Issue, IssueCount, WithheldRecord
from ..models.feed import CELL_FIELDS
from ..sanitize.loading import gate_and_data
from . import passes, sources
from .planning import (
    BatchPlanner,
    CategoryNames,
    PlanContext,
    PlannedBatch,
    for_planning,
    reason_kind,
)
from .snapshots import (
    PublicationError,
    discard,
    discard_stale_builds,
    facets_from_cells,
    prune,
    publication_lock,
    switch_to,
    write_flat_file,
)
from .storage import TableStore, snapshot_store
from .warm import warm_answers

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
    # Published rows copied from the last issue instead of planned again.
    reused: int = 0
    # Records whose digest held but a change of the gate's data made them planned again.
    affected: int = 0
    # Records planned afresh without the gate: they passed it and nothing since affects that.
    passed: int = 0
    previous_issue_id: str | None = None
    replaces_same_week: bool = False
    withheld_by_reason: Counter = field(default_factory=Counter)
    withheld_samples: list[tuple[str, list[str]]] = field(default_factory=list)
    issue: Issue | None = None
    # The gate's data this plan was made against (``Issue.plan_gate``).
    plan_gate: dict = field(default_factory=dict)
    # Seconds spent in each phase, for the command's report and the benchmark.
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def snapshot_etag(self) -> str:
        return self.issue.snapshot_etag if self.issue else ""


def _previous_issue(issue_id: str) -> Issue | None:
    return (
        Issue.objects.filter(state=Issue.State.LIVE, issue_id__lt=issue_id)
        .order_by("-issue_id")
        .first()
    )


def _last_issue() -> Issue | None:
    """The issue rows are reused from: the current one, while it has its rows."""
    return Issue.objects.filter(is_current=True, rows_pruned=False).first()


def _check_clock(issue_id: str) -> None:
    current = Issue.objects.filter(is_current=True).first()
    if current and current.issue_id > issue_id:
        raise PublicationError(
            f"The current issue is {current.issue_id}; an issue for an earlier week "
            f"({issue_id}) cannot replace it. Check the --at clock."
        )


def _count(summary: PublicationSummary, batch: PlannedBatch) -> None:
    summary.published += batch.published
    summary.new += batch.new
    summary.reused += batch.reused_count
    summary.affected += batch.affected
    summary.passed += batch.passed
    for _pk, listing_id, reasons in batch.withheld:
        summary.withheld += 1
        summary.withheld_by_reason.update({reason_kind(r) for r in reasons})
        if len(summary.withheld_samples) < WITHHELD_SAMPLE:
            summary.withheld_samples.append((listing_id, reasons))


def _plan_all(
    summary: PublicationSummary,
    previous: Issue | None,
    last: Issue | None,
    progress: Progress | None,
    *,
    store: TableStore,
    encoded: bool,
) -> Iterator[PlannedBatch]:
    """Stream eligible records in batches and decide each one. Counts go into ``summary``.

    Large publications plan in worker processes (``TENDERS_PUBLISH_WORKERS``) while this
    process reads; batches come back in order either way. Records whose row can be reused
    from ``last`` travel without the fields only a fresh plan reads, unless the gate's data
    changed since: then the planner asks the change whether it affects them (in the workers,
    beside the fresh plans, not in this process while it reads). Records planned afresh that
    hold a pass of the gate are asked the same of the change since their pass
    (``passes.pass_changes``), and planned without the gate if it does not affect them.
    """
    categories = {
        c.pk: CategoryNames(c.slug, c.name_en, c.name_zh, c.name_zht)
        for c in Category.objects.all()
    }
    gate, data = gate_and_data()
    change = sources.gate_change(last.plan_gate if last else {}, data)
    eligible = sources.eligible_tenders(summary.generated)
    context = PlanContext(
        generated=summary.generated,
        rates={r.currency: r.usd_per_unit for r in CurrencyRate.objects.all()},
        secret=settings.TENDERS_SORT_KEY_SECRET,
        categories=categories,
        gate=gate,
        encoded=encoded,
        change=change,
        passes=passes.pass_changes(eligible, data),
    )
    batch_size = settings.TENDERS_PUBLISH_BATCH
    summary.eligible = eligible.count()
    key = sources.context_key(categories)
    summary.plan_gate = sources.plan_gate(data)
    rows = sources.candidates(summary.generated, previous, last, key)
    parallel = summary.eligible >= settings.TENDERS_PUBLISH_PARALLEL_FROM
    timings = summary.timings
    reading, planning = "read source records", "plan rows (gate, buckets, search)"

    def candidates() -> Iterator[list[tuple]]:
        chunks = store.stream(rows, batch_size, sources.READ_HINTS)
        while True:
            with _timed(timings, reading):
                chunk = next(chunks, None)
                if chunk is None:
                    return
                ready = [for_planning(row, change) for row in chunk]
            yield ready

    done = 0
    with BatchPlanner(context, settings.TENDERS_PUBLISH_WORKERS if parallel else 0) as planner:
        batches = planner.plan(candidates())
        while True:
            read_before, started = timings.get(reading, 0.0), time.perf_counter()
            batch = next(batches, None)
            waited = time.perf_counter() - started - (timings.get(reading, 0.0) - read_before)
            timings[planning] = timings.get(planning, 0.0) + waited
            if batch is None:
                break
            _count(summary, batch)
            done += batch.records
            if progress:
                progress(PLAN_PHASE, done, summary.eligible)
            yield batch
    summary.continuing = summary.published - summary.new
    summary.dropped = previous.rows_total - summary.continuing if previous else 0


def _step(progress: Progress | None, phase: str):
    """Report a one-step phase as started; returns the call that reports it done."""
    if progress:
        progress(phase, 0, 1)
    return lambda: progress(phase, 1, 1) if progress else None


def _load(
    issue: Issue, build, batches: Iterable[PlannedBatch], timings: dict[str, float]
) -> Counter:
    """Load the rows of a building issue, its withheld records and its counts; return the
    counts. One transaction: committed at its end unless the caller has one."""
    cells: Counter = Counter()
    with transaction.atomic():
        build.start()
        for batch in batches:
            with _timed(timings, "load rows"):
                build.write(batch)
                cells.update(batch.cells)
                WithheldRecord.objects.bulk_create(
                    WithheldRecord(issue=issue, tender_id=pk, reasons=reasons)
                    for pk, _listing_id, reasons in batch.withheld
                )
        with _timed(timings, "copy reused rows"):
            build.finish_load()
        IssueCount.objects.bulk_create(
            [
                IssueCount(issue=issue, rows=n, **dict(zip(CELL_FIELDS, cell, strict=True)))
                for cell, n in cells.items()
            ],
            batch_size=2000,
        )
    return cells


def build_and_switch(
    issue: Issue,
    build,
    timings: dict[str, float],
    *,
    load: Callable[[], Counter],
    progress: Progress | None = None,
    switching: Callable[[], None] | None = None,
) -> None:
    """Load (``load()``), index and write the flat file of a building issue, then make it
    current (running ``switching()`` in the same transaction); any failure discards it and
    leaves the current issue, and everything else, as it was. Once it is current, warm its
    answers."""
    try:
        issue.facets = facets_from_cells(load())
        issue.save()

        def flat_file() -> None:
            with _timed(timings, "of which the flat file"):
                write_flat_file(issue, build.rows_by_sort_key(settings.TENDERS_PUBLISH_BATCH))
            # Saved at once, so a build killed later can still find and delete the file.
            issue.save(update_fields=["snapshot_etag", "flat_file", "flat_file_bytes"])

        done = _step(progress, "build indexes")
        timings.setdefault("build indexes and flat file", 0.0)
        with _timed(timings, "build indexes and flat file"):
            build.index(flat_file)
        done()
        _step(progress, "write flat file")()
        done = _step(progress, "switch")
        with _timed(timings, "switch"):

            def attach() -> None:
                build.attach()
                if switching:
                    switching()

            switch_to(issue, issue.generated, also=attach)
        done()
    except BaseException:
        log.exception(
            "Building issue %s (#%s) failed; the current issue is unchanged.",
            issue.issue_id,
            issue.pk,
        )
        discard(issue)
        raise
    with _timed(timings, "warm answers"):
        warm_answers(issue)


def publish_issue(
    *,
    now: datetime | None = None,
    dry_run: bool = False,
    user=None,
    progress: Progress | None = None,
    force_orm: bool = False,
) -> PublicationSummary:
    """Publish this week's issue from the approved records (see the package docstring).

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
    store = snapshot_store(bulk=not force_orm)
    if dry_run:
        plan = _plan_all(summary, previous, _last_issue(), progress, store=store, encoded=False)
        for _ in plan:
            pass
        return summary

    with publication_lock():
        discard_stale_builds()
        last = _last_issue()
        issue = Issue.objects.create(
            issue_id=issue_id, generated=generated, previous=previous, published_by=user
        )
        summary.issue = issue
        build = store.build(issue, last=last)

        def load() -> Counter:
            batches = _plan_all(
                summary, previous, last, progress, store=store, encoded=build.encoded
            )
            cells = _load(issue, build, batches, summary.timings)
            issue.rows_total = summary.published
            issue.withheld = summary.withheld
            issue.new_count = summary.new
            issue.continuing_count = summary.continuing
            issue.dropped_count = summary.dropped
            issue.plan_gate = summary.plan_gate
            return cells

        build_and_switch(issue, build, summary.timings, load=load, progress=progress)
        prune(generated)
    return summary

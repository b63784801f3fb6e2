"""Writes of the feed: publication of a weekly issue and withdrawal of a published row.

Guarantees of ``publish_issue``:
- Only approved records whose deadline is not long past are published; every row passes the
  sanitization gate or is withheld (and counted, with its reasons kept for staff).
- Buckets are computed against ``generated``; ``new_this_issue`` against the previous issue.
- The switch to the new snapshot is one short transaction at the very end: readers see the old
  snapshot or the new one, and any failure before it leaves the old one current.
- Linear and memory-bounded: source records are streamed in batches, rows are bulk-loaded
  (COPY into a fresh partition on PostgreSQL), counts are accumulated per filter combination,
  and the flat file is streamed to storage. No per-row queries.
"""

import gzip
import hashlib
import json
import logging
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import islice

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q, Value
from django.utils import timezone

from . import buckets, calendar, partitions
from .calendar import rfc3339
from .markets import MARKETS
from .models import (
    Category,
    CurrencyRate,
    Issue,
    IssueCount,
    SnapshotRow,
    SourceTender,
    WithheldRecord,
)
from .planning import (
    CANDIDATE_FIELDS,
    BatchPlanner,
    Candidate,
    CategoryNames,
    PlanContext,
    Planned,
    reason_kind,
)
from .rows import ROW_COLUMNS, row_from_values
from .sanitize.loading import current_gate

log = logging.getLogger(__name__)

# Snapshot columns in load order (COPY and bulk_create alike).
LOAD_COLUMNS = (
    "issue_id",
    "sort_key",
    "asaptic_id",
    "market",
    "category_slug",
    "category_name_en",
    "category_name_zh",
    "category_name_zht",
    "summary_en",
    "summary_zh",
    "summary_zht",
    "value_band",
    "closing_bucket",
    "lead_ok",
    "new_this_issue",
    "search_text",
    "search_latin",
    "search_cjk",
)
# The filter dimensions of a row, in IssueCount field order.
CELL_FIELDS = (
    "market",
    "category_slug",
    "closing_bucket",
    "value_band",
    "lead_ok",
    "new_this_issue",
)
# Replaced snapshots keep their rows this long, so requests already reading them can finish.
REPLACED_GRACE = timedelta(minutes=10)
WITHHELD_SAMPLE = 500
PUBLISH_LOCK = 7_246_001

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


def batched(iterable: Iterable, size: int) -> Iterator[list]:
    iterator = iter(iterable)
    while chunk := list(islice(iterator, size)):
        yield chunk


class PublicationError(Exception):
    """Publication refused or failed; the current snapshot is unchanged."""


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


# --- sinks: where planned rows go --------------------------------------------------------


class _CopySink:
    """PostgreSQL: COPY into a bare partition; indexes are built in bulk at the end."""

    def __init__(self, issue: Issue):
        self.issue = issue
        self.cursor = connection.cursor()
        self.table = partitions.create_staging(self.cursor, issue.pk)

    def write(self, rows: list[tuple]) -> None:
        columns = ", ".join(LOAD_COLUMNS)
        with self.cursor.cursor.copy(f"COPY {self.table} ({columns}) FROM STDIN") as copy:
            for row in rows:
                # search_cjk goes in as JSON text (COPY would write a list as an array).
                cjk = json.dumps(row[-1], ensure_ascii=False)
                copy.write_row((self.issue.pk, *row[:-1], cjk))

    def finish(self) -> None:
        partitions.index_and_attach(self.cursor, self.issue.pk)
        self.cursor.close()


class _OrmSink:
    """Any other database: batched INSERTs into the one snapshot table."""

    def __init__(self, issue: Issue):
        self.issue = issue
        if partitions.is_postgres():
            with connection.cursor() as cursor:
                partitions.create_attached(cursor, issue.pk)

    def write(self, rows: list[tuple]) -> None:
        names = LOAD_COLUMNS[1:]
        SnapshotRow.objects.bulk_create(
            [SnapshotRow(issue=self.issue, **dict(zip(names, row, strict=True))) for row in rows]
        )

    def finish(self) -> None:
        pass


def _sink_for(issue: Issue, force_orm: bool = False):
    if partitions.is_postgres() and not force_orm:
        return _CopySink(issue)
    return _OrmSink(issue)


# --- the publication ----------------------------------------------------------------------


@contextmanager
def _publication_lock():
    """One publication or withdrawal at a time (PostgreSQL advisory lock; SQLite serializes)."""
    if not partitions.is_postgres():
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [PUBLISH_LOCK])
        if not cursor.fetchone()[0]:
            raise PublicationError("Another publication or withdrawal is running; try again.")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [PUBLISH_LOCK])


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


def facets_from_cells(cells: Counter) -> dict:
    """Vocabulary and counts of the four facet groups, from the per-combination counts."""
    by = {name: Counter() for name in ("market", "category", "bucket", "band")}
    for (market, slug, bucket, band, _lead, _new), n in cells.items():
        by["market"][market] += n
        by["category"][slug] += n
        by["bucket"][bucket] += n
        by["band"][band or "unspecified"] += n
    return {
        "markets": [
            {
                "code": m.code,
                "name_en": m.name_en,
                "name_zh": m.name_zh,
                "name_zht": m.name_zht,
                "count": by["market"][m.code],
            }
            for m in MARKETS.values()
        ],
        "categories": [
            {
                "slug": c.slug,
                "name_en": c.name_en,
                "name_zh": c.name_zh,
                "name_zht": c.name_zht,
                "count": by["category"][c.slug],
            }
            for c in Category.objects.order_by("position", "slug")
        ],
        "closing_buckets": [
            {"value": b, "count": by["bucket"][b]} for b in buckets.CLOSING_BUCKETS
        ],
        "value_bands": [
            {"value": b, "count": by["band"][b]} for b in (*buckets.VALUE_BANDS, "unspecified")
        ],
    }


def _write_flat_file(issue: Issue) -> None:
    """Stream the issue's rows, ordered by sort_key, into a gzipped JSON file in storage.

    The snapshot etag is the SHA-256 of the uncompressed document (truncated to 32 hex digits),
    so the flat file's ETag names exactly its bytes.
    """
    digest = hashlib.sha256()
    head = (
        f'{{"generated": "{rfc3339(issue.generated)}", "issue_id": "{issue.issue_id}", '
        f'"total": {issue.rows_total}, "withheld": {issue.withheld}, "rows": ['
    )
    rows = SnapshotRow.objects.filter(issue=issue).order_by("sort_key").values_list(*ROW_COLUMNS)
    with tempfile.TemporaryFile() as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as gz:

            def emit(text: str) -> None:
                data = text.encode()
                digest.update(data)
                gz.write(data)

            emit(head)
            first = True
            with transaction.atomic():
                for values in rows.iterator(chunk_size=settings.TENDERS_PUBLISH_BATCH):
                    text = json.dumps(row_from_values(values), ensure_ascii=False)
                    emit(text if first else "," + text)
                    first = False
            emit("]}")
        issue.snapshot_etag = digest.hexdigest()[:32]
        raw.seek(0)
        name = default_storage.save(
            f"feeds/rows-{issue.issue_id}-{issue.snapshot_etag}.json.gz", File(raw)
        )
        issue.flat_file = name
        issue.flat_file_bytes = default_storage.size(name)


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
        sink = _sink_for(issue, force_orm)
        for planned in planned_batches:
            with _timed(timings, "load rows"):
                rows = [p.values for p in planned if p.values is not None]
                if rows:
                    sink.write(rows)
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
            sink.finish()
        done()
        IssueCount.objects.bulk_create(
            [
                IssueCount(issue=issue, rows=n, **dict(zip(CELL_FIELDS, cell, strict=True)))
                for cell, n in cells.items()
            ],
            batch_size=2000,
        )
    return cells


def _switch_to(issue: Issue, when: datetime) -> None:
    """Make ``issue`` current in one short transaction; a same-week live issue is replaced."""
    with transaction.atomic():
        old = list(
            Issue.objects.select_for_update().filter(
                Q(is_current=True) | Q(state=Issue.State.LIVE, issue_id=issue.issue_id)
            )
        )
        for other in old:
            other.is_current = False
            if other.issue_id == issue.issue_id:
                other.state = Issue.State.REPLACED
                other.replaced_at = when
            other.save(update_fields=["is_current", "state", "replaced_at"])
        issue.state = Issue.State.LIVE
        issue.is_current = True
        issue.save()


def _discard(issue: Issue) -> None:
    """Remove what a failed build left behind; the issue row stays, marked failed."""
    if partitions.is_postgres():
        with connection.cursor() as cursor:
            partitions.drop(cursor, issue.pk)
    else:
        SnapshotRow.objects.filter(issue=issue).delete()
    if issue.flat_file:
        default_storage.delete(issue.flat_file)
    Issue.objects.filter(pk=issue.pk).update(
        state=Issue.State.FAILED, is_current=False, rows_pruned=True
    )


def _prune(now: datetime) -> list[str]:
    """Drop the rows of issues nobody reads any more. Issue records (history) are kept."""
    keep_from = calendar.weeks_before(
        calendar.issue_id_for(now), settings.TENDERS_ISSUE_RETENTION_WEEKS
    )
    stale = Issue.objects.filter(rows_pruned=False, is_current=False).filter(
        Q(state__in=[Issue.State.REPLACED], replaced_at__lt=now - REPLACED_GRACE)
        | Q(state=Issue.State.LIVE, issue_id__lt=keep_from)
    )
    pruned = []
    for issue in stale:
        if partitions.is_postgres():
            with connection.cursor() as cursor:
                partitions.drop(cursor, issue.pk)
        else:
            SnapshotRow.objects.filter(issue=issue).delete()
        if issue.flat_file:
            default_storage.delete(issue.flat_file)
        Issue.objects.filter(pk=issue.pk).update(rows_pruned=True, flat_file="")
        pruned.append(f"{issue.issue_id}#{issue.pk}")
    return pruned


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
            _write_flat_file(issue)
        done()
        issue.save()
        done = _step(progress, "switch")
        with _timed(timings, "switch"):
            _switch_to(issue, issue.generated)
        done()
    except BaseException:
        log.exception(
            "Building issue %s (#%s) failed; the current issue is unchanged.",
            issue.issue_id,
            issue.pk,
        )
        _discard(issue)
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

    with _publication_lock():
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
        _prune(generated)
    return summary


def _copy_rows_except(source: Issue, target: Issue, listing_id: str, force_orm: bool) -> None:
    """Copy ``source``'s rows into ``target``'s snapshot, leaving one listing out."""
    columns = [c for c in LOAD_COLUMNS if c != "issue_id"]
    if partitions.is_postgres() and not force_orm:
        with connection.cursor() as cursor:
            table = partitions.create_staging(cursor, target.pk)
            cols = ", ".join(columns)
            cursor.execute(
                f"INSERT INTO {table} (issue_id, {cols}) SELECT %s, {cols} "
                f"FROM {partitions.PARENT} WHERE issue_id = %s AND asaptic_id <> %s",
                [target.pk, source.pk, listing_id],
            )
            partitions.index_and_attach(cursor, target.pk)
        return
    rows = (
        SnapshotRow.objects.filter(issue=source)
        .exclude(asaptic_id=listing_id)
        .order_by("sort_key")
        .values_list(*columns)
    )
    sink = _OrmSink(target)
    for chunk in batched(rows.iterator(chunk_size=settings.TENDERS_PUBLISH_BATCH), 2000):
        sink.write(chunk)


def withdraw_row(
    *,
    listing_id: str,
    reason: str,
    user=None,
    now: datetime | None = None,
    force_orm: bool = False,
) -> Issue:
    """Take one row out of the current snapshot at once (a row found to leak after publication).

    Makes a new snapshot of the same issue without the row: new ``generated``, new etag, so
    every cursor of the old snapshot answers ``snapshot_changed``. The source record is set to
    withheld with the reason, so the next publication keeps it out too.
    """
    reason = reason.strip()
    if not reason:
        raise PublicationError("Give a reason for the withdrawal (staff see it in the history).")
    generated = (now or timezone.now()).astimezone(UTC).replace(microsecond=0)
    with _publication_lock():
        current = Issue.objects.filter(is_current=True).first()
        if current is None:
            raise PublicationError("Nothing is published yet; there is nothing to withdraw.")
        row = SnapshotRow.objects.filter(issue=current, asaptic_id=listing_id).first()
        if row is None:
            raise PublicationError(
                f"{listing_id} is not in the current snapshot ({current.issue_id})."
            )
        issue = Issue.objects.create(
            issue_id=current.issue_id,
            generated=max(generated, current.generated + timedelta(seconds=1)),
            previous=current.previous,
            reason=Issue.Reason.WITHDRAW,
            note=f"Withdrew {listing_id}: {reason}",
            published_by=user,
            rows_total=current.rows_total - 1,
            withheld=current.withheld + 1,
            new_count=current.new_count - row.new_this_issue,
            continuing_count=current.continuing_count - (not row.new_this_issue),
            dropped_count=current.dropped_count,
        )
        try:
            with transaction.atomic():
                _copy_rows_except(current, issue, listing_id, force_orm)
                cells = Counter(
                    {
                        tuple(getattr(c, f) for f in CELL_FIELDS): c.rows
                        for c in current.counts.all()
                    }
                )
                cells[tuple(getattr(row, f) for f in CELL_FIELDS)] -= 1
                cells = +cells  # drop empty cells
                IssueCount.objects.bulk_create(
                    IssueCount(issue=issue, rows=n, **dict(zip(CELL_FIELDS, cell, strict=True)))
                    for cell, n in cells.items()
                )
                WithheldRecord.objects.bulk_create(
                    WithheldRecord(issue=issue, tender_id=w.tender_id, reasons=w.reasons)
                    for w in current.withheld_records.all()
                )
                tender = SourceTender.objects.select_for_update().get(listing_id=listing_id)
                WithheldRecord.objects.create(
                    issue=issue, tender=tender, reasons=[f"withdrawn by staff: {reason}"]
                )
                tender.status = SourceTender.Status.WITHHELD
                tender.withheld_reason = f"Withdrawn from {current.issue_id}: {reason}"
                tender.save(update_fields=["status", "withheld_reason", "updated_at"])
            issue.facets = facets_from_cells(cells)
            _write_flat_file(issue)
            issue.save()
            _switch_to(issue, generated)
        except BaseException:
            log.exception("Withdrawing %s failed; the current issue is unchanged.", listing_id)
            _discard(issue)
            raise
    return issue

"""Planning a publication: the pure decision for each eligible record, in batches.

``plan_record`` turns one private record into its public row values (or the reasons to
withhold it): the sanitization gate, buckets, the sort key and the search columns. It reads no
database, so large publications plan batches in worker processes while the main process keeps
reading source records and loading rows. The planner keeps only a small window of batches in
flight, so memory does not grow with the number of records, and returns batches in order, so
the result is the same as planning in one process.

**Reuse.** A record whose planning inputs and planning context are unchanged since the issue
its row was last published in (same ``digest``, see ``publication.sources``), and whose texts
no change of the gate's data since that plan can affect (``GateChange``), is not planned
again: its row is copied from that issue with only the weekly parts recomputed here (closing
bucket, value band, ``new_this_issue``). The gate, the search columns and the sort key, which
cost nearly all of planning, run only for new, changed and affected records. Whether a change
of the gate's data affects a reusable record is asked here too (``plan_batch``), so that the
workers share it.

Workers import no Django: records, categories and rates travel as plain values, and rows come
back already encoded for the store (``PlanContext.encoded``), so nothing big is pickled back.
"""

import multiprocessing
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from itertools import islice
from typing import Any, NamedTuple

from tenders.read.search import search_columns

from .. import buckets
from ..ids import sort_key
from ..sanitize import NO_DIRECTORY, Gate
from . import pgcopy
from .change import NO_CHANGE, GateChange

WITHHELD = "withheld"  # SourceTender.Status.WITHHELD, without importing the models

# The fields of a source record that publication reads, in the order rows are streamed: the
# ones every record needs every week, then the ones only a fresh plan reads. The digest that
# decides reuse covers all of them (``publication.sources``).
WEEKLY_FIELDS = (
    "pk",
    "listing_id",
    "status",
    "withheld_reason",
    "market",
    "category_id",
    "deadline",
    "amount",
    "currency",
    "lead_ok",
)
PLAN_FIELDS = (
    "buyer_name",
    "reference",
    "source_url",
    "title",
    "description",
    "summary_en",
    "summary_zh",
    "summary_zht",
)
CANDIDATE_FIELDS = WEEKLY_FIELDS + PLAN_FIELDS
# Last, read for a fresh plan only: the check whose pass of the gate the record holds, if its
# pass is current (``publication.passes``).
PASS_FIELD = "passed"
# Per issue: whether the previous week's issue had the record, the digest of its planning
# inputs now, and the digest its row was planned from in the issue it was last published in.
ISSUE_FIELDS = ("in_previous", "digest", "last_digest")
# A reusable record travels as its first WEEKLY_LENGTH values only.
WEEKLY_LENGTH = len(WEEKLY_FIELDS) + len(ISSUE_FIELDS)
DIGEST_AT, LAST_DIGEST_AT = WEEKLY_LENGTH - 2, WEEKLY_LENGTH - 1


class Candidate(NamedTuple):
    """One eligible source record as publication streams it (plain values, picklable)."""

    pk: int
    listing_id: str
    status: str
    withheld_reason: str
    market: str
    category_id: int
    deadline: datetime
    amount: Decimal | None
    currency: str
    lead_ok: bool
    in_previous: bool
    digest: str
    last_digest: str | None
    buyer_name: str = ""
    reference: str = ""
    source_url: str = ""
    title: str = ""
    description: str = ""
    summary_en: str = ""
    summary_zh: str = ""
    summary_zht: str = ""
    passed: int | None = None

    @property
    def reusable(self) -> bool:
        """Whether its row can be copied from the last issue (nothing it depends on changed)."""
        return self.digest == self.last_digest


assert Candidate._fields == (*WEEKLY_FIELDS, *ISSUE_FIELDS, *PLAN_FIELDS, PASS_FIELD)

# The snapshot columns a planned row's values fill, in order (all but the issue).
ROW_VALUES = (
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
T, B, J = pgcopy.TEXT, pgcopy.BOOL, pgcopy.JSONB
ROW_KINDS = (T, T, T, T, T, T, T, T, T, T, T, T, B, B, T, T, J)
# What changes weekly in a reused row (keyed by its listing id), and each published row's
# digest (keyed by its source record).
WEEKLY_VALUES = ("asaptic_id", "value_band", "closing_bucket", "new_this_issue")
WEEKLY_KINDS = (T, T, T, B)
DIGEST_VALUES = ("tender_id", "digest")
DIGEST_KINDS = (pgcopy.INT8, T)


class CategoryNames(NamedTuple):
    slug: str
    name_en: str
    name_zh: str
    name_zht: str


@dataclass(frozen=True)
class Planned:
    """One eligible record, decided: a row to publish (``values`` in ``ROW_VALUES`` order, and
    its filter ``cell``), or reasons to withhold it."""

    tender_pk: int
    listing_id: str
    values: tuple | None
    cell: tuple | None
    reasons: list[str]


@dataclass(frozen=True)
class PlanContext:
    """What every decision of one publication shares."""

    generated: datetime
    rates: dict[str, Decimal]
    secret: str
    categories: dict[int, CategoryNames]
    gate: Gate = NO_DIRECTORY  # the directory and allow-lists (tenders.sanitize.loading)
    # Whether batches carry their rows encoded for COPY (bytes) rather than as tuples.
    encoded: bool = False
    # How the gate's data changed since the plan of the issue rows are reused from (None:
    # not at all).
    change: "GateChange | None" = None
    # How the gate's data changed since each check that records hold a current pass of, by
    # the check's pk (``passes.pass_changes``): a record whose pass no change affects is
    # planned without the gate.
    passes: dict = field(default_factory=dict)


@dataclass
class PlannedBatch:
    """A batch of records, decided. ``rows`` (fresh rows, ``ROW_VALUES``), ``reused``
    (``WEEKLY_VALUES`` of rows copied from their last issue) and ``digests``
    (``DIGEST_VALUES`` of every published row) are lists of tuples, or their COPY encoding."""

    rows: Any
    reused: Any
    digests: Any
    cells: Counter = field(default_factory=Counter)
    withheld: list[tuple[int, str, list[str]]] = field(default_factory=list)
    records: int = 0
    published: int = 0
    new: int = 0
    reused_count: int = 0
    # Records whose digest held but that a change of the gate's data had planned again.
    affected: int = 0
    # Records planned afresh without the gate, on the strength of their pass.
    passed: int = 0


def for_planning(row: tuple, change: GateChange) -> tuple:
    """A candidate (``Candidate`` values) as the planner receives it: cut to
    ``WEEKLY_LENGTH`` when its row is reused and no change of the gate's data can affect it;
    else whole (the planner asks ``change`` whether it affects a reusable record, and plans it
    afresh if so: in the planning workers, beside the plans, not in the process that reads)."""
    if row[DIGEST_AT] == row[LAST_DIGEST_AT] and not change.any:
        return row[:WEEKLY_LENGTH]
    return row


def batched(iterable: Iterable, size: int) -> Iterator[list]:
    iterator = iter(iterable)
    while chunk := list(islice(iterator, size)):
        yield chunk


def reason_kind(reason: str) -> str:
    return reason.split(":", 1)[0]


def plan_record(
    tender,
    *,
    category: CategoryNames,
    generated: datetime,
    rates: dict,
    secret: str,
    in_previous: bool,
    gate: Gate = NO_DIRECTORY,
    passed: bool = False,
) -> Planned:
    """Decide one eligible record: the public row values, or why it is withheld.

    ``tender`` is anything with the ``CANDIDATE_FIELDS`` attributes (a SourceTender or a
    Candidate); ``category`` anything with a slug and the three names. ``passed``: the record
    holds a pass of the gate that nothing since affects (``publication.passes``), so the gate
    is not asked again.
    """
    if tender.status == WITHHELD:
        reason = f"withheld by staff: {tender.withheld_reason}"
        return Planned(tender.pk, tender.listing_id, None, None, [reason])
    reasons = []
    summaries = {"en": tender.summary_en, "zh": tender.summary_zh, "zht": tender.summary_zht}
    if not all(s.strip() for s in summaries.values()):
        reasons.append("missing summary: all three summaries are required")
    if not passed:
        # The same check approval makes (contact names from the notice too).
        reasons += [f"sanitization: {f.describe()}" for f in gate.scan_record(tender, summaries)]
    try:
        band, bucket, new = weekly_parts(tender, generated, rates, in_previous)
    except buckets.MissingRate as exc:
        reasons.append(f"missing rate: {exc}")
    if reasons:
        return Planned(tender.pk, tender.listing_id, None, None, reasons)
    values = (
        sort_key(tender.listing_id, secret),
        tender.listing_id,
        tender.market,
        category.slug,
        category.name_en,
        category.name_zh,
        category.name_zht,
        tender.summary_en,
        tender.summary_zh,
        tender.summary_zht,
        band,
        bucket,
        tender.lead_ok,
        new,
        *search_columns(
            tender.summary_en,
            tender.summary_zh,
            tender.summary_zht,
            repeated=(category.name_en, category.name_zh, category.name_zht),
        ),
    )
    return Planned(
        tender.pk, tender.listing_id, values, cell_of(tender, category, band, bucket, new), []
    )


def weekly_parts(tender, generated: datetime, rates: dict, in_previous: bool) -> tuple:
    """``(value_band, closing_bucket, new_this_issue)``: the parts of a row that change from
    week to week, recomputed even for a reused row. Raises ``buckets.MissingRate``."""
    band = buckets.value_band(tender.amount, tender.currency, rates)
    return band, buckets.closing_bucket(tender.deadline, generated), not in_previous


def cell_of(tender, category: CategoryNames, band: str | None, bucket: str, new: bool) -> tuple:
    """The row's filter combination, in ``IssueCount`` field order."""
    return (tender.market, category.slug, bucket, band, tender.lead_ok, new)


def plan_batch(context: PlanContext, rows: Iterable[tuple]) -> PlannedBatch:
    """Decide a batch of records (``Candidate`` values; reusable ones cut to
    ``WEEKLY_LENGTH``): fresh rows planned in full, reused ones only their weekly parts."""
    fresh, reused, digests = [], [], []
    batch = PlannedBatch(fresh, reused, digests)
    change = context.change or NO_CHANGE
    for row in rows:
        tender = Candidate(*row)
        category = context.categories[tender.category_id]
        batch.records += 1
        reusable = tender.reusable
        if reusable and change.any and change.affects(tender):
            batch.affected += 1
            reusable = False
        if reusable:
            try:
                band, bucket, new = weekly_parts(
                    tender, context.generated, context.rates, tender.in_previous
                )
            except buckets.MissingRate as exc:
                reasons = [f"missing rate: {exc}"]
            else:
                reasons, cell = [], cell_of(tender, category, band, bucket, new)
                reused.append((tender.listing_id, band, bucket, new))
                batch.reused_count += 1
        else:
            passed = context.passes.get(tender.passed) if tender.passed is not None else None
            trusted = passed is not None and not passed.affects(tender)
            batch.passed += trusted
            planned = plan_record(
                tender,
                category=category,
                generated=context.generated,
                rates=context.rates,
                secret=context.secret,
                in_previous=tender.in_previous,
                gate=context.gate,
                passed=trusted,
            )
            reasons, cell = planned.reasons, planned.cell
            if planned.values is not None:
                fresh.append(planned.values)
        if reasons:
            batch.withheld.append((tender.pk, tender.listing_id, reasons))
            continue
        digests.append((tender.pk, tender.digest))
        batch.cells[cell] += 1
        batch.published += 1
        batch.new += cell[-1]
    if context.encoded:
        batch.rows = pgcopy.encode(fresh, ROW_KINDS)
        batch.reused = pgcopy.encode(reused, WEEKLY_KINDS)
        batch.digests = pgcopy.encode(digests, DIGEST_KINDS)
    return batch


_worker_context: PlanContext | None = None


def _start_worker(context: PlanContext) -> None:
    global _worker_context
    _worker_context = context


def _plan_in_worker(rows: list[tuple]) -> PlannedBatch:
    return plan_batch(_worker_context, rows)


class BatchPlanner:
    """Plans batches in order, in ``workers`` processes (0: in this process).

    At most two batches per worker are in flight: the reader waits for the oldest before it
    reads more, which bounds memory whatever the size of the feed.
    """

    def __init__(self, context: PlanContext, workers: int):
        self.context = context
        self.workers = workers
        self.pool = None

    def __enter__(self) -> "BatchPlanner":
        if self.workers > 0:
            # spawn, not fork: a forked child would share the parent's database socket.
            spawn = multiprocessing.get_context("spawn")
            self.pool = spawn.Pool(self.workers, _start_worker, (self.context,))
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()

    def plan(self, batches: Iterable[list[tuple]]) -> Iterator[PlannedBatch]:
        if self.pool is None:
            for rows in batches:
                yield plan_batch(self.context, rows)
            return
        window: deque = deque()
        for rows in batches:
            window.append(self.pool.apply_async(_plan_in_worker, (rows,)))
            if len(window) >= 2 * self.workers:
                yield window.popleft().get()
        while window:
            yield window.popleft().get()

"""Planning a publication: the pure decision for each eligible record, in batches.

``plan_record`` turns one private record into its public row values (or the reasons to
withhold it): the sanitization gate, buckets, the sort key and the search columns. It reads no
database, so large publications plan batches in worker processes while the main process keeps
reading source records and loading rows. The planner keeps only a small window of batches in
flight, so memory does not grow with the number of records, and returns batches in order, so
the result is the same as planning in one process.

Workers import no Django: records, categories and rates travel as plain values.
"""

import multiprocessing
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from itertools import islice
from typing import NamedTuple

from .. import buckets
from ..ids import sort_key
from ..sanitize import NO_DIRECTORY, Gate, RecordSecrets
from ..search import search_columns

WITHHELD = "withheld"  # SourceTender.Status.WITHHELD, without importing the models

# The fields of a source record that planning reads, in the order rows are streamed.
CANDIDATE_FIELDS = (
    "pk",
    "listing_id",
    "status",
    "withheld_reason",
    "market",
    "category_id",
    "buyer_name",
    "reference",
    "source_url",
    "title",
    "description",
    "deadline",
    "amount",
    "currency",
    "summary_en",
    "summary_zh",
    "summary_zht",
    "lead_ok",
)


class Candidate(NamedTuple):
    """One eligible source record as publication streams it (plain values, picklable)."""

    pk: int
    listing_id: str
    status: str
    withheld_reason: str
    market: str
    category_id: int
    buyer_name: str
    reference: str
    source_url: str
    title: str
    description: str
    deadline: datetime
    amount: Decimal | None
    currency: str
    summary_en: str
    summary_zh: str
    summary_zht: str
    lead_ok: bool
    in_previous: bool


assert Candidate._fields == (*CANDIDATE_FIELDS, "in_previous")

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
) -> Planned:
    """Decide one eligible record: the public row values, or why it is withheld.

    ``tender`` is anything with the ``CANDIDATE_FIELDS`` attributes (a SourceTender or a
    Candidate); ``category`` anything with a slug and the three names.
    """
    if tender.status == WITHHELD:
        reason = f"withheld by staff: {tender.withheld_reason}"
        return Planned(tender.pk, tender.listing_id, None, None, [reason])
    reasons = []
    summaries = {"en": tender.summary_en, "zh": tender.summary_zh, "zht": tender.summary_zht}
    if not all(s.strip() for s in summaries.values()):
        reasons.append("missing summary: all three summaries are required")
    # The same secrets the admin checks with (contact names from the notice too).
    secrets = RecordSecrets.of(tender)
    reasons += [
        f"sanitization: {f.describe()}" for f in gate.scan(summaries, secrets, record=tender.pk)
    ]
    try:
        band = buckets.value_band(tender.amount, tender.currency, rates)
    except buckets.MissingRate as exc:
        reasons.append(f"missing rate: {exc}")
        band = None
    if reasons:
        return Planned(tender.pk, tender.listing_id, None, None, reasons)
    bucket = buckets.closing_bucket(tender.deadline, generated)
    new = not in_previous
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
            category.name_en,
            category.name_zh,
            category.name_zht,
        ),
    )
    cell = (tender.market, category.slug, bucket, band, tender.lead_ok, new)
    return Planned(tender.pk, tender.listing_id, values, cell, [])


def plan_batch(context: PlanContext, rows: Iterable[Candidate]) -> list[Planned]:
    return [
        plan_record(
            row,
            category=context.categories[row.category_id],
            generated=context.generated,
            rates=context.rates,
            secret=context.secret,
            in_previous=row.in_previous,
            gate=context.gate,
        )
        for row in rows
    ]


_worker_context: PlanContext | None = None


def _start_worker(context: PlanContext) -> None:
    global _worker_context
    _worker_context = context


def _plan_in_worker(rows: list[Candidate]) -> list[Planned]:
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

    def plan(self, batches: Iterable[list[Candidate]]) -> Iterator[list[Planned]]:
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

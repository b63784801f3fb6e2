"""The search postings of an issue in the database: built after publication (the job
``tenders.tasks.postings_build_task``, the command ``build_search_postings``), read by the
count of a ``q`` (``tenders.read.selectors``). The pure part is ``tenders.read.postings``."""

import logging
import time
from collections.abc import Callable

from django.db import connection, transaction
from django.db.models import Q
from django.db.models.functions import Length

from tenders.models import Issue, IssueCount, SearchPosting, SearchPostings, SnapshotRow
from tenders.models.feed import CELL_FIELDS  # a row's cell, as IssueCount counts it
from tenders.read import postings, replicas

log = logging.getLogger(__name__)

PROGRESS_EVERY = 50_000
WRITE_BYTES = 16 << 20  # postings written per INSERT, about
# The most postings one count reads (128 bitmaps of a million rows, 4 million ordinals);
# beyond, the rows are counted instead.
READ_LIMIT = 16 << 20


class PostingsError(Exception):
    """The snapshot's rows disagree with its counts: the postings would count wrong."""


Progress = Callable[[str, int, int], None]


def build_postings(issue: Issue, *, progress: Progress | None = None) -> SearchPostings | None:
    """Build and store the postings of ``issue``'s snapshot; None when the issue no longer
    has that snapshot when the build ends (withdrawn, replaced, discarded): nothing is kept."""
    started = time.monotonic()
    issue.refresh_from_db()
    etag = issue.snapshot_etag
    if not etag or issue.rows_pruned:
        return None
    cells = {
        tuple(values[1:-1]): (values[0], values[-1])
        for values in IssueCount.objects.filter(issue=issue).values_list("pk", *CELL_FIELDS, "rows")
    }
    n = sum(rows for _, rows in cells.values())
    if n != issue.rows_total:
        raise PostingsError(f"issue #{issue.pk}: its counts sum to {n:,}, not {issue.rows_total:,}")
    # Cell i (IssueCount primary key order) owns ordinals [start_i, start_i + rows_i).
    layout = sorted([pk, rows] for pk, rows in cells.values())
    starts, start = {}, 0
    for pk, rows in layout:
        starts[pk] = start
        start += rows
    slot = {cell: starts[pk] for cell, (pk, _) in cells.items()}  # the next free ordinal
    ending = {cell: starts[pk] + rows for cell, (pk, rows) in cells.items()}
    builder = postings.Builder(n)
    # Read in the table's order: ordinals need no order, and sorting would cost more.
    texts = SnapshotRow.objects.filter(issue=issue).order_by()
    texts = texts.values_list(*CELL_FIELDS, "search_text").iterator(chunk_size=2000)
    for read, values in enumerate(texts, 1):
        cell = values[:-1]
        ordinal = slot.get(cell)
        if ordinal is None or ordinal >= ending[cell]:
            raise PostingsError(f"issue #{issue.pk}: more rows in cell {cell} than its count")
        slot[cell] = ordinal + 1
        builder.add(ordinal, values[-1])
        if progress and read % PROGRESS_EVERY == 0:
            progress("read rows", read, n)
    short = [cell for cell, ordinal in slot.items() if ordinal != ending[cell]]
    if short:
        raise PostingsError(f"issue #{issue.pk}: fewer rows than its count in cell {short[0]}")
    stored = builder.finish()
    if progress:
        progress("read rows", n, n)
    return _store(issue, etag, n, layout, stored, started, progress)


def _store(issue, etag, n, layout, stored, started, progress) -> SearchPostings | None:
    with transaction.atomic():
        # Whoever switches the snapshot waits for this row lock, so the etag cannot change
        # under the postings being written.
        if not Issue.objects.select_for_update().filter(pk=issue.pk, snapshot_etag=etag).exists():
            return None
        SearchPostings.objects.filter(issue=issue).delete()
        SearchPosting.objects.filter(issue=issue).delete()
        batch, size, written = [], 0, 0
        for key, (dense, blob) in stored.items():
            batch.append(
                SearchPosting(issue=issue, snapshot_etag=etag, key=key, dense=dense, ords=blob)
            )
            size += len(blob) + len(key)
            if size >= WRITE_BYTES or len(batch) >= 5000:
                SearchPosting.objects.bulk_create(batch)
                written += len(batch)
                batch, size = [], 0
                if progress:
                    progress("write postings", written, len(stored))
        SearchPosting.objects.bulk_create(batch)
        if progress:
            progress("write postings", len(stored), len(stored))
        done = SearchPostings.objects.create(
            issue=issue,
            snapshot_etag=etag,
            scheme=postings.SCHEME,
            rows=n,
            keys=len(stored),
            cells=layout,
            seconds=round(time.monotonic() - started, 3),
        )
    # Postings nobody counts from any more: those of issues no longer current.
    others = ~Q(issue=issue) & Q(issue__is_current=False)
    SearchPostings.objects.filter(others).delete()
    SearchPosting.objects.filter(others).delete()
    if connection.vendor == "postgresql":
        # Statistics of the new keys now, so that the planner finds a term's keys by trigrams
        # rather than by reading every key of the issue.
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {SearchPosting._meta.db_table}")
    return done


def built(issue: Issue) -> Q:
    """The postings the counts of ``issue`` may use (of ``SearchPostings``)."""
    return Q(issue=issue, snapshot_etag=issue.snapshot_etag, scheme=postings.SCHEME)


def postings_count(issue: Issue, terms: tuple[str, ...], cell_filter: Q) -> int | None:
    """The exact number of rows of ``issue`` in the cells ``cell_filter`` selects that hold
    every term, from the postings; None when they cannot say (not built for this snapshot
    with this scheme of keys, or a term without a plan): then the rows are counted."""
    plans = postings.plans_of(terms)
    if plans is None:
        return None
    ready = SearchPostings.objects.filter(built(issue)).values_list("rows", "cells").first()
    if ready is None:
        return None
    n, layout = ready
    cells = IssueCount.objects.using(replicas.alias_for(issue)).filter(issue=issue)
    chosen = cells.filter(cell_filter).values_list("pk", flat=True)
    spans = postings.ranges(layout, chosen)
    if not spans:
        return 0
    wanted = Q(key__in=[plan.key for plan in plans if plan.key is not None])
    for plan in plans:
        if plan.inside is not None:
            wanted |= Q(key__contains=plan.inside)
    keys = SearchPosting.objects.filter(issue=issue, snapshot_etag=issue.snapshot_etag)
    sizes = dict(keys.filter(wanted).annotate(size=Length("ords")).values_list("key", "size"))
    taken = [key for key in sizes if any(plan.takes(key) for plan in plans)]
    if sum(sizes[key] for key in taken) > READ_LIMIT:
        return None  # a short word in thousands of keys: reading the rows costs less
    found = keys.filter(key__in=taken).values_list("key", "dense", "ords")
    return postings.count(postings.term_masks(plans, list(found), n), n, spans)

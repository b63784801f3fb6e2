"""Reads of the public side: the one implementation behind REST, the flat file, MCP tools and
the people's pages.

Every function here returns exactly the body a public surface serves (``{data, meta}``), or
its bytes ready to send (the ``*_answer`` functions), or raises ``core.errors.ApiError``;
interfaces only translate. Nothing here touches private models: rows come from the current
snapshot, totals from the counts written at publication, and the category vocabulary from the
issue's facets.

Answers go through the answer cache (``tenders.read.answers``), keyed by the snapshot and the
canonical request, so a repeated request costs no query: which issue is current is known in
process and told of switches (``tenders.read.current``). A request computed afresh costs a small
constant number of queries whatever the page size or depth: on a first page the total (a sum
over the per-combination counts written at publication, or for ``q`` a count cached per
snapshot and filters; later pages take it from the cursor), the planner settings for the page
(see ``_read_page``) and the page itself, read by keyset on ``sort_key``.
"""

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NoReturn

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import DatabaseError
from django.db.models import Sum
from django.utils import timezone

from core.database import answer_within_at_least, server_settings
from core.errors import ApiError
from tenders import ids
from tenders.calendar import rfc3339
from tenders.models import Issue, IssueCount, SnapshotRow
from tenders.read import answers, current, cursors, health, replicas
from tenders.read.answers import Answer
from tenders.read.filters import RowFilterSet, TenderFilterSet
from tenders.read.postings_store import postings_count
from tenders.read.query import REST, ListQuery, Surface, Vocabulary
from tenders.read.rows import ROW_COLUMNS, SCHEMA_NAME, collapse, row_from_values

log = logging.getLogger(__name__)

ACCESS = "public"
ACCESS_PATH = "/access/"
NOT_FOUND_MESSAGE = (
    "No listing with this id in the current issue. Listing ids look like {example}; "
    "rows come and go with each weekly issue, and {listing} lists the current ones."
)
EXAMPLE_ID = "AT-7K2M9Q4XZC"
GATED_MESSAGE = (
    "Field-level detail (spec-coded packages) is gated: a private beta for approved "
    "counterparties. Ask for access with a portal account, or with the request_tender_access "
    "tool on the MCP server at /mcp; access_url explains both."
)


def current_issue(*, naming: Collection[str] = ()) -> Issue | None:
    """The issue every public surface serves, or None before the first publication.

    ``naming``: the snapshot etags the request names (``If-None-Match``); when the current
    snapshot known in process is not among them, the database is asked before the request is
    answered (a process that has not yet heard of a switch answers a client that has)."""
    return current.current_issue(naming=naming)


def nothing_published(surface: Surface = REST) -> ApiError:
    """The 503 before the first issue, with what the caller can do meanwhile on its surface."""
    return ApiError(503, "service_unavailable", str(surface.unpublished))


def require_current_issue(surface: Surface = REST, *, naming: Collection[str] = ()) -> Issue:
    issue = current_issue(naming=naming)
    if issue is None:
        raise nothing_published(surface)
    return issue


def snapshot_meta(issue: Issue) -> dict:
    return {
        "issue_id": issue.issue_id,
        "generated": rfc3339(issue.generated),
        "snapshot_etag": issue.snapshot_etag,
        "access": ACCESS,
    }


def vocabulary(issue: Issue) -> Vocabulary:
    return current.vocabulary(issue)


def _key(issue: Issue, kind: str, canonical: str) -> str:
    return answers.key(issue.pk, issue.snapshot_etag, kind, canonical)


# --- the listing ------------------------------------------------------------------------


@dataclass(frozen=True)
class ListPlan:
    """A validated listing request against one snapshot, ready to run."""

    issue: Issue
    query: ListQuery
    after: str | None = None
    total: int | None = None

    def canonical(self) -> str:
        """The request as the answer cache knows it: everything the page depends on."""
        query = self.query
        return (
            f"{query.filters_key()}|lang={query.lang}|limit={query.limit}"
            f"|after={self.after}|total={self.total}"
        )


def plan_list(params: Mapping[str, Any], issue: Issue, surface: Surface = REST) -> ListPlan:
    """Validate parameters and cursor against ``issue``; no database access, except for a
    cursor of another snapshot when ``issue`` is what this process found current: then the
    database says which issue is current, and the plan is of that issue if the cursor is
    (this process had not yet heard of the switch). The one place where a cursor meets the
    current issue, for every surface; the plan's issue is the one to answer with.

    Order of checks: parameters (400 invalid_parameter), the cursor's signature (400
    invalid_cursor), its snapshot (409 snapshot_changed: whatever else is wrong, the client
    must restart anyway), its filters (400 invalid_cursor).
    """
    cursor = decoded_cursor(params.get("cursor"))
    if cursor is not None:
        issue = current.recheck(issue, cursor.snapshot_etag)
    query = TenderFilterSet(params, vocabulary=vocabulary(issue), surface=surface).query
    if query.cursor is None:
        return ListPlan(issue, query)
    if cursor is None:
        raise ApiError(
            400,
            "invalid_cursor",
            "cursor is not valid: it was altered, cut short or not made by this service. "
            "Pass meta.next_cursor back unchanged, or leave cursor out to start again.",
            param="cursor",
        )
    if (cursor.issue_pk, cursor.snapshot_etag) != (issue.pk, issue.snapshot_etag):
        raise ApiError(
            409,
            "snapshot_changed",
            f"The feed was republished after this cursor was made (now issue {issue.issue_id}, "
            f"snapshot {issue.snapshot_etag}). Start again from the first page without cursor.",
            param="cursor",
        )
    if cursor.filters != cursors.fingerprint(query.filters_key()):
        raise ApiError(
            400,
            "invalid_cursor",
            "This cursor belongs to other filters. Send it with the same filters as the page "
            "that gave it, or leave cursor out to start again.",
            param="cursor",
        )
    return ListPlan(issue, query, cursor.after, cursor.total)


def decoded_cursor(token: Any) -> cursors.Cursor | None:
    """The cursor parameter decoded, read as ``TenderFilterSet`` reads it; else None (its
    checks, in their order, say what is wrong)."""
    if isinstance(token, (list, tuple)) and len(token) == 1:
        token = token[0]
    if not isinstance(token, str):
        return None
    try:
        return cursors.decode(token)
    except cursors.CursorError:
        return None


def list_tenders(
    params: Mapping[str, Any], *, issue: Issue | None = None, surface: Surface = REST
) -> dict:
    """One page of the listing: ``{data, meta}`` exactly as REST and the MCP tool serve it."""
    return list_answer(params, issue=issue, surface=surface).data()


def list_answer(
    params: Mapping[str, Any], *, issue: Issue | None = None, surface: Surface = REST
) -> Answer:
    """The bytes of ``list_tenders``; the same page from every surface is one cache entry."""
    return plan_answer(plan_list(params, issue or require_current_issue(surface), surface))


def plan_answer(plan: ListPlan) -> Answer:
    """The bytes of the page ``plan`` asks for."""
    issue = plan.issue
    return answers.answer(
        _key(issue, "list", plan.canonical()), lambda: Answer(answers.encode(run_list(plan)))
    )


def run_list(plan: ListPlan) -> dict:
    issue, query = plan.issue, plan.query
    total = plan.total if plan.total is not None else _count(issue, query)
    page = _read_page(plan, total) if total else []
    more = len(page) > query.limit
    page = page[: query.limit]
    data = [row_from_values(values) for values in page]
    if query.lang:
        data = [collapse(row, query.lang) for row in data]
    next_cursor = None
    if more:
        next_cursor = cursors.encode(
            cursors.Cursor(
                issue_pk=issue.pk,
                snapshot_etag=issue.snapshot_etag,
                filters=cursors.fingerprint(query.filters_key()),
                after=page[-1][ROW_COLUMNS.index("sort_key")],
                total=total,
            )
        )
    meta = {"total": total, "returned": len(data), "next_cursor": next_cursor}
    meta.update(snapshot_meta(issue))
    if query.lang:
        meta["lang"] = query.lang
    return {"data": data, "meta": meta}


# How a page is read is decided from the exact number of matching rows, which we know (the
# planner only estimates it, and for substring search its estimate is often off a hundredfold):
# - a query matching at least WALK_SHARE of the snapshot walks the primary key in sort_key
#   order and stops after one page: about 1/WALK_SHARE rows visited per row served;
# - a rarer one collects its matches through the filter and search indexes and sorts them:
#   at most WALK_SHARE of the snapshot, fewer on later pages.
# Either way a page costs the same on page 1 as on page 1,000, whatever the planner guesses.
# A page is a small read: JIT compilation and parallel workers (which a misestimate can
# trigger) would cost more than they save.
WALK_SHARE = 0.01
SMALL_READ = {"jit": "off", "max_parallel_workers_per_gather": "0"}
WALK = {**SMALL_READ, "enable_bitmapscan": "off", "enable_seqscan": "off", "enable_sort": "off"}
COLLECT = {**SMALL_READ, "enable_indexscan": "off", "enable_seqscan": "off"}


def _read_page(plan: ListPlan, total: int) -> list[tuple]:
    using = replicas.alias_for(plan.issue)
    rows = SnapshotRow.objects.using(using).filter(issue=plan.issue)
    rows = rows.filter(plan.query.row_filter())
    if plan.after is not None:
        rows = rows.filter(sort_key__gt=plan.after)
    page = rows.order_by("sort_key").values_list(*ROW_COLUMNS)[: plan.query.limit + 1]
    planner = WALK if total >= WALK_SHARE * plan.issue.rows_total else COLLECT
    with server_settings(planner, using=using):
        values = list(page)
    return values


def _count(issue: Issue, query: ListQuery) -> int:
    if not query.q:
        cells = IssueCount.objects.using(replicas.alias_for(issue)).filter(issue=issue)
        cells = cells.filter(query.cell_filter())
        return cells.aggregate(n=Sum("rows"))["n"] or 0

    # Counted once per snapshot and filters: other languages and page sizes share it.
    def count() -> Answer:
        # From the snapshot's search postings when they are built and cover every term.
        total = postings_count(issue, query.q, query.cell_filter())
        if total is not None:
            return Answer(answers.encode(total))
        rows = SnapshotRow.objects.using(replicas.alias_for(issue)).filter(issue=issue)
        rows = rows.filter(query.row_filter())
        # A term in nearly every row is counted by reading them all (about a second at a
        # million rows): let it finish, as every later request is answered from it.
        with answer_within_at_least(settings.DATABASE_ANSWER_LIMITS["search count"]):
            return Answer(answers.encode(rows.count()))

    return answers.answer(_key(issue, "count", query.filters_key()), count).data()


# --- one row, facets, the flat file, the gated tier -------------------------------------


def find_row(at_id: str, issue: Issue) -> dict | None:
    if not ids.is_listing_id(at_id):
        return None
    values = list(
        SnapshotRow.objects.using(replicas.alias_for(issue))
        .filter(issue=issue, asaptic_id=at_id)
        .values_list(*ROW_COLUMNS)[:1]
    )
    return row_from_values(values[0]) if values else None


def not_found(issue: Issue, surface: Surface = REST) -> ApiError:
    """The one 404 of a row: the same bytes for every absent id, whatever the reason.

    The example is a real id of the snapshot, so it shows the feed's own id form."""
    first = SnapshotRow.objects.using(replicas.alias_for(issue)).filter(issue=issue)
    first = first.order_by("sort_key")
    return row_not_found(first.values_list("asaptic_id", flat=True).first(), surface)


def row_not_found(example: str | None, surface: Surface = REST) -> ApiError:
    message = NOT_FOUND_MESSAGE.format(example=example or EXAMPLE_ID, listing=surface.listing)
    return ApiError(404, "not_found", message)


def get_tender(
    at_id: str,
    params: Mapping[str, Any] | None = None,
    *,
    issue: Issue | None = None,
    surface: Surface = REST,
) -> dict:
    """One row of the current snapshot as ``{data, meta}``; 404 ``not_found`` otherwise.

    ``params`` are the row's parameters (only ``lang``), as REST or a tool receives them.
    """
    return tender_answer(at_id, params, issue=issue, surface=surface).data()


def tender_answer(
    at_id: str,
    params: Mapping[str, Any] | None = None,
    *,
    issue: Issue | None = None,
    surface: Surface = REST,
) -> Answer:
    """The bytes of ``get_tender`` (a 404 names the surface's listing, so it is the
    surface's own entry)."""
    lang = RowFilterSet(params or {}, surface=surface).language()
    issue = issue or require_current_issue(surface)

    def one_row() -> Answer:
        row = find_row(at_id, issue)
        if row is None:
            raise not_found(issue, surface)
        meta = snapshot_meta(issue)
        if lang:
            row = collapse(row, lang)
            meta["lang"] = lang
        return Answer(answers.encode({"data": row, "meta": meta}))

    return answers.answer(_key(issue, "row", f"{at_id}|{lang}|{surface.listing}"), one_row)


# Facet groups and item keys in the order they are served (jsonb storage does not keep order).
FACET_KEYS = {
    "markets": ("code", "name_en", "name_zh", "name_zht", "count"),
    "categories": ("slug", "name_en", "name_zh", "name_zht", "count"),
    "closing_buckets": ("value", "count"),
    "value_bands": ("value", "count"),
}


def tender_facets(
    *, issue: Issue | None = None, now: datetime | None = None, surface: Surface = REST
) -> dict:
    """Vocabulary and counts of the current snapshot, as computed at its publication, and the
    feed's state (so an agent sees freshness without asking for health)."""
    return facets_answer(issue=issue, now=now, surface=surface).data()


def facets_answer(
    *, issue: Issue | None = None, now: datetime | None = None, surface: Surface = REST
) -> Answer:
    """The bytes of ``tender_facets``: one entry while the feed is fresh, one after."""
    issue = issue or require_current_issue(surface)
    now = now or timezone.now()
    return answers.answer(
        _key(issue, "facets", f"fresh={is_fresh(issue, now)}"),
        lambda: Answer(answers.encode(facets_body(issue, now))),
    )


def facets_body(issue: Issue, now: datetime | None = None) -> dict:
    """The body of ``tender_facets`` for ``issue``, computed (no cache, no database)."""
    fresh = is_fresh(issue, now)
    data = {
        group: [{key: item[key] for key in keys} for item in issue.facets.get(group, ())]
        for group, keys in FACET_KEYS.items()
    }
    meta = snapshot_meta(issue)
    meta.update(
        status="ok" if fresh else "degraded",
        feed_fresh=fresh,
        rows_total=issue.rows_total,
        withheld=issue.withheld,
    )
    return {"data": data, "meta": meta}


def open_flat_file(issue: Issue):
    """The stored gzip of the issue's flat file, opened for streaming."""
    try:
        return default_storage.open(issue.flat_file, "rb")
    except (OSError, ValueError):
        log.exception("flat file %r of issue #%s is missing", issue.flat_file, issue.pk)
        raise ApiError(
            503, "service_unavailable", "The flat file is not available right now; try again later."
        ) from None


def spec_coded(at_id: str, *, base_url: str | None = None) -> NoReturn:
    """Spec-coded detail: always gated, for every id, so the answer reveals nothing.

    ``access_url`` is absolute: ``base_url`` (scheme and host the caller was reached at), else
    the ``PUBLIC_BASE_URL`` setting.
    """
    access_url = f"{base_url or settings.PUBLIC_BASE_URL}{ACCESS_PATH}"
    raise ApiError(403, "SPEC_CODED_GATED", GATED_MESSAGE, extra={"access_url": access_url})


def is_fresh(issue: Issue, now: datetime | None = None) -> bool:
    """Whether the issue is recent enough to call the feed ok (else it is degraded)."""
    age = (now or timezone.now()) - issue.generated
    return age <= timedelta(days=settings.TENDERS_FEED_FRESH_DAYS)


def feed_health(now: datetime | None = None) -> dict:
    """The health record. Never raises: a database that does not answer is ``unavailable``."""
    now = now or timezone.now()
    try:
        # Always asked: health reports the database's state, not what this process knows.
        issue = current.current_issue(fresh=True)
    except DatabaseError as error:
        detail = (str(error).strip().splitlines() or [repr(error)])[0]
        log.warning("health: the database does not answer (%s)", detail)
        return health_record(None, now, [health.database_unavailable()])
    if issue is None:
        return health_record(None, now, [health.nothing_published()])
    return health_record(issue, now, health.degraded_reasons(issue, now))


def health_record(
    issue: Issue | None, now: datetime | None = None, reasons: list[dict] | None = None
) -> dict:
    """The health record of ``issue`` (None: nothing to serve). ``reasons``
    (``tenders.read.health``) make an ok feed degraded; the member appears only when the status
    is not ok."""
    record = {
        "status": "unavailable",
        "rows_total": 0,
        "issue_id": None,
        "generated": None,
        "feed_fresh": False,
        "schema": SCHEMA_NAME,
    }
    if issue is None:
        if reasons:
            record["reasons"] = reasons
        return record
    fresh = is_fresh(issue, now)
    record.update(
        status="ok" if fresh and not reasons else "degraded",
        rows_total=issue.rows_total,
        issue_id=issue.issue_id,
        generated=rfc3339(issue.generated),
        feed_fresh=fresh,
    )
    if reasons:
        record["reasons"] = reasons
    return record

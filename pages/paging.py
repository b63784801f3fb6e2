"""Next, previous and first page for people, over the API's own cursors. Pure.

The API's cursor only goes forward. A page's links carry, besides the filters and its cursor,
the trail of cursors that led to it (``back``, oldest first) and its number (``page``), so
"previous" is the last cursor of the trail. Nothing here decodes a cursor: a cursor taken from
the trail is checked by the selector like any other when it is followed, so a forged or stale
trail leads to the listing's own ``invalid_cursor`` or ``snapshot_changed`` answer.

Links must stay short, since servers refuse long request lines (gunicorn at 4,094 bytes), and
a cursor is over a hundred characters, more with a long ``q``. A link keeps only the most recent
cursors that fit in ``MAX_QUERY`` characters; a page whose trail was cut short offers the first
page instead of the previous one.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from tenders.read.query import PAGES

PAGE_SIZE = PAGES.default_limit
MAX_QUERY = 2500
NAVIGATION = ("page", "back")
_CURSOR_TEXT = re.compile(r"^[A-Za-z0-9_-]+$")
_MAX_PAGE = 10**7


@dataclass(frozen=True)
class Position:
    """Where a page is: its number (None when unknown, e.g. a cursor pasted from the API), its
    cursor (None on the first page) and the cursors of the pages before it that are known."""

    number: int | None = 1
    cursor: str | None = None
    trail: tuple[str, ...] = ()


def split_navigation(params: Mapping) -> tuple[dict, Position]:
    """The listing's parameters (``cursor`` included) and the position of the page.

    ``page`` and ``back`` only label and link pages; values that cannot be ours are dropped
    rather than refused, since they never select rows.
    """
    listing = {k: v for k, v in params.items() if k not in NAVIGATION}
    cursor = listing.get("cursor")
    if not isinstance(cursor, str) or not cursor:
        return listing, Position()
    page = params.get("page")
    number = int(page) if isinstance(page, str) and page.isascii() and page.isdigit() else None
    if number is not None and not 2 <= number <= _MAX_PAGE:
        number = None
    back = params.get("back")
    trail = tuple(back.split(",")) if isinstance(back, str) and back else ()
    if not all(_CURSOR_TEXT.fullmatch(c) for c in trail):
        trail = ()
    return listing, Position(number, cursor, trail)


@dataclass(frozen=True)
class Links:
    """Query strings of the neighbouring pages; None where there is no such link."""

    first: str | None
    previous: str | None
    next: str | None


def links(filters: Mapping, position: Position, next_cursor: str | None) -> Links:
    """``filters`` are the listing's parameters without ``cursor``."""
    first = first_query(filters) if position.cursor else None
    previous = None
    if position.number == 2:
        previous = first
    elif position.cursor and position.trail:
        earlier = None if position.number is None else position.number - 1
        previous = _query(filters, position.trail[-1], earlier, position.trail[:-1])
    following = None
    if next_cursor:
        trail = (*position.trail, position.cursor) if position.cursor else ()
        number = None if position.number is None else position.number + 1
        following = _query(filters, next_cursor, number, trail)
    return Links(first=first, previous=previous, next=following)


def first_query(filters: Mapping) -> str:
    return _query(filters)


def _query(
    filters: Mapping,
    cursor: str | None = None,
    number: int | None = None,
    trail: tuple[str, ...] = (),
) -> str:
    while True:
        params = dict(filters)
        if cursor:
            params["cursor"] = cursor
            if number is not None:
                params["page"] = str(number)
            if trail:
                params["back"] = ",".join(trail)
        query = urlencode(params, doseq=True, safe=",")
        if len(query) <= MAX_QUERY or not trail:
            return query
        trail = trail[1:]

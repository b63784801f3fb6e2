"""Asking a publisher only for what is new, and where a run can resume. No database.

A configured source's run yields the readers' pieces and, after each page or file, a ``Mark``:
the state to keep once everything before it is committed. The import service saves it on the
source (``ImportSource.checkpoint``); a run that fails part-way resumes from its last mark, and a
completed run's state becomes the next run's start (``finish``).

Three ways of asking, chosen by the source:

- **an OCDS API** (an http(s) address): pages follow ``links.next``; with
  ``options.since_param`` (Find a Tender's ``updatedFrom``, Contracts Finder's and NSW's
  ``publishedFrom``) only a window is asked for, starting where the last completed run asked,
  less ``overlap_minutes``; a page's cursor that the publisher no longer accepts (expired)
  restarts the same window;
- **TED's search, then each notice** (format ``ted``): an expert query limited to notices
  published since the window's day, paged by iteration token, each notice's eForms XML fetched
  on its own;
- **a file at a URL** (CanadaBuys CSV, GLD XML, a CSV or an eForms notice): asked with the
  last answer's ``ETag``/``Last-Modified``; a ``304`` reads nothing. With ``options.listing``
  the file lists every open notice, so the service closes the source's records that left it.
"""

import io
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from . import http, ted
from .notice import Failure, Piece
from .sources import CHUNK, Utf8Repair, is_url

DEFAULT_OVERLAP_MINUTES = 60
DEFAULT_FIRST_DAYS = 7
# Kept from a run to the next; the rest of a checkpoint belongs to a run under way.
KEPT = ("since", "etag", "last_modified")


@dataclass(frozen=True)
class Mark:
    """Everything read before this is whole: save ``state`` once it is committed. ``listing``:
    what came before is a whole file that lists every open notice of the source."""

    state: dict
    listing: bool = False


def with_param(url: str, name: str, value: str) -> str:
    """``url`` with its query parameter ``name`` set to ``value`` (others kept in order)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != name]
    query.append((name, value))
    return urlunsplit(parts._replace(query=urlencode(query)))


def window_start(options: dict, checkpoint: dict, now: datetime) -> datetime:
    """Where this run's window starts: the last completed run's asking time less the overlap,
    or ``first_days`` back for a source that never completed a run."""
    since = checkpoint.get("since")
    if since:
        overlap = float(options.get("overlap_minutes", DEFAULT_OVERLAP_MINUTES))
        return datetime.fromisoformat(since) - timedelta(minutes=overlap)
    return now - timedelta(days=float(options.get("first_days", DEFAULT_FIRST_DAYS)))


def since_value(moment: datetime, since_format: str) -> str:
    """The window's start as the publisher writes it (UTC): a date-time or a date."""
    utc = moment.astimezone(UTC)
    if since_format == "date":
        return utc.strftime("%Y-%m-%d")
    return utc.strftime("%Y-%m-%dT%H:%M:%S")


def finish(state: dict, *, started: datetime) -> dict:
    """The checkpoint a completed run leaves: the next window starts where this one asked."""
    kept = {k: state[k] for k in KEPT if state.get(k)}
    kept["since"] = state.get("asked_at") or started.isoformat()
    return kept


def for_new_address(checkpoint: dict) -> dict:
    """What of a checkpoint still holds once the source's address changed: only where the next
    window starts (a cursor, a token or a file's validators belong to the old address)."""
    return {"since": checkpoint["since"]} if checkpoint.get("since") else {}


def _resuming(checkpoint: dict) -> bool:
    return bool(checkpoint.get("next") and checkpoint.get("window_from"))


def pieces(
    reader,
    fmt: str,
    url: str,
    *,
    options: dict,
    checkpoint: dict,
    market: str,
    session: http.Session,
    now: datetime,
) -> Iterator[Piece | Failure | Mark]:
    """A configured source's pieces, with a ``Mark`` wherever a run may resume."""
    if fmt == "ted":
        yield from _ted(url, options, checkpoint, session, now)
    elif fmt == "ocds" and is_url(url):
        yield from _ocds_pages(reader, url, options, checkpoint, session, now)
    elif is_url(url):
        yield from _file(reader, url, checkpoint, market, session)
    else:
        yield from reader.pieces(url, market=market, session=session)
        yield Mark({})


def _window(options: dict, checkpoint: dict, now: datetime) -> tuple[str, str, str | None]:
    """(window_from, asked_at, where to resume) of this run."""
    if _resuming(checkpoint):
        return checkpoint["window_from"], checkpoint.get("asked_at", ""), checkpoint["next"]
    start = window_start(options, checkpoint, now)
    return start.isoformat(), now.isoformat(), None


def _ocds_pages(reader, url, options, checkpoint, session, now):
    """An API's pages from ``links.next``; from the window's start when the source names the
    parameter (``since_param``), else everything the address gives."""
    window_from, asked_at, resume = _window(options, checkpoint, now)
    first = url
    if options.get("since_param"):
        since = since_value(datetime.fromisoformat(window_from), options.get("since_format", ""))
        first = with_param(url, options["since_param"], since)
    page_url: str | None = resume or first
    seen: set[str] = set()
    page = 0
    while page_url:
        if page_url in seen:
            raise http.ReadError(f"{page_url} links back to a page already read; stopping there.")
        seen.add(page_url)
        page += 1
        try:
            response = session.open(page_url)
        except http.Gone:
            if page_url != resume:
                raise
            # The cursor a failed run stopped at has expired: ask the same window again (what
            # was imported is recognised, nothing is duplicated).
            yield Failure(
                f"page {page}",
                "",
                "the saved cursor has expired at the publisher; the window was read again "
                "from its start",
            )
            resume, page_url, seen = None, first, set()
            continue
        following = None
        with response:
            for item in reader.read_stream(Utf8Repair(response), f"page {page}"):
                if isinstance(item, str):
                    following = item
                else:
                    yield item
        yield Mark({"window_from": window_from, "asked_at": asked_at, "next": following})
        page_url = following


def _ted(url, options, checkpoint, session, now):
    window_from, asked_at, token = _window(options, checkpoint, now)
    day = datetime.fromisoformat(window_from).strftime("%Y%m%d")
    template = options.get("xml_url") or ted.XML_URL
    page = 0
    while True:
        page += 1
        body = ted.search_body(options.get("query", ""), since_day=day, token=token)
        try:
            response = session.open(url, data=body)
        except http.Gone:
            if token is None or token != checkpoint.get("next"):
                raise
            yield Failure(
                f"search page {page}",
                "",
                "the saved iteration token has expired at TED; the search was asked again",
            )
            token = None
            continue
        with response:
            found, following = ted.page_notices(ted.load_json(response.read()), template)
        for number, xml_url in found:
            try:
                notice = session.open(xml_url, accept="application/xml")
            except http.Gone as exc:
                yield Failure(f"notice {number}", "", f"{exc} TED found it but has no XML for it.")
                continue
            with notice:
                yield ted.notice_piece(notice.read(), f"notice {number}")
        if not found or not following:
            yield Mark({"window_from": window_from, "asked_at": asked_at, "next": None})
            return
        token = following
        yield Mark({"window_from": window_from, "asked_at": asked_at, "next": token})


def _file(reader, url, checkpoint, market, session):
    headers = {}
    if checkpoint.get("etag"):
        headers["If-None-Match"] = checkpoint["etag"]
    if checkpoint.get("last_modified"):
        headers["If-Modified-Since"] = checkpoint["last_modified"]
    try:
        response = session.open(url, accept=reader.ACCEPT, headers=headers)
    except http.NotModified:
        yield Mark({k: checkpoint.get(k) for k in ("etag", "last_modified")})
        return
    with response:
        validators: dict[str, Any] = {
            "etag": response.headers.get("ETag"),
            "last_modified": response.headers.get("Last-Modified"),
        }
        repair = getattr(reader, "REPAIR", True)
        stream = io.BufferedReader(Utf8Repair(response), CHUNK) if repair else response
        yield from reader.read(stream, url, market=market)
    yield Mark(validators, listing=True)

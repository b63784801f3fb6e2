"""Asking a publisher only for what is new. No database.

A configured source's run yields the readers' pieces and, after each page or file, a ``Mark``
(``checkpoints``): where a run that fails part-way resumes, and where the next one starts.

Three ways of asking, chosen by the source:

- **an OCDS API** (an http(s) address): pages follow ``links.next``; with
  ``options.since_param`` (Find a Tender's ``updatedFrom``, Contracts Finder's and NSW's
  ``publishedFrom``) only a window is asked for, starting where the last completed run asked,
  less ``overlap_minutes``; a page's cursor that the publisher no longer accepts (expired)
  restarts the same window;
- **TED's search, then each notice** (format ``ted``, ``ted.search_pieces``): an expert query
  limited to notices published since the window's day, paged by iteration token, each notice's
  eForms XML fetched on its own;
- **a file at a URL** (CanadaBuys CSV, GLD XML, a CSV or an eForms notice): asked with the
  last answer's ``ETag``/``Last-Modified``; a ``304`` reads nothing. With ``options.listing``
  the file lists every open notice, so the service closes the source's records that left it.
"""

import io
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from . import http, ted
from .checkpoints import Mark, window
from .notice import Failure, Piece
from .sources import CHUNK, Utf8Repair, is_url


def with_param(url: str, name: str, value: str) -> str:
    """``url`` with its query parameter ``name`` set to ``value`` (others kept in order)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != name]
    query.append((name, value))
    return urlunsplit(parts._replace(query=urlencode(query)))


def since_value(moment: datetime, since_format: str) -> str:
    """The window's start as the publisher writes it (UTC): a date-time or a date."""
    utc = moment.astimezone(UTC)
    if since_format == "date":
        return utc.strftime("%Y-%m-%d")
    return utc.strftime("%Y-%m-%dT%H:%M:%S")


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
        yield from ted.search_pieces(url, options, checkpoint, session, now)
    elif fmt == "ocds" and is_url(url):
        yield from _ocds_pages(reader, url, options, checkpoint, session, now)
    elif is_url(url):
        yield from _file(reader, url, checkpoint, market, session)
    else:
        yield from reader.pieces(url, market=market, session=session)
        yield Mark({})


def _ocds_pages(reader, url, options, checkpoint, session, now):
    """An API's pages from ``links.next``; from the window's start when the source names the
    parameter (``since_param``), else everything the address gives."""
    window_from, asked_at, resume = window(options, checkpoint, now)
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

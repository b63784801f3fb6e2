"""TED's Search API v3, then each notice's eForms XML. No database.

The search is a ``POST`` of an expert query (``https://api.ted.europa.eu/v3/notices/search``)
answering publication numbers a page at a time; in ``ITERATION`` mode each answer carries an
``iterationNextToken`` for the next page (TED documents at most 250 notices a page and no limit
on the total in this mode). Each notice's XML is a second request, to the ``links.xml.MUL``
address the answer gives or ``https://ted.europa.eu/en/notice/{number}/xml``. The XML is read
by the eForms reader, so a notice imported from TED and the same notice from a file are one
record (scheme ``eforms``). ``search_pieces`` is the fetching loop, with a ``Mark`` after each
page of the search (``checkpoints``), so a run resumes at the page it stopped.
"""

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from . import eforms, http
from .checkpoints import Mark, window
from .notice import Failure, Piece, ReadError

SEARCH_URL = "https://api.ted.europa.eu/v3/notices/search"
XML_URL = "https://ted.europa.eu/en/notice/{number}/xml"
FIELDS = ["publication-number", "publication-date"]
PAGE_SIZE = 100
ACCEPT = "application/json"
SUFFIXES = eforms.SUFFIXES

build = eforms.build


def search_body(query: str, *, since_day: str, token: str | None, limit: int = PAGE_SIZE) -> dict:
    """The search request: notices still open (``scope`` ACTIVE) published on or after
    ``since_day`` (``YYYYMMDD``) and matching ``query`` (an expert query; empty for all)."""
    window = f"publication-date >= {since_day}"
    body: dict[str, Any] = {
        "query": f"({query}) AND {window}" if query.strip() else window,
        "fields": FIELDS,
        "limit": limit,
        "scope": "ACTIVE",
        "paginationMode": "ITERATION",
        "checkQuerySyntax": False,
    }
    if token:
        body["iterationNextToken"] = token
    return body


def load_json(data: bytes) -> dict:
    try:
        answer = json.loads(data)
    except ValueError as exc:
        raise ReadError(f"TED's search answered something that is not JSON ({exc}).") from exc
    if not isinstance(answer, dict) or not isinstance(answer.get("notices"), list):
        raise ReadError("TED's search answered JSON without a notices list; check the address.")
    return answer


def _number(notice: dict) -> str:
    value = notice.get("publication-number")
    if isinstance(value, list):
        value = value[0] if value else ""
    return str(value or "").strip()


def page_notices(answer: dict, template: str = XML_URL) -> tuple[list[tuple[str, str]], str]:
    """(publication number, XML address) of each notice of a search answer, and the token of
    the next page ('' when there is none)."""
    found = []
    for notice in answer["notices"]:
        if not isinstance(notice, dict) or not _number(notice):
            continue
        number = _number(notice)
        links = notice.get("links") if isinstance(notice.get("links"), dict) else {}
        xml = links.get("xml") if isinstance(links.get("xml"), dict) else {}
        url = xml.get("MUL") if isinstance(xml.get("MUL"), str) else ""
        found.append((number, url or template.format(number=number)))
    return found, str(answer.get("iterationNextToken") or "")


def notice_piece(data: bytes, place: str) -> Piece | Failure:
    return eforms.piece(data, place)


def search_pieces(
    url: str, options: dict, checkpoint: dict, session: http.Session, now: datetime
) -> Iterator[Piece | Failure | Mark]:
    """The notices of the search at ``url`` published since the window's day, a ``Mark`` after
    each page; a resumed run starts at the page its checkpoint names."""
    window_from, asked_at, token = window(options, checkpoint, now)
    day = datetime.fromisoformat(window_from).strftime("%Y%m%d")
    template = options.get("xml_url") or XML_URL
    page = 0
    while True:
        page += 1
        body = search_body(options.get("query", ""), since_day=day, token=token)
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
            found, following = page_notices(load_json(response.read()), template)
        for number, xml_url in found:
            try:
                notice = session.open(xml_url, accept="application/xml")
            except http.Gone as exc:
                yield Failure(f"notice {number}", "", f"{exc} TED found it but has no XML for it.")
                continue
            with notice:
                yield notice_piece(notice.read(), f"notice {number}")
        if not found or not following:
            yield Mark({"window_from": window_from, "asked_at": asked_at, "next": None})
            return
        token = following
        yield Mark({"window_from": window_from, "asked_at": asked_at, "next": token})


def pieces(
    location: str,
    *,
    market: str = "",
    policy: http.HttpPolicy | None = None,
    sleep: Callable[[float], None] | None = None,
    session: http.Session | None = None,
) -> Iterator[Piece | Failure]:
    """Every open notice the search at ``location`` finds from the last week (no query; a
    configured source keeps its query and where it stopped)."""
    session = session or http.Session(policy=policy or http.HttpPolicy(), sleep=sleep)
    for item in search_pieces(location, {}, {}, session, datetime.now(UTC)):
        if not isinstance(item, Mark):
            yield item

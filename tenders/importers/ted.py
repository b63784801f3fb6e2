"""TED's Search API v3, then each notice's eForms XML. Pure parts: no database, no network.

The search is a ``POST`` of an expert query (``https://api.ted.europa.eu/v3/notices/search``)
answering publication numbers a page at a time; in ``ITERATION`` mode each answer carries an
``iterationNextToken`` for the next page (TED documents at most 250 notices a page and no limit
on the total in this mode). Each notice's XML is a second request, to the ``links.xml.MUL``
address the answer gives or ``https://ted.europa.eu/en/notice/{number}/xml``. The XML is read
by the eForms reader, so a notice imported from TED and the same notice from a file are one
record (scheme ``eforms``). The fetching loop, with its checkpoints, is ``harvest._ted``.
"""

import json
from collections.abc import Callable, Iterator
from typing import Any

from . import eforms, http
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
    from datetime import UTC, datetime

    from .harvest import Mark
    from .harvest import pieces as harvest_pieces

    session = session or http.Session(policy=policy or http.HttpPolicy(), sleep=sleep)
    found = harvest_pieces(
        None, "ted", location, options={}, checkpoint={}, market="EU", session=session,
        now=datetime.now(UTC),
    )  # fmt: skip
    for item in found:
        if not isinstance(item, Mark):
            yield item

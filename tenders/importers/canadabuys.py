"""CanadaBuys tender notices: the open-data CSV files of canadabuys.canada.ca (federal
opportunities), with their own bilingual column names. Pure: no database.

The files (``openTenderNotice-ouvertAvisAppelOffres.csv``: every open notice;
``newTenderNotice-nouvelAvisAppelOffres.csv``: today's) are UTF-8 with a byte-order mark, one row
per notice at its latest amendment, ``referenceNumber-numeroReference`` its identity. Columns
come in pairs, ``…-eng`` and ``…-fra``; multi-valued cells (GSIN and UNSPSC codes, regions) hold
one ``*``-prefixed value per line. Closing dates are local times without a zone (the market's,
America/Toronto). GSIN and UNSPSC codes go to the vocabulary through its concordances
(``vocabulary/data/gsin_cpv.tsv``, ``unspsc_cpv.tsv``).
"""

import csv
import io
from collections.abc import Callable, Iterator
from typing import Any

from . import http
from .notice import (
    TITLE_MAX,
    URL_MAX,
    Failure,
    Name,
    Notice,
    Piece,
    ReadError,
    Skip,
    parse_deadline,
    text,
)
from .sources import streams

SUFFIXES = (".csv",)
ACCEPT = "text/csv"
ID = "referenceNumber-numeroReference"
TITLE = "title-titre-{}"
CLOSING = "tenderClosingDate-appelOffresDateCloture"
PUBLISHED = "publicationDate-datePublication"
AMENDED = "amendmentDate-dateModification"
AMENDMENT = "amendmentNumber-numeroModification"
SOLICITATION = "solicitationNumber-numeroSollicitation"
STATUS = "tenderStatus-appelOffresStatut-eng"
GSIN, GSIN_TEXT = "gsin-nibs", "gsinDescription-nibsDescription-eng"
UNSPSC, UNSPSC_TEXT = "unspsc", "unspscDescription-eng"
CATEGORY = "procurementCategory-categorieApprovisionnement"
METHOD = "procurementMethod-methodeApprovisionnement-eng"
BUYER = "contractingEntityName-nomEntitContractante-{}"
END_USER = "endUserEntitiesName-nomEntitesUtilisateurFinal-{}"
CONTACT = "contactInfoName-informationsContactNom"
URL = "noticeURL-URLavis-{}"
DESCRIPTION = "tenderDescription-descriptionAppelOffres-{}"
REQUIRED = (ID, TITLE.format("eng"), CLOSING)
# procurementCategory codes: construction, goods, services, services with goods.
NATURES = {"CNST": "works", "GD": "goods", "SRV": "services", "SRVTGD": "services"}
STATES = {
    "open": "active", "active": "active", "cancelled": "cancelled", "canceled": "cancelled",
    "awarded": "awarded", "expired": "complete", "closed": "complete",
}  # fmt: skip


def values(cell: str | None) -> list[str]:
    """The values of a multi-valued cell: ``*D121\\n*D122`` -> ``['D121', 'D122']``."""
    lines = (cell or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [v.strip().lstrip("*").strip() for v in lines if v.strip().lstrip("*").strip()]


def _rows(stream, name: str) -> Iterator[Piece | Failure]:
    reader = csv.DictReader(io.TextIOWrapper(stream, encoding="utf-8-sig", newline=""))
    header = [h.strip() for h in reader.fieldnames or []]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise ReadError(
            f"{name} is not a CanadaBuys tender notice file: it has no {', '.join(missing)} "
            "column(s). Use the csv format for files with our own columns."
        )
    reader.fieldnames = header
    for row in reader:
        place = f"{name} line {reader.line_num}"
        cells = {k: (v or "").strip() for k, v in row.items() if k}
        notice_id = cells.get(ID, "")
        if not notice_id:
            yield Failure(place, "", f"{ID} is empty: the notice cannot be tracked")
            continue
        published = cells.get(AMENDED) or cells.get(PUBLISHED, "")
        yield Piece(notice_id, "row", cells, place, cells.get(PUBLISHED, "") or published)


def read(stream, name: str, *, market: str = "CA") -> Iterator[Piece | Failure]:
    return _rows(stream, name)


def pieces(
    location: str,
    *,
    market: str = "CA",
    policy: http.HttpPolicy | None = None,
    sleep: Callable[[float], None] | None = None,
    session: http.Session | None = None,
) -> Iterator[Piece | Failure]:
    found = streams(location, SUFFIXES, accept=ACCEPT, policy=policy, sleep=sleep, session=session)
    for name, stream in found:
        yield from _rows(stream, name)


def _procedure(method: str) -> str:
    method = method.lower()
    if "non-competitive" in method or "limited" in method:
        return "limited"
    if "selective" in method:
        return "selective"
    if "open" in method:
        return "open"
    return ""


def _codes(row: dict, column: str, described: str, scheme: str) -> list[tuple[str, str, str]]:
    codes, descriptions = values(row.get(column)), values(row.get(described))
    return [
        (scheme, code, descriptions[i] if i < len(descriptions) else "")
        for i, code in enumerate(codes)
    ]


def build(notice_id: str, payloads: list[Any], *, market: str = "CA") -> Notice | Skip:
    row = payloads[-1]
    title_en, title_fr = text(row.get(TITLE.format("eng"))), text(row.get(TITLE.format("fra")))
    if not (title_en or title_fr):
        return Skip("no title")
    closing = row.get(CLOSING, "")
    deadline = parse_deadline(closing, market)
    if closing and deadline is None:
        raise ValueError(f"{CLOSING} {closing[:40]!r} is not a date")
    notes = [] if title_en else ["no English title: the private title is in French"]
    status = row.get(STATUS, "").strip().lower()
    state = STATES.get(status, "active")
    if status and status not in STATES:
        notes.append(f"status {status!r} is not one we know: taken as open")
    if row.get(AMENDMENT, "").strip("0"):
        notes.append(f"amendment {row[AMENDMENT]} of the notice")
    names = [
        Name(text(row.get(column.format(suffix))), lang, "body", group)
        for column, group in ((BUYER, "buyer"), (END_USER, "end-user"))
        for suffix, lang in (("eng", "en"), ("fra", "fr"))
    ]
    names.append(Name(text(row.get(CONTACT)), "", "person"))
    names = [n for n in names if n.name]
    buyer = next((n.name for n in names if n.kind == "body"), "")
    classifications = _codes(row, GSIN, GSIN_TEXT, "GSIN") + _codes(
        row, UNSPSC, UNSPSC_TEXT, "UNSPSC"
    )
    return Notice(
        scheme="canadabuys",
        notice_id=notice_id,
        market=market,
        title=text(title_en or title_fr, TITLE_MAX),
        description=text(row.get(DESCRIPTION.format("eng")) or row.get(DESCRIPTION.format("fra"))),
        buyer_name=buyer,
        reference=text(row.get(SOLICITATION) or notice_id),
        source_url=text(row.get(URL.format("eng")) or row.get(URL.format("fra")))[:URL_MAX],
        deadline=deadline,
        state=state,
        state_detail=f"tender status {row.get(STATUS)}" if state != "active" else "",
        classifications=tuple(classifications),
        nature=NATURES.get(row.get(CATEGORY, "").strip().upper(), ""),
        procedure=_procedure(row.get(METHOD, "")),
        names=tuple(dict.fromkeys(names)),
        notes=notes,
    )

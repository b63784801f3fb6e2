"""CSV with documented columns, for markets without a machine feed (SG GeBIZ, the MO gazette):
a curator collects a batch by hand and uploads it. Pure: no database.

Columns (header row, any order; UTF-8, a BOM is fine):

=============  ========  ==========================================================
column         needed    meaning
=============  ========  ==========================================================
id             yes       the notice's own id at its source (document or gazette no.)
title          yes       the notice's title, in English where there is one
buyer          yes       the buying body's name
deadline       yes       closing time: 2026-12-01T12:00, 2026-12-01 (end of day) or
                         01/12/2026 12:00; local to the market unless it has an offset
title_zh       no        the Chinese title (used for the Chinese summary when clean)
buyer_zh       no        the buyer's Chinese name
contact_name   no        a contact person named in the notice (never published)
reference      no        the buyer's reference, when not the id
amount         no        estimated value, digits only (1250000.00)
currency       no        ISO 4217 code of the amount (SGD, MOP)
cpv            no        CPV codes, separated by ";"
unspsc         no        UNSPSC codes, separated by ";"
category       no        one of the feed's category slugs, to override classification
procedure      no        open, selective, limited, negotiated
status         no        active (default), cancelled, awarded, complete, withdrawn
url            no        where the notice is published
description    no        the notice's text (private)
published      no        publication date, for --since
=============  ========  ==========================================================
"""

import csv
import io
from collections.abc import Callable, Iterator
from typing import Any

from ..chinese import to_simplified
from . import http
from .notice import (
    CLOSED_STATES,
    TITLE_MAX,
    URL_MAX,
    Failure,
    Name,
    Notice,
    Piece,
    ReadError,
    Skip,
    amount,
    need_phrase,
    parse_deadline,
    text,
)
from .sources import streams

SUFFIXES = (".csv",)
ACCEPT = "text/csv"
REQUIRED = ("id", "title", "buyer", "deadline")
COLUMNS = (
    *REQUIRED, "title_zh", "buyer_zh", "contact_name", "reference", "amount", "currency",
    "cpv", "unspsc", "category", "procedure", "status", "url", "description", "published",
)  # fmt: skip
PROCEDURES = ("open", "selective", "limited", "negotiated")


def _rows(stream, name: str, market: str) -> Iterator[Piece | Failure]:
    reader = csv.DictReader(io.TextIOWrapper(stream, encoding="utf-8-sig", newline=""))
    header = [h.strip().lower() for h in reader.fieldnames or []]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise ReadError(
            f"{name} has no {', '.join(missing)} column(s); the header must name at least "
            f"{', '.join(REQUIRED)} (docs/importing.md lists every column)."
        )
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        raise ReadError(
            f"{name} has unknown column(s) {', '.join(unknown)}; known columns: "
            f"{', '.join(COLUMNS)}."
        )
    reader.fieldnames = header
    for row in reader:
        place = f"{name} line {reader.line_num}"
        values = {k: (v or "").strip() for k, v in row.items() if k}
        if not values.get("id"):
            yield Failure(place, "", "the id column is empty: give the notice's own id")
            continue
        yield Piece(f"{market}:{values['id']}", "row", values, place, values.get("published", ""))


def pieces(
    location: str,
    *,
    market: str,
    policy: http.HttpPolicy | None = None,
    sleep: Callable[[float], None] | None = None,
    session: http.Session | None = None,
) -> Iterator[Piece | Failure]:
    found = streams(location, SUFFIXES, accept=ACCEPT, policy=policy, sleep=sleep, session=session)
    for name, stream in found:
        yield from _rows(stream, name, market)


def read(stream, name: str, *, market: str) -> Iterator[Piece | Failure]:
    return _rows(stream, name, market)


def _codes(value: str) -> list[str]:
    return [c.strip() for c in value.replace(",", ";").split(";") if c.strip()]


def build(notice_id: str, payloads: list[Any], *, market: str) -> Notice | Skip:
    row = payloads[-1]
    problems = [f"{c} is empty" for c in REQUIRED if not row.get(c)]
    deadline = parse_deadline(row.get("deadline"), market)
    if row.get("deadline") and deadline is None:
        problems.append(
            f"deadline {row['deadline'][:40]!r} is not a date: write 2026-12-01T12:00, "
            "2026-12-01 or 01/12/2026 12:00"
        )
    money = amount(row.get("amount")) if row.get("amount") else None
    if row.get("amount") and money is None:
        problems.append(f"amount {row['amount'][:40]!r} is not a number: digits only")
    currency = row.get("currency", "").upper()
    if money is not None and len(currency) != 3:
        problems.append("an amount needs its currency (a 3-letter code such as SGD)")
    status = (row.get("status") or "active").lower()
    if status not in ("active", *CLOSED_STATES):
        problems.append(f"status {status!r} is not one of active, {', '.join(CLOSED_STATES)}")
    procedure = (row.get("procedure") or "").lower()
    if procedure and procedure not in PROCEDURES:
        problems.append(f"procedure {procedure!r} is not one of {', '.join(PROCEDURES)}")
    if problems:
        raise ValueError("; ".join(problems))
    names = [
        Name(text(row.get("buyer")), "en", "body", "buyer"),
        Name(text(row.get("buyer_zh")), "zh", "body", "buyer"),
        Name(text(row.get("contact_name")), "", "person"),
    ]
    title_zh = text(row.get("title_zh"))
    classifications = [("CPV", c, "") for c in _codes(row.get("cpv", ""))]
    classifications += [("UNSPSC", c, "") for c in _codes(row.get("unspsc", ""))]
    return Notice(
        scheme="csv",
        notice_id=notice_id,
        market=market,
        title=text(row["title"], TITLE_MAX),
        description=text(row.get("description")),
        buyer_name=text(row["buyer"]),
        reference=text(row.get("reference") or row["id"]),
        source_url=text(row.get("url"))[:URL_MAX],
        deadline=deadline,
        amount=money,
        currency=currency if money is not None else "",
        state=status,
        state_detail="status given in the CSV" if status != "active" else "",
        classifications=tuple(classifications),
        procedure=procedure,
        category=text(row.get("category")).lower(),
        need_zh=to_simplified(need_phrase(title_zh)) if title_zh else "",
        names=tuple(n for n in names if n.name),
    )

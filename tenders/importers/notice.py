"""The plain values every reader produces, and the small parsers they share. Pure: no database.

A reader turns a source into ``Piece``s: one release, one notice version or one row, tagged
with the procedure it belongs to (``notice_id``) and its own ``item_id``. The import service
groups pieces by procedure, adds those stored from earlier runs (a later piece with the same
``item_id`` replaces the earlier one), and asks the reader to ``build`` the procedure's current
state: a ``Notice`` (the private facts a source record holds, plus what drafting and
classification need) or a ``Skip`` with its reason.
"""

import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta, timezone
from decimal import Decimal, InvalidOperation
from typing import Any
from zoneinfo import ZoneInfo

from ..sanitize import clean_text
from ..sanitize.secrets import MARKET_ZONES

# The source record's private fields, as long as the model allows.
TITLE_MAX = 500
BUYER_MAX = 300
REFERENCE_MAX = 120
URL_MAX = 500
# The largest amount a record keeps (18 digits, 2 of them decimals).
AMOUNT_LIMIT = Decimal("1e16")

# States a procedure can have at its source; the closed ones take a record out of the feed.
ACTIVE = "active"
CLOSED_STATES = {
    "cancelled": "cancelled by the buyer",
    "unsuccessful": "ended without an award (unsuccessful)",
    "awarded": "awarded",
    "complete": "completed",
    "withdrawn": "withdrawn",
}


class ReadError(ValueError):
    """A source (a file, a page) could not be read at all; the message says what to do."""


@dataclass(frozen=True)
class Piece:
    """One release, notice version or row of a procedure."""

    notice_id: str
    item_id: str
    payload: Any  # JSON-able: a release object, a notice's XML text, a row
    place: str  # file and index or line, for messages
    published: str = ""  # ISO date or date-time, for --since


@dataclass(frozen=True)
class Failure:
    """An item that could not be read; the rest of the source still is."""

    place: str
    notice_id: str
    message: str


@dataclass(frozen=True)
class Skip:
    """A procedure that is not an opportunity (an award, a plan) or lacks what a row needs."""

    reason: str


@dataclass(frozen=True)
class Name:
    """A buyer, department or contact name as the notice gives it."""

    name: str
    lang: str = ""
    kind: str = "body"  # "body" or "person"
    group: str = ""  # names with the same group are one body's (its languages and forms)


@dataclass
class Notice:
    """A procedure's current state: the private facts of its source record, and the inputs of
    classification and drafting. Text is cleaned (no markup, single spaces)."""

    scheme: str
    notice_id: str
    market: str
    title: str
    description: str = ""
    buyer_name: str = ""
    reference: str = ""
    source_url: str = ""
    deadline: datetime | None = None
    amount: Decimal | None = None
    currency: str = ""
    state: str = ACTIVE
    state_detail: str = ""
    # (scheme, code, description) of each classification: CPV, UNSPSC, GSIN...
    classifications: tuple[tuple[str, str, str], ...] = ()
    # goods, works or services, as the notice says
    nature: str = ""
    # open, selective, limited, negotiated, dialogue, innovation (see drafting.PROCEDURES)
    procedure: str = ""
    # One of our category slugs when the source names it (a curator's CSV column).
    category: str = ""
    # Public facts the summary states (vocabulary.summaries.Facts): a framework agreement or
    # not, the number of lots, the planned duration in months, the buyer's kind as a code
    # (eForms buyer-legal-type: cga, la, body-pl...), never its name.
    framework: bool = False
    lots: int = 0
    duration_months: int = 0
    buyer_kind: str = ""
    # The Chinese title (for HK the Chinese subject, in Simplified Chinese): words for finding
    # the notice's concepts, like the title; never published.
    need_zh: str = ""
    names: tuple[Name, ...] = ()
    notes: list[str] = field(default_factory=list)

    @property
    def closed_reason(self) -> str:
        if self.state not in CLOSED_STATES:
            return ""
        reason = CLOSED_STATES[self.state]
        return f"{reason} ({self.state_detail})" if self.state_detail else reason


# --- text ---------------------------------------------------------------------------------


def text(value: Any, limit: int | None = None) -> str:
    """Plain single-paragraph text of a source value (markup and padding removed)."""
    if value is None or isinstance(value, dict | list):
        return ""
    cleaned = clean_text(str(value))
    if limit is not None and len(cleaned) > limit:
        cleaned = cleaned[: limit - 1].rstrip() + "…"
    return cleaned


def need_phrase(title: str) -> str:
    """A title as a need phrase: shouting turned to sentence case, trailing dots removed."""
    title = clean_text(title).strip(" .;:-")
    letters = [c for c in title if c.isalpha()]
    if letters and all(c.isupper() for c in letters if c.isascii()) and len(letters) > 4:
        title = title.capitalize()
    return title


LANGS = {
    "en": "en", "eng": "en", "english": "en", "fr": "fr", "fra": "fr", "fre": "fr",
    "french": "fr", "de": "de", "deu": "de", "ger": "de", "zh": "zh", "zho": "zh",
}  # fmt: skip


def lang_code(value: Any) -> str:
    """``en-GB``, ``EN``, ``English``, ``ENG`` -> ``en``; unknown codes lower-cased."""
    raw = str(value or "").strip().lower()
    base = re.split(r"[-_]", raw, maxsplit=1)[0]
    return LANGS.get(raw) or LANGS.get(base) or base[:8]


# --- numbers ------------------------------------------------------------------------------


def amount(value: Any) -> Decimal | None:
    """A money amount we can keep, or None: not a number, infinite (``1e9999``), negative or
    beyond 18 digits are refused rather than stored wrong."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = Decimal(str(value).replace(",", "").strip())
    except InvalidOperation:
        return None
    if not number.is_finite() or number < 0 or number >= AMOUNT_LIMIT:
        return None
    return number.quantize(Decimal("0.01"))


def json_default(value: Any) -> Any:
    """``json.dumps`` default for the Decimals ijson reads: finite ones as numbers, the rest
    (``1E+9999``) as strings, so raw notices always serialise."""
    if isinstance(value, Decimal):
        if value.is_finite() and math.isfinite(float(value)):
            return int(value) if value == value.to_integral_value() else float(value)
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


# --- dates --------------------------------------------------------------------------------

# Zone names publishers write out in free text ("Eastern Daylight Time (EDT)"), as offsets.
ZONE_OFFSETS = {
    "UTC": 0, "GMT": 0, "BST": 60, "WET": 0, "WEST": 60, "CET": 60,
    "CEST": 120, "EET": 120, "EEST": 180, "HKT": 480, "SGT": 480,
    "AWST": 480, "ACST": 570, "ACDT": 630, "AEST": 600, "AEDT": 660,
    "NST": -210, "NDT": -150, "AST": -240, "ADT": -180, "EST": -300, "EDT": -240,
    "CST": -360, "CDT": -300, "MST": -420, "MDT": -360, "PST": -480, "PDT": -420,
}  # fmt: skip
_FREE_DATE_RE = re.compile(
    r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2}))?)?"
    r"\s*(?:([+-]\d{2}:?\d{2}|Z)\b)?\s*(.*?)\s*$"
)
_DMY_RE = re.compile(r"^\s*(\d{1,2})/(\d{1,2})/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*$")
_ABBREVIATION_RE = re.compile(r"\(([A-Z]{2,5})\)|\b([A-Z]{2,5})\b")


def _zone(market: str):
    return ZoneInfo(MARKET_ZONES.get(market, "UTC"))


def _offset(text_: str) -> timezone | None:
    if text_ == "Z":
        return UTC
    sign = -1 if text_[0] == "-" else 1
    digits = text_[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


def parse_deadline(value: Any, market: str) -> datetime | None:
    """A closing time from what publishers write: RFC 3339, a date alone (end of that day in
    the market's zone), ``2014-04-15 14:00 Eastern Daylight Time (EDT)``, ``15/04/2014 14:00``
    (day first). Local times without a zone are the market's. None when it is not a date."""
    raw = str(value or "").strip()
    if not raw:
        return None
    match = _FREE_DATE_RE.match(raw)
    day_first = None if match else _DMY_RE.match(raw)
    try:
        if match:
            year, month, day, hour, minute, second, offset, rest = match.groups()
            tz = _offset(offset) if offset else None
            if tz is None and rest:
                for found in _ABBREVIATION_RE.finditer(rest):
                    code = found.group(1) or found.group(2)
                    if code in ZONE_OFFSETS:
                        tz = timezone(timedelta(minutes=ZONE_OFFSETS[code]))
                        break
        elif day_first:
            day, month, year, hour, minute, second = day_first.groups()
            tz = None
        else:
            return None
        moment_date = datetime(int(year), int(month), int(day)).date()
        if hour is None:
            moment_time = time(23, 59, 59)
        else:
            moment_time = time(int(hour), int(minute), int(second or 0))
    except ValueError:
        return None
    local = datetime.combine(moment_date, moment_time)
    return local.replace(tzinfo=tz or _zone(market)).astimezone(UTC)


def months_between(start: Any, end: Any) -> int:
    """Whole months from one ISO date to another, rounded (0 when either is not a date)."""
    first, last = iso_day(start), iso_day(end)
    if not first or not last:
        return 0
    try:
        days = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).days
    except ValueError:
        return 0
    return max(round(days / 30.44), 0)


def months_of(value: Any, unit: str) -> int:
    """A duration given as a number and a unit (DAY, WEEK, MONTH, YEAR) in whole months."""
    try:
        number = float(str(value).strip())
    except ValueError:
        return 0
    per_month = {"DAY": 1 / 30.44, "WEEK": 7 / 30.44, "MONTH": 1, "YEAR": 12}.get(unit.upper())
    if per_month is None or not math.isfinite(number) or number <= 0:
        return 0
    return round(number * per_month)


def iso_day(value: Any) -> str:
    """The ``YYYY-MM-DD`` a date or date-time string starts with ('' when none)."""
    found = re.match(r"\s*(\d{4}-\d{2}-\d{2})", str(value or ""))
    return found.group(1) if found else ""

"""Hong Kong GLD e-Tender Box ``TenderNotice.xml``: one ``TenderNoticeRecord`` per open tender,
with bilingual paired fields (``SubjectEnglish``/``SubjectChinese``,
``ReqDepartmentNameEnglish``/``ReqDepartmentNameChinese``...). Pure: no database.

The feed lists tenders that are open now; ``TenderNo`` is the identity. ``NewAddendumIndicator``
and ``RevClosingDateIndicator`` are noted for the curator. Read element by element (lxml
``iterparse``, no entity expansion), so a large file is never held whole.
"""

from collections.abc import Callable, Iterator
from typing import Any

from lxml import etree

from ..chinese import to_simplified
from . import http
from .notice import (
    TITLE_MAX,
    URL_MAX,
    Failure,
    Name,
    Notice,
    Piece,
    Skip,
    need_phrase,
    parse_deadline,
    text,
)
from .sources import streams

SUFFIXES = (".xml",)
ACCEPT = "application/xml"
REPAIR = False  # XML declares its own encoding
RECORD = "TenderNoticeRecord"
# Status letters of the feed: I = issued (open). Others close the tender.
CLOSED_STATUS = {"C": ("cancelled", "status C"), "X": ("cancelled", "status X")}


def _local(tag: Any) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _records(stream, name: str) -> Iterator[Piece | Failure]:
    index = 0
    events = etree.iterparse(
        stream,
        events=("end",),
        tag=f"{{*}}{RECORD}",
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
    )
    try:
        for _, element in events:
            index += 1
            fields = {_local(child.tag): (child.text or "").strip() for child in element}
            element.clear()
            while element.getprevious() is not None:
                del element.getparent()[0]
            tender_no = fields.get("TenderNo", "")
            place = f"{name} record {index}"
            if not tender_no:
                yield Failure(place, "", "record without TenderNo: it cannot be tracked")
                continue
            yield Piece(tender_no, "record", fields, place, fields.get("IssueDateTime", ""))
    except etree.XMLSyntaxError as exc:
        yield Failure(f"{name} after record {index}", "", f"not well-formed XML ({exc})")


def pieces(
    location: str,
    *,
    market: str = "",
    policy: http.HttpPolicy | None = None,
    sleep: Callable[[float], None] | None = None,
    session: http.Session | None = None,
) -> Iterator[Piece | Failure]:
    found = streams(
        location, SUFFIXES, accept=ACCEPT, repair=False, policy=policy, sleep=sleep,
        session=session,
    )  # fmt: skip
    for name, stream in found:
        yield from _records(stream, name)


def read(stream, name: str, *, market: str = "") -> Iterator[Piece | Failure]:
    return _records(stream, name)


def build(notice_id: str, payloads: list[Any], *, market: str = "HK") -> Notice | Skip:
    row = payloads[-1]
    subject_en = text(row.get("SubjectEnglish"))
    subject_zh = text(row.get("SubjectChinese"))
    if not (subject_en or subject_zh):
        return Skip("no title")
    closing = row.get("ClosingDateTime", "")
    deadline = parse_deadline(closing, market)
    if closing and deadline is None:
        raise ValueError(
            f"ClosingDateTime {closing[:40]!r} is not a date: expected 2026-12-01T12:00 or "
            "01/12/2026 12:00"
        )
    names = [
        Name(text(row.get(f"{field}{language}")), lang, "body", field)
        for field in ("ReqDepartmentName", "IssuingDepartmentName")
        for language, lang in (("English", "en"), ("Chinese", "zh-hant"))
    ]
    names = [n for n in names if n.name]
    notes = []
    if row.get("NewAddendumIndicator", "").upper() == "Y":
        notes.append("the buyer issued an addendum")
    if row.get("RevClosingDateIndicator", "").upper() == "Y":
        notes.append("the closing date was revised")
    state, detail = CLOSED_STATUS.get(row.get("Status", "").upper(), ("active", ""))
    contacts = " ".join(filter(None, [row.get("Email", ""), row.get("TelephoneNumber", "")]))
    details = [
        text(row.get(f"{field}English"))
        for field in ("ETQtyDescription", "ETApplication", "DeliverySchedule")
    ]
    description = " ".join(filter(None, [*details, f"Contact: {contacts}" if contacts else ""]))
    return Notice(
        scheme="gld",
        notice_id=notice_id,
        market=market,
        title=text(subject_en or subject_zh, TITLE_MAX),
        description=description,
        buyer_name=names[0].name if names else "",
        reference=text(notice_id),
        source_url=text(row.get("Link"))[:URL_MAX],
        deadline=deadline,
        state=state,
        state_detail=detail,
        need_zh=to_simplified(need_phrase(subject_zh)) if subject_zh else "",
        names=tuple(dict.fromkeys(names)),
        notes=notes,
    )

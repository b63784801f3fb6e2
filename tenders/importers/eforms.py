"""eForms XML (every TED notice since 2023): contract notices, prior-information calls for
competition, their change notices, and award notices (skipped and counted). Pure: no database.

The procedure is ``ContractFolderID`` (a notice without one, such as a prior-information-only
notice, stands alone and is skipped with its reason); each notice version is a piece. A change
notice carries the whole updated notice, so the current state is the latest version; a change
with reason ``cancel`` cancels the procedure. Text comes with ``languageID``: the English title
when present, else the first, kept privately (drafting never uses text). Parsed with lxml
without entity expansion, DTDs or network access.
"""

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from lxml import etree

from . import http
from .notice import (
    ACTIVE,
    TITLE_MAX,
    URL_MAX,
    Failure,
    Name,
    Notice,
    Piece,
    ReadError,
    Skip,
    amount,
    lang_code,
    months_of,
    parse_deadline,
    text,
)
from .sources import streams

SUFFIXES = (".xml",)
ACCEPT = "application/xml"
REPAIR = False  # XML declares its own encoding
NS = {
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "efac": "http://data.europa.eu/p27/eforms-ubl-extension-aggregate-components/1",
    "efbc": "http://data.europa.eu/p27/eforms-ubl-extension-basic-components/1",
    "efext": "http://data.europa.eu/p27/eforms-ubl-extensions/1",
}
PROCEDURES = {
    "open": "open",
    "restricted": "selective",
    "neg-w-call": "negotiated",
    "neg-wo-call": "negotiated",
    "comp-dial": "dialogue",
    "innovation": "innovation",
}
COMPETITION = ("cn-", "pin-cfc", "qu-sy", "subco")
RESULT = ("can-", "veat")


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def parse(data: bytes | str) -> etree._Element:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return etree.fromstring(data, _parser())


def _one(root: etree._Element, path: str) -> str:
    found = root.find(path, NS)
    return (found.text or "").strip() if found is not None and found.text else ""


def _by_language(root: etree._Element, path: str) -> list[tuple[str, str]]:
    return [
        (lang_code(e.get("languageID")), text(e.text))
        for e in root.findall(path, NS)
        if e.text and e.text.strip()
    ]


def _english(values: list[tuple[str, str]]) -> str:
    return next((v for lang, v in values if lang == "en"), "")


# --- reading ------------------------------------------------------------------------------


def _piece(data: bytes, place: str) -> Piece | Failure:
    try:
        root = parse(data)
    except etree.XMLSyntaxError as exc:
        return Failure(place, "", f"not well-formed XML ({exc}); get a complete copy")
    notice = _one(root, "cbc:ID[@schemeName='notice-id']") or _one(root, "cbc:ID")
    # Prior-information-only and buyer-profile notices may have no procedure (no
    # ContractFolderID): they stand alone, and ``build`` skips them with the reason.
    folder = _one(root, "cbc:ContractFolderID") or (
        notice if _one(root, "cbc:NoticeTypeCode") else ""
    )
    if not folder:
        return Failure(place, "", "no ContractFolderID nor notice type: is this an eForms notice?")
    version = _one(root, "cbc:VersionID") or "01"
    issued = f"{_one(root, 'cbc:IssueDate')[:10]}T{_one(root, 'cbc:IssueTime')[:8]}"
    payload = etree.tostring(root, encoding="unicode")
    return Piece(folder, f"{notice}-{version}", payload, place, issued)


piece = _piece  # TED's fetched notices are read one by one


def pieces(
    location: str,
    *,
    market: str = "",
    policy: http.HttpPolicy | None = None,
    sleep: Callable[[float], None] | None = None,
    session: http.Session | None = None,
) -> Iterator[Piece | Failure]:
    """One piece per notice file (a folder of them, or one notice at a URL)."""
    found = streams(
        location, SUFFIXES, accept=ACCEPT, repair=False, policy=policy, sleep=sleep,
        session=session,
    )  # fmt: skip
    for name, stream in found:
        try:
            data = stream.read()
        except OSError as exc:
            raise ReadError(f"{name} cannot be read: {exc}") from exc
        yield _piece(data, name)


def read(stream, name: str, *, market: str = "") -> Iterator[Piece | Failure]:
    try:
        data = stream.read()
    except OSError as exc:
        raise ReadError(f"{name} cannot be read: {exc}") from exc
    yield _piece(data, name)


# --- building -----------------------------------------------------------------------------


def _kind(root: etree._Element) -> str:
    code = _one(root, "cbc:NoticeTypeCode")
    if code.startswith(RESULT):
        return "result"
    if code.startswith(COMPETITION):
        return "competition"
    return "planning"


def _cancelled(root: etree._Element) -> bool:
    reasons = root.findall(".//efac:Changes/efac:ChangeReason/cbc:ReasonCode", NS)
    return any((r.text or "").strip() == "cancel" for r in reasons)


def _deadline(root: etree._Element, market: str):
    periods = (
        "cac:TenderSubmissionDeadlinePeriod",
        "cac:ParticipationRequestReceptionPeriod",
        ".//efac:InterestExpressionReceptionPeriod",
    )
    for period in periods:
        found = []
        for lot in root.findall("cac:ProcurementProjectLot/cac:TenderingProcess", NS):
            for node in lot.findall(period, NS):
                day = _one(node, "cbc:EndDate")
                if not day:
                    continue
                clock = _one(node, "cbc:EndTime")
                offset = clock[8:] if clock else day[10:]
                moment = parse_deadline(
                    f"{day[:10]} {clock[:8]}{offset}" if clock else f"{day[:10]}{offset}", market
                )
                if moment:
                    found.append(moment)
        if found:
            return min(found)
    return None


def _value(root: etree._Element) -> tuple[Decimal | None, str]:
    path = "cac:ProcurementProject/cac:RequestedTenderTotal/cbc:EstimatedOverallContractAmount"
    node = root.find(path, NS)
    if node is not None:
        return amount(node.text), (node.get("currencyID") or "").upper()[:3]
    total, currencies = Decimal(0), set()
    for node in root.findall("cac:ProcurementProjectLot/" + path, NS):
        value = amount(node.text)
        if value is None:
            return None, ""
        total += value
        currencies.add((node.get("currencyID") or "").upper()[:3])
    if len(currencies) == 1 and total:
        return total, currencies.pop()
    return None, ""


def _names(root: etree._Element) -> list[Name]:
    buyers = {
        (e.text or "").strip()
        for e in root.findall("cac:ContractingParty/cac:Party/cac:PartyIdentification/cbc:ID", NS)
    }
    names: list[Name] = []
    for org in root.findall(".//efac:Organizations/efac:Organization", NS):
        company = org.find("efac:Company", NS)
        org_id = _one(company, "cac:PartyIdentification/cbc:ID") if company is not None else ""
        if org_id not in buyers:
            continue
        for part in [company, *org.findall("efac:TouchPoint", NS)]:
            for lang, value in _by_language(part, "cac:PartyName/cbc:Name"):
                names.append(Name(value, lang, "body", org_id))
            for contact in part.findall("cac:Contact/cbc:Name", NS):
                if contact.text and contact.text.strip():
                    names.append(Name(text(contact.text), "", "person"))
    return names


def _classifications(root: etree._Element) -> list[tuple[str, str, str]]:
    found = []
    for kind in ("MainCommodityClassification", "AdditionalCommodityClassification"):
        for node in root.findall(f".//cac:{kind}/cbc:ItemClassificationCode", NS):
            if node.text and node.text.strip():
                found.append(((node.get("listName") or "").upper(), node.text.strip(), ""))
    return list(dict.fromkeys(found))


def _framework(root: etree._Element) -> bool:
    codes = root.findall(".//cbc:ContractingSystemTypeCode[@listName='framework-agreement']", NS)
    return any((c.text or "").strip() not in ("", "none") for c in codes)


def _duration(root: etree._Element) -> int:
    found = root.find(".//cac:PlannedPeriod/cbc:DurationMeasure", NS)
    if found is None or not found.text:
        return 0
    return months_of(found.text, found.get("unitCode") or "")


def _order(root: etree._Element) -> tuple[str, str, str]:
    return (
        _one(root, "cbc:IssueDate")[:10],
        _one(root, "cbc:IssueTime")[:8],
        _one(root, "cbc:VersionID"),
    )


def build(notice_id: str, payloads: list[Any], *, market: str = "EU") -> Notice | Skip:
    """The current state of one procedure from all its notice versions."""
    roots = sorted((parse(p) for p in payloads), key=_order)
    kinds = [_kind(r) for r in roots]
    if "competition" not in kinds:
        if "result" in kinds:
            return Skip("award notice (not an opportunity)")
        return Skip("prior information only (no call for competition)")
    latest = roots[-1]
    state, detail = ACTIVE, ""
    if kinds[-1] == "result":
        state, detail = "awarded", "award notice published"
        latest = roots[max(i for i, k in enumerate(kinds) if k == "competition")]
    if _cancelled(roots[-1]):
        state, detail = "cancelled", "change notice with reason cancel"
    titles = _by_language(latest, "cac:ProcurementProject/cbc:Name")
    descriptions = _by_language(latest, "cac:ProcurementProject/cbc:Description")
    title_en = _english(titles)
    title = title_en or (titles[0][1] if titles else "")
    if not title:
        return Skip("no title")
    notes = [] if title_en else ["no English text: the private title is in another language"]
    money, currency = _value(latest)
    source = _one(
        latest,
        "cac:ProcurementProjectLot/cac:TenderingTerms/cac:CallForTendersDocumentReference"
        "/cac:Attachment/cac:ExternalReference/cbc:URI",
    )
    return Notice(
        scheme="eforms",
        notice_id=notice_id,
        market=market,
        title=text(title, TITLE_MAX),
        description=_english(descriptions) or (descriptions[0][1] if descriptions else ""),
        buyer_name=next((n.name for n in _names(latest) if n.kind == "body"), ""),
        reference=text(_one(latest, "cac:ProcurementProject/cbc:ID") or notice_id),
        source_url=source[:URL_MAX],
        deadline=_deadline(latest, market),
        amount=money,
        currency=currency if money is not None else "",
        state=state,
        state_detail=detail,
        classifications=tuple(_classifications(latest)),
        nature=_one(latest, "cac:ProcurementProject/cbc:ProcurementTypeCode").lower(),
        procedure=PROCEDURES.get(_one(latest, "cac:TenderingProcess/cbc:ProcedureCode"), ""),
        framework=_framework(latest),
        lots=len(latest.findall("cac:ProcurementProjectLot/cbc:ID[@schemeName='Lot']", NS)),
        duration_months=_duration(latest),
        buyer_kind=_one(
            latest, ".//cac:ContractingPartyType/cbc:PartyTypeCode[@listName='buyer-legal-type']"
        ),
        names=tuple(dict.fromkeys(n for r in roots for n in _names(r))),
        notes=notes,
    )

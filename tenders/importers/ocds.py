"""OCDS: release packages, record packages, JSON Lines, single releases; files, folders, URLs.

``pieces`` streams a source with ijson (one release in memory at a time, whatever the size of
the package) and follows an API's ``links.next`` from page to page. ``build`` merges a
procedure's releases into its current state with ``ocdsmerge`` (the reference implementation)
and reads the facts a source record holds. Pure: no database.

Publisher quirks handled: numbers JSON cannot hold (``1e9999``), text mislabelled as UTF-8,
padded titles, ``\\r\\n`` and raw HTML in descriptions, ``null`` in ``extensions``, the same
release under two id formats, free-text deadlines, ``language`` as ``EN`` or ``English``,
titles only in ``items`` (Canada), ``title_en``/``title_fr`` suffixed fields, NSW's
``complete`` status on open tenders (its ``eTenderStatus`` says ``published``).
"""

import hashlib
import json
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

import ijson
from ijson.common import ObjectBuilder
from ocdsmerge import Merger
from ocdsmerge.exceptions import OCDSMergeError

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
    json_default,
    lang_code,
    months_between,
    months_of,
    parse_deadline,
    text,
)
from .sources import Utf8Repair, files, is_url, opened

SUFFIXES = (".json", ".json.gz", ".jsonl", ".jsonl.gz", ".ndjson")
ACCEPT = "application/json"
# Arrays of a package whose items are yielded one at a time (top-level arrays too).
ITEM_PREFIXES = {"releases.item": "release", "records.item": "record", "item": "release"}
MAX_PAGES = 100_000

# The OCDS 1.1 merge rules that matter for a tender's facts: the release's own metadata is not
# merged, and classification and identifier lists are replaced whole (the schema marks them
# ``wholeListMerge``). Everything else follows ocdsmerge's defaults: objects merge field by
# field, arrays of objects by ``id``. Given here so merging needs no download of the schema.
MERGE_RULES = {
    ("id",): "omitWhenMerged",
    ("date",): "omitWhenMerged",
    ("tag",): "omitWhenMerged",
    ("tender", "items", "additionalClassifications"): "wholeListMerge",
    ("awards", "items", "additionalClassifications"): "wholeListMerge",
    ("contracts", "items", "additionalClassifications"): "wholeListMerge",
    ("parties", "additionalIdentifiers"): "wholeListMerge",
    ("buyer", "additionalIdentifiers"): "wholeListMerge",
}
_MERGER = Merger(merge_rules=MERGE_RULES)

CLOSED_TENDER_STATUSES = {"cancelled", "unsuccessful", "withdrawn"}
METHODS = {
    "open": "open",
    "selective": "selective",
    "limited": "limited",
    "direct": "limited",
    "restricted": "selective",
}


# --- reading ------------------------------------------------------------------------------


def _item_root(prefix: str) -> str | None:
    for root in ITEM_PREFIXES:
        if prefix == root or prefix.startswith(root + "."):
            return root
    return None


_OPENING = ("start_map", "start_array", "map_key")


def _documents(stream: BinaryIO) -> Iterator[tuple[str, Any]]:
    """("release" | "record", item) for each item of a package's arrays (or of a top-level
    array), then ("document", the top-level value without those arrays). Several top-level
    values (JSON Lines) are read one after another."""
    top: ObjectBuilder | None = None
    item: ObjectBuilder | None = None
    kind = ""
    for prefix, event, value in ijson.parse(stream, multiple_values=True):
        root = _item_root(prefix)
        if root:
            if item is None:
                item, kind = ObjectBuilder(), ITEM_PREFIXES[root]
            item.event(event, value)
            if prefix == root and event not in _OPENING:
                yield kind, item.value
                item = None
            continue
        if prefix in ("releases", "records") and event in ("start_array", "end_array"):
            continue
        if top is None:
            top = ObjectBuilder()
        top.event(event, value)
        if prefix == "" and event not in _OPENING:
            yield "document", top.value
            top = None


def _release_pieces(release: Any, place: str) -> Iterator[Piece | Failure]:
    if not isinstance(release, dict) or not isinstance(release.get("ocid"), str):
        yield Failure(place, "", "not an OCDS release (no ocid); check the file's format")
        return
    ocid = release["ocid"].strip()
    release_id = release.get("id")
    if not isinstance(release_id, str | int) or release_id == "":
        canonical = json.dumps(release, sort_keys=True, default=json_default)
        release_id = "sha1:" + hashlib.sha1(canonical.encode()).hexdigest()
    yield Piece(ocid, str(release_id), release, place, str(release.get("date") or ""))


def _record_pieces(record: Any, place: str) -> Iterator[Piece | Failure]:
    if not isinstance(record, dict):
        yield Failure(place, "", "not an OCDS record")
        return
    compiled = record.get("compiledRelease")
    if isinstance(compiled, dict):
        compiled = {"ocid": record.get("ocid"), **compiled}
        compiled["id"] = "compiled"
        yield from _release_pieces(compiled, place)
        return
    releases = [r for r in record.get("releases") or [] if isinstance(r, dict) and "tag" in r]
    if not releases:
        yield Failure(
            place,
            str(record.get("ocid") or ""),
            "record has neither a compiled release nor embedded releases (only links); "
            "import the release packages instead",
        )
    for release in releases:
        yield from _release_pieces({"ocid": record.get("ocid"), **release}, place)


def read_stream(stream: BinaryIO, name: str) -> Iterator[Piece | Failure | str]:
    """Pieces of one file or page; a ``links.next`` URL is yielded last, as a string."""
    index = 0
    try:
        for kind, value in _documents(stream):
            if kind == "document":
                if isinstance(value, dict) and "ocid" in value:
                    index += 1
                    yield from _release_pieces(value, f"{name} #{index}")
                elif isinstance(value, dict):
                    following = (value.get("links") or {}).get("next")
                    if isinstance(following, str) and following.strip():
                        yield following.strip()
                continue
            index += 1
            place = f"{name} #{index}"
            if kind == "record":
                yield from _record_pieces(value, place)
            else:
                yield from _release_pieces(value, place)
    except (ijson.JSONError, ValueError) as exc:
        yield Failure(
            f"{name} after item {index}",
            "",
            f"the file is not valid JSON from here on ({str(exc)[:120]}); the items before it "
            "were read. Get a complete copy of the file and import it again.",
        )


def pieces(
    location: str,
    *,
    market: str = "",
    policy: http.HttpPolicy | None = None,
    sleep: Callable[[float], None] | None = None,
    session: http.Session | None = None,
) -> Iterator[Piece | Failure]:
    """Every release of a file, a folder of files or an API (following ``links.next``)."""
    if not is_url(location):
        for path in files(location, SUFFIXES):
            with opened(path) as stream:
                for item in read_stream(stream, path.name):
                    if not isinstance(item, str):
                        yield item
        return
    url: str | None = location
    seen: set[str] = set()
    page = 0
    while url and page < MAX_PAGES:
        if url in seen:
            raise ReadError(f"{url} links back to a page already read; stopping there.")
        seen.add(url)
        page += 1
        response = http.open_url(url, policy=policy, sleep=sleep, session=session)
        following = None
        with response:
            for item in read_stream(Utf8Repair(response), f"page {page}"):
                if isinstance(item, str):
                    following = item
                else:
                    yield item
        url = following


# --- building the current state -----------------------------------------------------------


def merge(releases: list[dict]) -> dict:
    """The procedure's current state from its releases (one release is its own state)."""
    if len(releases) == 1:
        return releases[0]
    if not all(isinstance(r.get("date"), str) for r in releases):
        raise ValueError("a release has no date, so the releases cannot be put in order")
    try:
        return _MERGER.create_compiled_release(releases)
    except OCDSMergeError as exc:
        raise ValueError(f"the releases cannot be merged ({exc})") from exc


def _suffixed(obj: dict, field: str) -> list[tuple[str, str]]:
    """(lang, value) of ``field`` and its language-suffixed forms (``title_en``, ``title_fr``)."""
    found = []
    for key, value in obj.items():
        if key == field or key.startswith(field + "_"):
            lang = key[len(field) + 1 :] if key != field else ""
            cleaned = text(value)
            if cleaned:
                found.append((lang_code(lang) if lang else "", cleaned))
    return found


def _first(obj: dict, field: str, prefer: str = "en") -> str:
    values = _suffixed(obj, field)
    for lang, value in values:
        if lang in ("", prefer):
            return value
    return values[0][1] if values else ""


def _names(release: dict, language: str) -> list[Name]:
    names: list[Name] = []

    def body(org: Any) -> None:
        if not isinstance(org, dict):
            return
        group = str(org.get("id") or _first(org, "name"))
        for lang, value in _suffixed(org, "name"):
            names.append(Name(value, lang or language, "body", group))
        identifier = org.get("identifier")
        if isinstance(identifier, dict):
            for lang, value in _suffixed(identifier, "legalName"):
                names.append(Name(value, lang or language, "body", group))
        contact = org.get("contactPoint")
        if isinstance(contact, dict):
            for lang, value in _suffixed(contact, "name"):
                names.append(Name(value, lang or language, "person"))

    for party in release.get("parties") or []:
        if isinstance(party, dict) and set(party.get("roles") or []) & {
            "buyer",
            "procuringEntity",
        }:
            body(party)
    body(release.get("buyer"))
    body((release.get("tender") or {}).get("procuringEntity"))
    return names


def _state(release: dict, tender: dict) -> tuple[str, str]:
    status = str(tender.get("status") or "").strip().lower()
    portal = str(tender.get("eTenderStatus") or "").strip().lower()
    if portal == "published":
        # NSW eTendering marks its open tenders "complete"; its own status is the truth.
        return ACTIVE, ""
    if status in CLOSED_TENDER_STATUSES:
        return status, f"tender status {status}"
    awards = [a for a in release.get("awards") or [] if isinstance(a, dict)]
    contracts = [c for c in release.get("contracts") or [] if isinstance(c, dict)]
    if awards or contracts:
        return "awarded", f"{len(awards)} award(s), {len(contracts)} contract(s)"
    if status == "complete":
        return "complete", "tender status complete"
    return ACTIVE, ""


def _classifications(tender: dict) -> list[tuple[str, str, str]]:
    found = []
    for item in tender.get("items") or []:
        if not isinstance(item, dict):
            continue
        main = item.get("classification")
        extra = item.get("additionalClassifications") or []
        for entry in [main, *extra] if isinstance(extra, list) else [main]:
            if isinstance(entry, dict):
                found.append(
                    (
                        text(entry.get("scheme")),
                        text(entry.get("id")),
                        _first(entry, "description"),
                    )
                )
    return found


def _duration(tender: dict) -> int:
    period = tender.get("contractPeriod")
    if not isinstance(period, dict):
        return 0
    days = period.get("durationInDays")
    if isinstance(days, int | float) and not isinstance(days, bool):
        return months_of(days, "DAY")
    return months_between(period.get("startDate"), period.get("endDate"))


def _source_url(tender: dict) -> str:
    for document in tender.get("documents") or []:
        if isinstance(document, dict) and isinstance(document.get("url"), str):
            return document["url"].strip()[:URL_MAX]
    return ""


def build(notice_id: str, payloads: list[Any], *, market: str) -> Notice | Skip:
    """The current state of one procedure (``ocid``) from all its releases."""
    release = merge(payloads)
    tender = release.get("tender")
    if not isinstance(tender, dict) or not tender:
        if release.get("awards") or release.get("contracts"):
            return Skip("award or contract only (no tender)")
        return Skip("no tender in the release (planning only)")
    language = lang_code(release.get("language"))
    title = _first(tender, "title")
    if not title:
        items = [i for i in tender.get("items") or [] if isinstance(i, dict)]
        title = _first(items[0], "description") if items else ""
    if not title:
        return Skip("no title")
    state, detail = _state(release, tender)
    value = tender.get("value") if isinstance(tender.get("value"), dict) else {}
    money = amount(value.get("amount"))
    notes = []
    if value.get("amount") is not None and money is None:
        notes.append(f"amount {str(value.get('amount'))[:40]!r} is not a usable number: left out")
    deadline_raw = (tender.get("tenderPeriod") or {}).get("endDate")
    deadline = parse_deadline(deadline_raw, market)
    if deadline_raw and deadline is None:
        notes.append(f"closing date {str(deadline_raw)[:60]!r} could not be read")
    names = [n for p in payloads if isinstance(p, dict) for n in _names(p, language)]
    buyer = next((n.name for n in _names(release, language) if n.kind == "body"), "")
    nature = text(tender.get("mainProcurementCategory")) or text(
        (tender.get("xClassifications") or {}).get("ojeuContractType")
        if isinstance(tender.get("xClassifications"), dict)
        else ""
    )
    method = text(tender.get("procurementMethod") or tender.get("methodRationale")).lower()
    return Notice(
        scheme="ocds",
        notice_id=notice_id,
        market=market,
        title=text(title, TITLE_MAX),
        description=text(_first(tender, "description")),
        buyer_name=buyer,
        reference=text(tender.get("id") or notice_id),
        source_url=_source_url(tender),
        deadline=deadline,
        amount=money,
        currency=text(value.get("currency")).upper()[:3] if money is not None else "",
        state=state,
        state_detail=detail,
        classifications=tuple(_classifications(tender)),
        nature=nature.lower(),
        procedure=METHODS.get(method, ""),
        framework=(tender.get("techniques") or {}).get("hasFrameworkAgreement") is True
        if isinstance(tender.get("techniques"), dict)
        else False,
        lots=len(tender["lots"]) if isinstance(tender.get("lots"), list) else 0,
        duration_months=_duration(tender),
        names=tuple(dict.fromkeys(names)),
        notes=notes,
    )


def read(stream: BinaryIO, name: str, *, market: str = "") -> Iterator[Piece | Failure]:
    """Pieces of one file read from a URL (a ``links.next`` in it is not followed)."""
    for item in read_stream(stream, name):
        if not isinstance(item, str):
            yield item


__all__ = ["SUFFIXES", "build", "merge", "pieces", "read", "read_stream"]

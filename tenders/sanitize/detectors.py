"""Generic detectors: what must not be in any public summary, whoever the record is.

Each detector yields ``(start, end, kind, why)`` spans (``why`` may be empty: the kind says it).
Speed matters (publication scans every row): each check is guarded by a cheap test (a
character that must be present), the digit-bearing kinds (money, dates, references, phones)
are only tried at the runs of digits of the text, and phonenumbers' matcher, the slowest
check, only sees a run of 7 to 15 digits that is not already something else. Patterns are
compiled once, at import.

Full-width forms are read as their ASCII twins (an address typed with a Chinese input method's
full-width letters, at sign and dots is still an e-mail address); the narrowing keeps every
position, so spans point into the original text.

Kinds: ``html``, ``control_character``, ``email``, ``url``, ``domain``, ``person_name``,
``money``, ``date``, ``reference_like``, ``phone``.
"""

import re
from collections.abc import Iterator

from phonenumbers import Leniency, PhoneNumberMatcher

from .bodies import body_spans
from .numbers import cn_dates, numeric_spans, word_spans
from .people import person_spans
from .text import CONTROL_RE
from .view import View
from .words import BRAND_DOMAINS

Span = tuple[int, int, str, str]

# --- markup and control characters --------------------------------------------------------

HTML_RE = re.compile(
    r"<!--|</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>"
    r"|&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
)

# --- e-mail, URLs, domains -----------------------------------------------------------------

# Top-level domains a bare domain is recognised by. English words that are also TLDs (at, in,
# is, it, no, to, be, me, us, co...) are left out: "area.It is" with a missing space is prose.
TLDS = (
    "com|net|org|gov|edu|int|mil|info|biz|io|eu|uk|hk|mo|sg|au|ca|cn|tw|nz|de|fr|nl|ie|es"
    "|jp|kr|ch|se|dk|fi|pt|pl|app|dev|online|site|tech|asia|global"
)
EMAIL_RE = re.compile(r"[\w.+-]+\s?@\s?[\w-]+(?:\s?\.\s?[\w-]+)+")
AT_HINT_RE = re.compile(
    r"[\[({<]\s*at\s*[\])}>]|\sat\s|\sdot\s|[\[({]\s*(?:dot|\.)\s*[\])}]", re.IGNORECASE
)
# "jane [at] council [dot] gov [dot] uk", "tenders at gld dot gov dot hk": an address with
# its signs written as words ends in a top-level domain.
_AT = r"(?:[\[({<]\s*at\s*[\])}>]|\s+at\s+)"
_DOT = r"(?:\s*\.\s*|\s*[\[({]\s*(?:dot|\.)\s*[\])}]\s*|\s+dot\s+)"
# A dot written as a word or in brackets: "gld dot gov", "gld (dot) gov", "gld[.]gov".
_SPELLED_DOT = r"(?:\s+dot\s+|\s*[\[({]\s*(?:dot|\.)\s*[\])}]\s*)"
OBFUSCATED_EMAIL_RE = re.compile(
    rf"[\w.+-]+\s*{_AT}\s*[\w-]+(?:{_DOT}[\w-]+)*{_DOT}(?:{TLDS})\b", re.IGNORECASE
)
# "gld dot gov dot hk": a domain spelled out.
SPELLED_DOMAIN_RE = re.compile(
    rf"\b[a-z0-9-]+(?:{_SPELLED_DOT}[a-z0-9-]+)*{_SPELLED_DOT}(?:{TLDS})\b", re.IGNORECASE
)
URL_RE = re.compile(r"(?:https?://|ftp://|www\.)[^\s<>\"'，。）)]+", re.IGNORECASE)
DOMAIN_RE = re.compile(
    rf"(?<![\w@.-])(?:[a-z0-9](?:[a-z0-9-]{{0,61}}[a-z0-9])?\.)+({TLDS})(?![\w-]|\.[a-z0-9])",
    re.IGNORECASE,
)
# Starts with a literal dot, case-insensitive only after it: fast to scan for.
TLD_HINT_RE = re.compile(rf"\.(?i:{TLDS})(?![a-z0-9])")
_PRODUCT_TLDS = frozenset({"com", "io", "net", "org", "app"})

# --- phone numbers -----------------------------------------------------------------------

PHONE_AT_RE = re.compile(r"(?:\+|00)?\s?\(?\d[\d\s().-]{5,22}\d(?![A-Za-z0-9_])")
PHONE_LABEL_RE = re.compile(
    r"(?:\b(?:tel|telephone|phone|ph|mobile|mob|fax|call|hotline|whatsapp)\b\.?"
    r"|电话|電話|传真|傳真|手机|手機|热线|熱線|致电|致電)\s*(?:no\.?|number)?\s*[:：]?\s*$",
    re.IGNORECASE,
)
# North American numbers, valid or not: "(613) 555-0142", "613-555-0142", "613.555.0142".
NANP_RE = re.compile(r"\(?\d{3}\)?[\s.-]?\d{3}[\s.-]\d{4}(?!\d)")
# Numbers grouped in thousands are quantities: "60 000 000".
THOUSANDS_RE = re.compile(r"[1-9]\d{0,2}(?: \d{3})+")
# Eight digits in two fours, or eight in a row: local numbers of HK, MO and SG ("2877 6543").
LOCAL8_RE = re.compile(r"[2-9]\d{3}[\s-]?\d{4}(?![\d/.-]?\d)")
# Numbers with letters for digits: "1800 NSW BUY", "1-800-FLOWERS", "13 SMART".
VANITY_RE = re.compile(r"(?:1[38]00|13|0800)[\s-]?(?=[A-Z0-9 -]*[A-Z])(?:[A-Z0-9]{2,}[\s-]?){1,3}")
_UNIT_AFTER_RE = re.compile(
    r"\s?(?:mm|cm|km|m|kg|g|t|l|ml|V|kV|W|kW|MW|kWh|units?|pcs|items?|sqm|m2|m²|%|litres?"
    r"|tonnes?|users?|people|persons|households|copies|sheets|hours)(?![A-Za-z])"
)
# Regions tried after the market's own, so a number from another market is still caught.
PHONE_REGIONS = ("HK", "SG", "MO", "GB", "AU", "CA", "US", "CN")
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _phone_in(candidate: str, region: str | None) -> bool:
    """phonenumbers' matcher (slow: only called on a 7-15 digit candidate)."""
    regions = (region, *PHONE_REGIONS) if region else PHONE_REGIONS
    for code in dict.fromkeys(regions):
        for _ in PhoneNumberMatcher(candidate, code, leniency=Leniency.VALID):
            return True
    return False


def _phone_at(text: str, start: int, region: str | None) -> Span | None:
    if start and text[start - 1] in "+(":
        start -= 1
        if start and text[start - 1] == "+":
            start -= 1
    if start and (text[start - 1] in _ALNUM or text[start - 1] in "/.,-"):
        return None
    match = PHONE_AT_RE.match(text, start)
    if match is None:
        return None
    raw = match.group().rstrip(" (.-")
    if raw.startswith("(") and ")" not in raw:
        raw = raw[1:]  # "(1800 679 289)": the bracket is around the number, not its area code
        start += 1
    if not 7 <= sum(c.isdigit() for c in raw) <= 15:
        return None
    end = start + len(raw)
    labelled = PHONE_LABEL_RE.search(text, max(0, start - 20), start) is not None
    if labelled or raw.startswith(("+", "00")):
        return start, end, "phone", ""
    if THOUSANDS_RE.fullmatch(raw) or _UNIT_AFTER_RE.match(text, end):
        return None  # a quantity: "60 000 000", "12000000 litres"
    if NANP_RE.fullmatch(raw):
        return start, end, "phone", "a North American number"
    if LOCAL8_RE.fullmatch(raw) and not _range(raw):
        return start, end, "phone", "an eight-digit local number"
    if _phone_in(raw, region):
        return start, end, "phone", ""
    return None


def _range(raw: str) -> bool:
    """ "2026-2027" and "5000-8000" are ranges, not phone numbers."""
    first, _, second = raw.replace(" ", "-").partition("-")
    if not second:
        return False
    years = all(part[:2] in ("19", "20") for part in (first, second))
    return years or (first.endswith("00") and second.endswith("00"))


def _may_be_phone(text: str, p: int, q: int) -> bool:
    """A run of digits can start a phone number if it is long or continues with digits."""
    if q - p >= 7:
        return q - p <= 15
    after = q
    while after < len(text) and after - q < 2 and text[after] in " ().-":
        after += 1
    return after > q and after < len(text) and text[after].isdigit()


def _phones(text: str, runs: list[tuple[int, int]], region: str | None) -> Iterator[Span]:
    phone_end = -1
    for p, q in runs:
        if p >= phone_end and _may_be_phone(text, p, q) and (phone := _phone_at(text, p, region)):
            phone_end = phone[1]
            yield phone
    if "13" in text or "1800" in text or "0800" in text:
        for m in VANITY_RE.finditer(text):
            found = m.group().rstrip(" -")
            if (m.start() == 0 or text[m.start() - 1] not in _ALNUM) and sum(
                c.isalnum() for c in found
            ) >= 8:
                yield m.start(), m.start() + len(found), "phone", "a number spelled with letters"


# --- the detectors, in priority order ----------------------------------------------------

DIGITS_RE = re.compile(r"\d+")
# The same runs in ASCII text (where \d can only be 0-9), found faster.
ASCII_DIGITS_RE = re.compile(r"[0-9]+")


def _domains(text: str) -> Iterator[Span]:
    for m in DOMAIN_RE.finditer(text):
        tld, found = m.group(1), m.group()
        # "services.Info" is a sentence with a missing space, and "ASP.NET" a framework.
        if tld[0].isupper() and tld[1:].islower():
            continue
        if found.isupper() and found.count(".") == 1:
            continue
        # "Monday.com", "Draw.io": a product named by its domain, not a contact.
        label = found.split(".")[0]
        if found.lower() in BRAND_DOMAINS or (
            found.count(".") == 1
            and tld.lower() in _PRODUCT_TLDS
            and label[0].isupper()
            and label[1:].islower()
        ):
            continue
        yield m.start(), m.end(), "domain", ""


def high_spans(view: View) -> list[Span]:
    """Markup, control characters, e-mail addresses and URLs: the kinds that outrank a record's
    secrets."""
    if view.printable and "markup" not in view.hints:
        return []  # the usual case: nothing that could start markup, an address or a URL
    return list(_high_spans(view))


def _high_spans(view: View) -> Iterator[Span]:
    text = view.narrowed
    if not view.printable:
        for m in CONTROL_RE.finditer(text):
            yield m.start(), m.end(), "control_character", ""
    if "markup" not in view.hints:
        return
    if "<" in text or "&" in text:
        for m in HTML_RE.finditer(text):
            yield m.start(), m.end(), "html", ""
    if "@" in text:
        for m in EMAIL_RE.finditer(text):
            yield m.start(), m.end(), "email", ""
    if AT_HINT_RE.search(text):
        for m in OBFUSCATED_EMAIL_RE.finditer(text):
            yield m.start(), m.end(), "email", "an address with its signs spelled out"
        for m in SPELLED_DOMAIN_RE.finditer(text):
            yield m.start(), m.end(), "domain", "a domain with its dots spelled out"
    if "://" in text or "www." in view.lowered:
        for m in URL_RE.finditer(text):
            yield m.start(), m.end(), "url", ""


def low_spans(view: View, region: str | None) -> list[Span]:
    """Domains, people, bodies by their shape, money, dates, references and phone numbers
    (each family only when the text has what it needs)."""
    text = view.narrowed
    hints = view.hints
    spans: list[Span] = []
    if "." in text and TLD_HINT_RE.search(text):
        spans.extend(_domains(text))
    spans.extend(person_spans(view))
    if "body" in hints:
        spans.extend(body_spans(view))
    cjk = not text.isascii()
    if cjk and "月" in text:
        spans.extend(cn_dates(text))
    if cjk or "number_words" in hints or view.has_month:
        spans.extend(word_spans(view))
    runs = [m.span() for m in (ASCII_DIGITS_RE if text.isascii() else DIGITS_RE).finditer(text)]
    if runs:
        spans.extend(numeric_spans(view, runs))
        spans.extend(_phones(text, runs, region))
    return spans

"""Generic detectors: what must not be in any public summary, whoever the record is.

Each detector yields ``(start, end, kind)`` spans. Every one is guarded by a cheap check (a
character that must be present, a short literal regex) so clean text costs a few passes of
compiled regexes; the expensive check (phonenumbers' matcher) only runs on digit runs long
enough to be a phone number. Patterns are compiled once, at import.

Kinds: ``html``, ``control_character``, ``email``, ``url``, ``domain``, ``person_name``,
``money``, ``date``, ``reference_like``, ``phone``.
"""

import re
from collections.abc import Iterator

from phonenumbers import Leniency, PhoneNumberMatcher

from .text import CONTROL_RE

Span = tuple[int, int, str]

# --- markup and control characters --------------------------------------------------------

HTML_RE = re.compile(
    r"<!--|</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>"
    r"|&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
)

# --- e-mail, URLs, domains -----------------------------------------------------------------

EMAIL_RE = re.compile(r"[\w.+-]+\s?[@＠]\s?[\w-]+(?:\.[\w-]+)+")
AT_HINT_RE = re.compile(r"[\[({]\s*at\s*[\])}]", re.IGNORECASE)
OBFUSCATED_EMAIL_RE = re.compile(
    r"[\w.+-]+\s*[\[({]\s*at\s*[\])}]\s*[\w-]+"
    r"(?:\s*(?:\.|[\[({]\s*dot\s*[\])}])\s*[\w-]+)+",
    re.IGNORECASE,
)
URL_RE = re.compile(r"(?:https?://|ftp://|www\.)[^\s<>\"'，。）)]+", re.IGNORECASE)
# Top-level domains a bare domain is recognised by. English words that are also TLDs (at, in,
# is, it, no, to, be, me, us, co...) are left out: "area.It is" with a missing space is prose.
TLDS = (
    "com|net|org|gov|edu|int|mil|info|biz|io|eu|uk|hk|mo|sg|au|ca|cn|tw|nz|de|fr|nl|ie|es"
    "|jp|kr|ch|se|dk|fi|pt|pl|app|dev|online|site|tech|asia|global"
)
TLD_HINT_RE = re.compile(rf"\.(?:{TLDS})(?![a-z0-9])", re.IGNORECASE)
DOMAIN_RE = re.compile(
    rf"(?<![\w@.-])(?:[a-z0-9](?:[a-z0-9-]{{0,61}}[a-z0-9])?\.)+({TLDS})(?![\w-]|\.[a-z0-9])",
    re.IGNORECASE,
)

# --- people ------------------------------------------------------------------------------

PERSON_RE = re.compile(
    r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?\s+[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?"
    r"|[\u4e00-\u9fff]{1,3}(?:先生|女士|小姐)"
)

# --- money -------------------------------------------------------------------------------

_NUM = r"\d{1,3}(?:[,\s]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_SCALE = r"(?:\s?(?:million|billion|thousand|mn|bn|m|k)\b)?"
_CODES = "HKD|USD|SGD|GBP|EUR|AUD|CAD|MOP|CNY|RMB|NZD|JPY|CHF"
_WORDS = r"dollars|pounds(?: sterling)?|euros?|patacas"
_SYMBOLS = r"HK\$|US\$|SG?\$|AU?\$|CA?\$|NZ\$|MOP\$|£|€|\$|¥|￥"
_CN_CURRENCY = (
    "港元|港币|港幣|澳门元|澳門元|澳门币|澳門幣|葡币|葡幣|新加坡元|新元|新币|新幣|英镑|英鎊"
    "|欧元|歐元|澳元|澳币|澳幣|加元|加币|加幣|美元|人民币|人民幣|元"
)
MONEY_RE = re.compile(
    rf"(?:{_SYMBOLS}|\b(?:{_CODES})\b)\s?(?:{_NUM}){_SCALE}"
    rf"|\b(?:{_NUM}){_SCALE}\s?(?:\b(?:{_CODES})\b|(?:{_WORDS})\b)"
    rf"|(?:{_NUM})\s*(?:千|百万|百萬|万|萬|亿|億)?\s*(?:{_CN_CURRENCY})"
    rf"|(?:港币|港幣|人民币|人民幣|美元|欧元|歐元|英镑|英鎊|澳门元|澳門元)\s*(?:{_NUM})(?:\s*(?:万|萬|亿|億))?"
)

# --- dates -------------------------------------------------------------------------------

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_MONTH_FORMS = sorted(
    {form for m in _MONTHS for form in (m, m[:3], "Sept")}
    | {form.upper() for m in _MONTHS for form in (m, m[:3])},
    key=len,
    reverse=True,
)
_MONTH = "(?:" + "|".join(_MONTH_FORMS) + ")"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_CN_DIGIT = "〇零○一二三四五六七八九"
_CN_NUM = "一二三四五六七八九十"
DATE_RE = re.compile(
    # 15 April 2026, 15th of April, 15 Apr. 2026
    rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b\.?(?:,?\s+\d{{4}}\b)?"
    # April 15, 2026 / April 15
    rf"|\b{_MONTH}\.?\s+{_DAY}\b(?:,?\s+\d{{4}}\b)?"
    # 2026-04-15, 2026/4/15, 2026.04.15
    r"|\b\d{4}([-/.])(?:0?[1-9]|1[0-2])\1(?:[12]\d|3[01]|0?[1-9])\b"
    # 15/04/2026, 04-15-26 (day and month in either order)
    r"|\b(?:[12]\d|3[01]|0?[1-9])([-/.])(?:[12]\d|3[01]|0?[1-9])\2(?:\d{4}|\d{2})\b"
    # 2026年4月15日, 4月15日, 二〇二六年四月十五日
    r"|(?:\d{2,4}\s*年\s*)?\d{1,2}\s*月\s*\d{1,2}\s*[日号號]"
    rf"|(?:[{_CN_DIGIT}]{{2,4}}年)?[{_CN_NUM}]{{1,2}}月[{_CN_NUM}]{{1,3}}[日号號]"
)
DATE_HINT_RE = re.compile(r"\d|月")

# --- reference numbers -------------------------------------------------------------------

# A run of letters and digits joined by / - . with at least one digit (ASCII only, so a
# reference written against Chinese text is still one token).
TOKEN_RE = re.compile(
    r"(?<![\w/.-])(?:[A-Za-z0-9]+[/.-])*[A-Za-z]*\d[A-Za-z0-9]*(?:[/.-][A-Za-z0-9]+)*"
    r"(?![\w/-]|\.[A-Za-z0-9])",
    re.ASCII,
)
_GROUP_SPLIT_RE = re.compile(r"[/.-]")
# A number with a unit or ordinal suffix: 100kW, 500GB, 21st, 4000m2.
_UNIT_RE = re.compile(r"\d+(?:\.\d+)?[A-Za-z]{1,5}\d?", re.ASCII)
# Standards are cited with letters and digits too (ISO 9001, EN-1090, IP65): not references.
_STANDARDS = frozenset(
    [
        "ISO",
        "IEC",
        "EN",
        "BS",
        "AS",
        "NZS",
        "ASTM",
        "IEEE",
        "ANSI",
        "DIN",
        "PAS",
        "CSA",
        "UL",
        "NFPA",
        "HTM",
        "IP",
        "ITU",
        "RFC",
        "IFRS",
        "GB",
    ]
)
TED_RE = re.compile(r"\b\d{4}/S\s?\d{1,3}-\d{3,9}\b")
LABELED_REF_RE = re.compile(
    r"(?i:\b(?:ref(?:erence)?|tender|contract|notice|file|quotation|rft|rfq|rfp|itt|bid)"
    r"\s*(?:no\b\.?|number|nr\b\.?|#|id\b)\s*[:：]?\s*)"
    r"([A-Za-z0-9][\w/.-]*\d[\w/.-]*)"
    r"|(?:编号|編號|档号|檔號|文号|文號)\s*[:：]?\s*([A-Za-z0-9（(〔\[][\w/.\-（）()〔〕\[\]]*)"
    r"|[\u4e00-\u9fff]{1,6}[〔\[（(]\d{4}[〕\]）)]\s*\d+\s*号"
)


def is_reference_like(token: str) -> bool:
    """Whether a letters-and-digits token looks like a notice or file reference.

    References: CF-12345-2026, ArchSD/T/2026/12345, LTA000ETT26123456, P2014/156/EG, JL008,
    RMS.17.0000302129.1667. Not references: COVID-19, 24/7, x86-64, 100-bed, 21st, 500kW,
    ISO-9001, 2026-2027, 1.5.
    """
    digits = sum(c.isdigit() for c in token)
    letters = sum(c.isalpha() for c in token)
    groups = _GROUP_SPLIT_RE.split(token)
    seps = len(groups) - 1
    if digits == 0:
        return False
    if letters == 0:
        return seps >= 2 and digits >= 6
    if seps == 0:
        if _UNIT_RE.fullmatch(token):
            return False
        head = token.rstrip("0123456789")
        if head.upper() in _STANDARDS and head.isalpha():
            return False
        return letters >= 2 and digits >= 3
    if groups[0].upper() in _STANDARDS and all(g.isdigit() for g in groups[1:]):
        return False
    lettered = [g for g in groups if not g.isdigit()]
    if all(g.isalpha() and g.islower() for g in lettered):
        return False  # 100-bed, 24-hour, 3-year: numbers in English compounds
    return digits >= 3 and (letters >= 2 or seps >= 2)


# --- phone numbers -----------------------------------------------------------------------

PHONE_CANDIDATE_RE = re.compile(r"(?<![\w/.,-])(?:\+|00)?\(?\d[\d\s().-]{5,22}\d(?![\w])")
PHONE_LABEL_RE = re.compile(
    r"(?:\b(?:tel|telephone|phone|ph|mobile|mob|fax|call|hotline|whatsapp)\b\.?"
    r"|电话|電話|传真|傳真|手机|手機|热线|熱線|致电|致電)\s*(?:no\.?|number)?\s*[:：]?\s*\(?$",
    re.IGNORECASE,
)
# Regions tried after the market's own, so a number from another market is still caught.
PHONE_REGIONS = ("HK", "SG", "MO", "GB", "AU", "CA", "US", "CN")


def _phone_in(candidate: str, region: str | None) -> bool:
    regions = (region, *PHONE_REGIONS) if region else PHONE_REGIONS
    for code in dict.fromkeys(regions):
        for _ in PhoneNumberMatcher(candidate, code, leniency=Leniency.VALID):
            return True
    return False


def _phones(text: str, region: str | None) -> Iterator[Span]:
    for match in PHONE_CANDIDATE_RE.finditer(text):
        raw = match.group().rstrip(" (.")
        digits = sum(c.isdigit() for c in raw)
        if not 7 <= digits <= 15:
            continue
        start = match.start()
        end = start + len(raw)
        labelled = PHONE_LABEL_RE.search(text, max(0, start - 20), start) is not None
        international = raw.startswith(("+", "00"))
        if labelled or international or _phone_in(raw, region):
            yield start, end, "phone"


# --- the detectors, in priority order ----------------------------------------------------


def generic_spans(text: str, region: str | None, *, high: bool) -> Iterator[Span]:
    """Spans of the generic kinds. ``high``: the kinds that outrank a record's secrets."""
    if high:
        if "<" in text or "&" in text:
            for m in HTML_RE.finditer(text):
                yield m.start(), m.end(), "html"
        for m in CONTROL_RE.finditer(text):
            yield m.start(), m.end(), "control_character"
        if "@" in text or "＠" in text:
            for m in EMAIL_RE.finditer(text):
                yield m.start(), m.end(), "email"
        if AT_HINT_RE.search(text):
            for m in OBFUSCATED_EMAIL_RE.finditer(text):
                yield m.start(), m.end(), "email"
        if "://" in text or "www." in text or "WWW." in text:
            for m in URL_RE.finditer(text):
                yield m.start(), m.end(), "url"
        return
    if TLD_HINT_RE.search(text):
        for m in DOMAIN_RE.finditer(text):
            tld = m.group(1)
            # "services.Info" is a sentence with a missing space, not a domain.
            if not (tld[0].isupper() and tld[1:].islower()):
                yield m.start(), m.end(), "domain"
    for m in PERSON_RE.finditer(text):
        yield m.start(), m.end(), "person_name"
    if not DATE_HINT_RE.search(text):
        return
    for m in MONEY_RE.finditer(text):
        yield m.start(), m.end(), "money"
    for m in DATE_RE.finditer(text):
        yield m.start(), m.end(), "date"
    for m in TED_RE.finditer(text):
        yield m.start(), m.end(), "reference_like"
    for m in LABELED_REF_RE.finditer(text):
        group = 1 if m.group(1) else 2 if m.group(2) else 0
        yield m.start(group), m.end(group), "reference_like"
    for m in TOKEN_RE.finditer(text):
        if is_reference_like(m.group()):
            yield m.start(), m.end(), "reference_like"
    yield from _phones(text, region)

"""Generic detectors: what must not be in any public summary, whoever the record is.

Each detector yields ``(start, end, kind)`` spans. Speed matters (publication scans every row):
each check is guarded by a cheap test (a character that must be present), the digit-bearing
kinds (money, dates, references, phones) are only tried at the runs of digits of the text,
and phonenumbers' matcher, the slowest check, only sees a run of 7 to 15 digits that is not
already something else. Patterns are compiled once, at import.

Kinds: ``html``, ``control_character``, ``email``, ``url``, ``domain``, ``person_name``,
``money``, ``date``, ``reference_like``, ``phone``.
"""

import re
from collections.abc import Iterator

from phonenumbers import Leniency, PhoneNumberMatcher

from .text import CONTROL_RE, MONTHS

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
DOMAIN_RE = re.compile(
    rf"(?<![\w@.-])(?:[a-z0-9](?:[a-z0-9-]{{0,61}}[a-z0-9])?\.)+({TLDS})(?![\w-]|\.[a-z0-9])",
    re.IGNORECASE,
)

# --- people ------------------------------------------------------------------------------

# Written to start with a literal (no \b) so the regex engine can skip ahead fast; the word
# boundary before the honorific is checked by hand.
PERSON_RE = re.compile(r"(?:M(?:rs|r|s|iss|x)|Dr|Prof)\.?\s+[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?")
PERSON_CN_RE = re.compile(r"[\u4e00-\u9fff]{1,3}(?:先生|女士|小姐)")

# --- money and dates: matched at each run of digits -----------------------------------

# Every exact amount and every numeric date contains a run of digits, so the checks below run
# anchored at those runs (``match`` at a position, ``search`` in a few characters before it)
# instead of scanning the whole text once per pattern.
_NUM = r"\d{1,3}(?:[,\s]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_SCALE = r"(?:\s?(?:million|billion|thousand|mn|bn|m|k)\b)?"
_CODES = "HKD|USD|SGD|GBP|EUR|AUD|CAD|MOP|CNY|RMB|NZD|JPY|CHF"
_WORDS = r"dollars|pounds(?: sterling)?|euros?|patacas"
_SYMBOLS = r"HK\$|US\$|SG?\$|AU?\$|CA?\$|NZ\$|MOP\$|£|€|\$|¥|￥"
_CN_SCALE = "千|百万|百萬|万|萬|亿|億"
_CN_CURRENCY = (
    "港元|港币|港幣|澳门元|澳門元|澳门币|澳門幣|葡币|葡幣|新加坡元|新元|新币|新幣|英镑|英鎊"
    "|欧元|歐元|澳元|澳币|澳幣|加元|加币|加幣|美元|人民币|人民幣|元"
)
_CN_PREFIX = "港币|港幣|人民币|人民幣|美元|欧元|歐元|英镑|英鎊|澳门元|澳門元"
# A currency just before the digits: "HK$ ", "USD ", "港币".
MONEY_BEFORE_RE = re.compile(rf"(?:{_SYMBOLS}|(?<![A-Za-z])(?:{_CODES})|{_CN_PREFIX})\s?$")
MONEY_NUMBER_RE = re.compile(rf"(?:{_NUM})(?:{_SCALE}|\s?(?:{_CN_SCALE}))?")
# The amount with its currency after it: "1.5 million euros", "150万港元".
MONEY_AFTER_RE = re.compile(
    rf"(?:{_NUM}){_SCALE}\s?(?:(?:{_CODES})\b|(?:{_WORDS})\b)"
    rf"|(?:{_NUM})\s*(?:{_CN_SCALE})?\s*(?:{_CN_CURRENCY})"
)

_MONTH_FORMS = sorted(
    {form for m in MONTHS for form in (m, m[:3], "Sept")}
    | {form.upper() for m in MONTHS for form in (m, m[:3])},
    key=len,
    reverse=True,
)
_MONTH = "(?:" + "|".join(_MONTH_FORMS) + ")"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_CN_DIGIT = "〇零○一二三四五六七八九"
_CN_NUM = "一二三四五六七八九十"
# Dates that start with their digits.
DATE_AT_RE = re.compile(
    # 2026-04-15, 2026/4/15, 2026.04.15
    r"\d{4}([-/.])(?:0?[1-9]|1[0-2])\1(?:[12]\d|3[01]|0?[1-9])(?!\d)"
    # 15/04/2026, 04-15-26 (day and month in either order)
    r"|(?:[12]\d|3[01]|0?[1-9])([-/.])(?:[12]\d|3[01]|0?[1-9])\2(?:\d{4}|\d{2})(?!\d)"
    # 15 April 2026, 15th of April, 15 Apr. 2026
    rf"|{_DAY}\s+(?:of\s+)?{_MONTH}\b\.?(?:,?\s+\d{{4}}\b)?"
    # 2026年4月15日, 4月15日
    r"|(?:\d{2,4}\s*年\s*)?\d{1,2}\s*月\s*\d{1,2}\s*[日号號]"
)
# "April " just before the digits of "April 15, 2026".
MONTH_BEFORE_RE = re.compile(rf"(?<![A-Za-z]){_MONTH}\.?\s+$")
DAY_YEAR_RE = re.compile(rf"{_DAY}(?![A-Za-z0-9])(?:,?\s+\d{{4}}\b)?")
# 二〇二六年四月十五日, 四月十五日: found from each 月.
CN_DATE_RE = re.compile(
    rf"(?:[{_CN_DIGIT}]{{2,4}}年)?[{_CN_NUM}]{{1,2}}月[{_CN_NUM}]{{1,3}}[日号號]"
)

# --- reference numbers -------------------------------------------------------------------

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
TED_RE = re.compile(r"\d{4}/S\s?\d{1,3}-\d{3,9}(?!\d)")
# A label just before a code makes it a reference whatever its shape ("Tender No. 4471").
REF_LABEL_BEFORE_RE = re.compile(
    r"(?:(?i:\b(?:ref(?:erence)?|tender|contract|notice|file|quotation|rft|rfq|rfp|itt|bid)"
    r"\s*(?:no\b\.?|number|nr\b\.?|#|id\b))|(?i:\bref(?:erence)?\b\.?)"
    r"|编号|編號|档号|檔號|文号|文號)\s*[:：]?\s*$"
)
# "FEHQ 17/2026": an office's code, then a serial and a year.
OFFICE_SERIAL_RE = re.compile(r"\d+(?:/\d+)*/(?:19|20)\d\d")
# Chinese official document numbers: 粤财采〔2026〕12号.
CN_DOC_BEFORE_RE = re.compile(r"[\u4e00-\u9fff]{1,6}[〔\[（(]$")
CN_DOC_AT_RE = re.compile(r"\d{4}[〕\]）)]\s*\d+\s*号")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/.-")
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def is_reference_like(token: str) -> bool:
    """Whether a letters-and-digits token looks like a notice or file reference.

    References: CF-12345-2026, ArchSD/T/2026/12345, LTA000ETT26123456, P2014/156/EG, JL008,
    T39-18, RMS.17.0000302129.1667. Not references: COVID-19, 24/7, x86-64, 100-bed, 600-Volt,
    21st, 500kW, ISO-9001, 2026-2027, 1.5.
    """
    if token.isdigit() or len(token) < 4:
        return False  # plain numbers and short codes (24, A4, 5G, PM2)
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
    numbers = [g for g in groups if g.isdigit()]
    if (
        len(numbers) == 1
        and len(numbers[0]) <= 4
        and all(g.isalpha() and (g.islower() or g.istitle()) for g in lettered)
    ):
        return False  # 100-bed, 24-hour, 600-Volt: a number in an English compound
    if digits < 3:
        return False
    # T39-18, DJ2017-226: upper-case letters fused with digits in a joined code.
    fused = any(not g.isdigit() and not g.isalpha() and g[0].isupper() for g in groups)
    return letters >= 2 or seps >= 2 or fused


# --- phone numbers -----------------------------------------------------------------------

PHONE_AT_RE = re.compile(r"(?:\+|00)?\s?\(?\d[\d\s().-]{5,22}\d(?![\w])")
PHONE_LABEL_RE = re.compile(
    r"(?:\b(?:tel|telephone|phone|ph|mobile|mob|fax|call|hotline|whatsapp)\b\.?"
    r"|电话|電話|传真|傳真|手机|手機|热线|熱線|致电|致電)\s*(?:no\.?|number)?\s*[:：]?\s*$",
    re.IGNORECASE,
)
# Regions tried after the market's own, so a number from another market is still caught.
PHONE_REGIONS = ("HK", "SG", "MO", "GB", "AU", "CA", "US", "CN")


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
    if labelled or raw.startswith(("+", "00")) or _phone_in(raw, region):
        return start, end, "phone"
    return None


# --- the detectors, in priority order ----------------------------------------------------

DIGITS_RE = re.compile(r"\d+")


def _has_high_trigger(text: str) -> bool:
    """Whether ``text`` has a character every high-tier finding needs (markup, e-mail, URL)."""
    return (
        "<" in text
        or "&" in text
        or "@" in text
        or "＠" in text
        or "://" in text
        or "www." in text
        or "WWW." in text
        or "(" in text
        or "[" in text
        or "{" in text
    )


# Starts with a literal dot, case-insensitive only after it: fast to scan for.
TLD_HINT_RE = re.compile(rf"\.(?i:{TLDS})(?![a-z0-9])")
_MONTH_WORDS = frozenset(_MONTH_FORMS)
_MONEY_TAIL = frozenset("$£€¥￥币幣元镑鎊ABCDEFGHIJKLMNOPQRSTUVWXYZ")
# The last character of every reference label: "no", "No.", "number", "#", "ID", "编号", ":".
_LABEL_TAILS = frozenset("oO.rR#dDfFeE号號:：")


def _token_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The letters-digits-/.- token around text[start:end], without edge punctuation."""
    while start > 0 and text[start - 1] in _TOKEN_CHARS:
        start -= 1
    while end < len(text) and text[end] in _TOKEN_CHARS:
        end += 1
    while start < end and text[start] in "/.-":
        start += 1
    while end > start and text[end - 1] in "/.-":
        end -= 1
    return start, end


def _month_before(text: str, p: int) -> int:
    """Start of a month name that ends just before ``p`` ("April 15"), or -1."""
    end = p
    while end > 0 and text[end - 1] in " \u00a0":
        end -= 1
    if end == p or end == 0:
        return -1
    start = end
    while start > 0 and (text[start - 1] in _LETTERS or text[start - 1] == "."):
        start -= 1
    return start if text[start:end].rstrip(".") in _MONTH_WORDS else -1


def _money_before(text: str, p: int) -> int:
    """Start of a currency written just before ``p`` ("HK$", "USD ", "港币"), or -1."""
    if p == 0:
        return -1
    tail = text[p - 1] if text[p - 1] != " " or p < 2 else text[p - 2]
    if tail not in _MONEY_TAIL:
        return -1
    found = MONEY_BEFORE_RE.search(text, max(0, p - 8), p)
    return found.start() if found else -1


def _may_be_phone(text: str, p: int, q: int) -> bool:
    """A run of digits can start a phone number if it is long or continues with digits."""
    if q - p >= 7:
        return q - p <= 15
    if q + 1 >= len(text) or text[q] not in " ().-":
        return False
    following = text[q + 1]
    return following.isdigit() or (following in "(" and q + 2 < len(text))


def _numeric_spans(text: str, runs: list[tuple[int, int]], region: str | None) -> Iterator[Span]:
    """Money, dates, reference-like codes and phones, checked at each run of digits."""
    token_end = phone_end = -1
    for p, q in runs:
        if p == 0 or text[p - 1] not in _ALNUM:
            if m := DATE_AT_RE.match(text, p):
                yield p, m.end(), "date"
            if m := MONEY_AFTER_RE.match(text, p):
                yield p, m.end(), "money"
        if (
            (b := _money_before(text, p)) >= 0
            and (m := MONEY_NUMBER_RE.match(text, p))
            # "CAD 3D models" is design software, not Canadian dollars.
            and (m.end() >= len(text) or text[m.end()] not in _LETTERS)
        ):
            yield b, m.end(), "money"
        if (b := _month_before(text, p)) >= 0 and (m := DAY_YEAR_RE.match(text, p)):
            yield b, m.end(), "date"
        if q - p == 4 and (m := TED_RE.match(text, p)):
            yield p, m.end(), "reference_like"
        if (
            p > 0
            and text[p - 1] in "〔[（("
            and (m := CN_DOC_AT_RE.match(text, p))
            and (b := CN_DOC_BEFORE_RE.search(text, max(0, p - 7), p))
        ):
            yield b.start(), m.end(), "reference_like"
        if p >= token_end:
            start, token_end = _token_around(text, p, q)
            if is_reference_like(text[start:token_end]) or _labelled_reference(text, start):
                yield start, token_end, "reference_like"
            elif (office := _office_before(text, start, token_end)) >= 0:
                yield office, token_end, "reference_like"
        if p >= phone_end and _may_be_phone(text, p, q) and (phone := _phone_at(text, p, region)):
            phone_end = phone[1]
            yield phone


def _office_before(text: str, start: int, end: int) -> int:
    """Start of an upper-case office code before a serial/year ("FEHQ 17/2026"), or -1."""
    if start < 3 or text[start - 1] != " " or not OFFICE_SERIAL_RE.fullmatch(text, start, end):
        return -1
    word_start = start - 1
    while word_start > 0 and text[word_start - 1] in _LETTERS:
        word_start -= 1
    word = text[word_start : start - 1]
    if 2 <= len(word) <= 6 and word.isupper() and word not in _STANDARDS:
        return word_start
    return -1


def _labelled_reference(text: str, start: int) -> bool:
    """Whether a label ("Ref. No.", "Tender number:", "编号") ends just before ``start``."""
    before = start - 1
    while before >= 0 and text[before] == " ":
        before -= 1
    if before < 0 or text[before] not in _LABEL_TAILS:
        return False
    return REF_LABEL_BEFORE_RE.search(text, max(0, start - 24), start) is not None


def _cn_dates(text: str) -> Iterator[Span]:
    at = text.find("月")
    while at != -1:
        if at and text[at - 1] in _CN_NUM:
            window_start = max(0, at - 8)
            for m in CN_DATE_RE.finditer(text, window_start, at + 6):
                yield m.start(), m.end(), "date"
        at = text.find("月", at + 1)


def generic_spans(text: str, region: str | None, *, high: bool) -> Iterator[Span]:
    """Spans of the generic kinds. ``high``: the kinds that outrank a record's secrets."""
    if high:
        if text.isprintable() and not _has_high_trigger(text):
            return  # the usual case: nothing that could start markup, an address or a URL
        if "<" in text or "&" in text:
            for m in HTML_RE.finditer(text):
                yield m.start(), m.end(), "html"
        if not text.isprintable():
            for m in CONTROL_RE.finditer(text):
                yield m.start(), m.end(), "control_character"
        if "@" in text or "＠" in text:
            for m in EMAIL_RE.finditer(text):
                yield m.start(), m.end(), "email"
        if ("(" in text or "[" in text or "{" in text) and AT_HINT_RE.search(text):
            for m in OBFUSCATED_EMAIL_RE.finditer(text):
                yield m.start(), m.end(), "email"
        if "://" in text or "www." in text or "WWW." in text:
            for m in URL_RE.finditer(text):
                yield m.start(), m.end(), "url"
        return
    if TLD_HINT_RE.search(text):
        for m in DOMAIN_RE.finditer(text):
            tld, found = m.group(1), m.group()
            # "services.Info" is a sentence with a missing space, and "ASP.NET" a framework.
            if tld[0].isupper() and tld[1:].islower():
                continue
            if found.isupper() and found.count(".") == 1:
                continue
            yield m.start(), m.end(), "domain"
    if "M" in text or "Dr" in text or "Prof" in text:
        for m in PERSON_RE.finditer(text):
            if m.start() == 0 or not text[m.start() - 1].isalnum():
                yield m.start(), m.end(), "person_name"
    if "先生" in text or "女士" in text or "小姐" in text:
        for m in PERSON_CN_RE.finditer(text):
            yield m.start(), m.end(), "person_name"
    if "月" in text:
        yield from _cn_dates(text)
    runs = [m.span() for m in DIGITS_RE.finditer(text)]
    if runs:
        yield from _numeric_spans(text, runs, region)

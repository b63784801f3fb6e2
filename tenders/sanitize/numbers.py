"""Money, dates and reference numbers: the detectors anchored at runs of digits, and the few
that are written in words (``four point two million dollars``, ``一百二十三万元``,
``December seventeenth``).

Every exact amount, numeric date and reference contains a run of digits, so those checks run
at each run (``match`` at a position, ``search`` in a few characters before it) instead of
scanning the text once per pattern. Technical text is full of digits, so each rule also says
what it is *not*: model numbers and standards (R410A, IEC 62443-3-3, GB50016-2014), sizes
(10/12/16 mm), fiscal years (FY2026/27) and years that no deadline has (2900-2-1).
"""

import re
from collections.abc import Iterator

from .text import FOREIGN_MONTHS, MONTHS
from .view import View
from .words import word_set

Span = tuple[int, int, str, str]

_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_ALNUM = _LETTERS | frozenset("0123456789")

# --- money ------------------------------------------------------------------------------

_NUM = r"\d{1,3}(?:[,\s]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# Scales in any case: "1.2M", "£2m", "$5K", "3 bn", "4.5 million".
_SCALE = r"(?:\s?(?i:millions?|billions?|thousands?|mil|mln|mio|mrd|mn|bn|m|k|b)\b\.?)?"
_CODES = "HKD|USD|SGD|GBP|EUR|AUD|CAD|MOP|CNY|RMB|NZD|JPY|CHF"
_COUNTRY = (
    r"(?:hong kong|hk|singapore|singaporean|us|u\.s\.|american|australian|canadian"
    r"|new zealand|macau|macao|macanese)\s"
)
_WORDS = rf"(?:{_COUNTRY})?dollars?|pounds?(?: sterling)?|euros?|patacas?|yuan|renminbi|sterling"
_SYMBOLS = r"HK\$|US\$|SG?\$|AU?\$|CA?\$|NZ\$|MOP\$|£|€|\$|¥|￥"
_CN_SCALE = "千|百万|百萬|万|萬|亿|億"
_CN_CURRENCY = (
    "港元|港币|港幣|澳门元|澳門元|澳门币|澳門幣|澳门圆|澳門圓|葡币|葡幣|新加坡元|新加坡币|新加坡幣"
    "|新元|新币|新幣|英镑|英鎊|欧元|歐元|澳元|澳币|澳幣|加元|加币|加幣|美元|美金|人民币|人民幣|元"
)
# Every currency but the bare 元 may stand before the amount: "新加坡元123万", "澳门币45万".
_CN_PREFIX = _CN_CURRENCY.removesuffix("|元")
MONEY_BEFORE_RE = re.compile(
    rf"(?:{_SYMBOLS}|(?<![A-Za-z])(?i:{_CODES}|patacas?)|{_CN_PREFIX})\s?(?:\$\s?)?$"
)
MONEY_NUMBER_RE = re.compile(rf"(?:{_NUM})(?:\s?(?:{_CN_SCALE})|{_SCALE})?")
# The amount with its currency after it: "1.5 million euros", "1.2 million Hong Kong dollars",
# "150万港元".
MONEY_AFTER_RE = re.compile(
    rf"(?:{_NUM}){_SCALE}\s?(?:(?:{_CODES})\b|(?i:{_WORDS})\b|[€£¥￥]|\$(?!\d))"
    rf"|(?:{_NUM})\s*(?:{_CN_SCALE})?\s*(?:{_CN_CURRENCY})"
)
# A word that makes the next number an amount, currency or not: "budget of 4.2 million".
MONEY_CUE_RE = re.compile(
    r"(?:(?i:\b(?:budget(?:ed)?|valued|worth|estimated (?:value|cost)"
    r"|(?:contract|total|estimated|indicative|maximum) value|cost of|sum of|ceiling(?: of)?"
    r"|(?:indicative |total |planned )?spend(?: of)?|funding(?: of)?|allocation(?: of)?"
    r"|(?:expected|estimated) to cost|costs? (?:about|around|approximately|roughly))\b)"
    r"(?i:\s+(?:of|is|at|around|about|approx\.?|approximately|some|roughly|up to|over))*"
    r"|预算|預算|金额|金額|价值|價值|造价|造價|总值|總值|总额|總額|合约额|合約額|标价|標價"
    r"|拨款|撥款|费用|費用|上限)"
    r"\s*(?:[:：]|约|約|为|為|達|达|約為|约为)?\s*$"
)
CUE_NUMBER_RE = re.compile(
    rf"(?:{_NUM})(?:\s?(?i:millions?|billions?|mil|mln|mn|bn|m|k)\b|\s?(?:{_CN_SCALE}))"
)
# Amounts in English words: "four point two million dollars", "half a million euros".
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    "|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    "|eighty|ninety|hundred|point|and|a|half|quarter"
)
WORD_MONEY_RE = re.compile(
    rf"(?i:(?:\b(?:{_CODES}|{_SYMBOLS})\s?)?\b(?:(?:{_NUMBER_WORDS})[\s-]+)+"
    rf"(?:thousand|million|billion)\b(?:\s+(?:{_WORDS}|{_CODES})\b)?)"
)
# What makes an amount in words money: a currency after it or before it.
_WORDS_TAIL_RE = re.compile(rf"(?i:{_WORDS}|{_CODES})\s*$")
_WORDS_HEAD_RE = re.compile(rf"(?i:{_CODES}|{_SYMBOLS})")
# Amounts in Chinese numerals with a currency: "一百二十三万元", "港币一百万".
# Formal numerals (壹佰貳拾萬) and a decimal point (一點二億) too.
_CN_NUMERALS = "零〇一二两兩三四五六七八九十百千万萬亿億壹贰貳叁參肆伍陆陸柒捌玖拾佰仟点點"
_CN_SCALES = "十百千万萬亿億拾佰仟"
CN_WORD_MONEY_RE = re.compile(
    rf"(?:{_CN_PREFIX})[{_CN_NUMERALS}]*[{_CN_SCALES}][{_CN_NUMERALS}]*"
    rf"|[{_CN_NUMERALS}]*[{_CN_SCALES}][{_CN_NUMERALS}]*(?:{_CN_CURRENCY})"
)
# An amount in Chinese numerals without a currency, money after a word about the budget.
CN_NUMERAL_AMOUNT_RE = re.compile(rf"[{_CN_NUMERALS}]*[万萬亿億][{_CN_NUMERALS}]*")

# --- dates ------------------------------------------------------------------------------

_MONTH_FORMS = sorted(
    {form for m in MONTHS for form in (m, m[:3], "Sept")}
    | {form.upper() for m in MONTHS for form in (m, m[:3])}
    | {form for m in FOREIGN_MONTHS for form in (m, m.capitalize())},
    key=len,
    reverse=True,
)
_MONTH = "(?:" + "|".join(_MONTH_FORMS) + ")"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
# Units after a number group: "10/12/16 mm" are sizes, not a date.
_NOT_UNIT = r"(?!\s?(?:mm|cm|km|m|kg|g|t|V|kV|A|W|kW|MW|in|ft|°|%|mm2|mm²)(?![A-Za-z]))"
# "10/12/16 mm" are bar sizes, not a reference either.
UNIT_AFTER_RE = re.compile(r"\s?(?:mm|cm|km|m|kg|g|t|V|kV|A|W|kW|MW|in|ft|°|%|mm2|mm²)(?![A-Za-z])")
_CN_DIGIT = "〇零○一二三四五六七八九"
_CN_NUM = "一二三四五六七八九十"
# Dates that start with their digits. Years are those a notice could have (1900-2099); a
# two-digit year only 20-39, so "10/12/16 mm" and "UL 2900-2-1" are not dates.
DATE_AT_RE = re.compile(
    # 2026-04-15, 2026/4/15, 2026.04.15
    rf"(?:19|20)\d\d([-/.])(?:0?[1-9]|1[0-2])\1(?:[12]\d|3[01]|0?[1-9])(?!\d){_NOT_UNIT}"
    # 15/04/2026, 04-15-26 (day and month in either order)
    r"|(?:[12]\d|3[01]|0?[1-9])([-/.])(?:[12]\d|3[01]|0?[1-9])\2(?:(?:19|20)\d\d|[23]\d)"
    rf"(?![\d/.-]\d){_NOT_UNIT}"
    # 20261210
    r"|20[2-4]\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?!\d)"
    # 15 April 2026, 15th of April, 15 Apr. 2026, 15-Apr-26, 15 avril 2026, 15 de Abril de 2026
    rf"|{_DAY}(?:\s+|-)(?:of\s+|de\s+)?{_MONTH}\b\.?(?:(?:,?\s+(?:de\s+)?|-)(?:\d{{4}}|[23]\d)\b)?"
    # 2026年4月15日, 4月15日
    r"|(?:\d{2,4}\s*年\s*)?\d{1,2}\s*月\s*\d{1,2}\s*[日号號]"
)
# "April " just before the digits of "April 15, 2026".
DAY_YEAR_RE = re.compile(rf"{_DAY}(?![A-Za-z0-9])(?:,?\s+\d{{4}}\b)?")
# 二〇二六年四月十五日, 四月十五日: found from each 月.
CN_DATE_RE = re.compile(
    rf"(?:[{_CN_DIGIT}]{{2,4}}年)?[{_CN_NUM}]{{1,2}}月[{_CN_NUM}]{{1,3}}[日号號]"
)
# A day and month without a year only count after a word about a deadline: "close 4/12",
# "截标日期：18/12", "by 4.12"; elsewhere "4/12" is a ratio, a size or a schedule.
# Between the word and the date, a weekday or a time may stand: "return by Thu 17/12",
# "no later than 12pm, 17/12", "submissions close Friday 17/12".
_DAY_OR_TIME = (
    r"(?i:\s+(?:on\s+|at\s+)?(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?|noon|midday|midnight"
    r"|\d{1,2}(?:[:.]\d{2})?\s?(?:am|pm|hrs|h)|the)\b\.?,?)*"
)
DEADLINE_CUE_RE = re.compile(
    r"(?:(?i:\b(?:clos(?:e|es|ed|ing)(?: date)?|deadline|due(?: date)?|due by|by|before"
    r"|until|till|no later than|on or before|submit(?:ted)?(?: by)?|submissions?(?: by)?"
    r"|lodged?(?:ment)?(?: by)?|returns?(?: by)?|returnable(?: by)?|received by|expires?|ends?"
    r"|on)\b)"
    rf"{_DAY_OR_TIME}"
    r"|截标|截標|截止|限期|届满|屆滿|开标|開標|提交|递交|遞交|交标|交標)"
    r"(?:日期|时间|時間)?\s*(?:[:：]|为|為|于|於|on)?\s*$"
)
# Day and month (or month and day, when the day is over 12: "12/17").
DAY_MONTH_RE = re.compile(
    r"(?:[12]\d|3[01]|0?[1-9])[/.-](?:1[0-2]|0?[1-9])(?![\d/.-]?\d)"
    r"|(?:1[0-2]|0?[1-9])[/.-](?:1[3-9]|2\d|3[01])(?![\d/.-]?\d)"
    r"|(?:1[0-2]|0?[1-9])\s*月\s*(?:[12]\d|3[01]|0?[1-9])(?!\d)"
)
# "18/12前", "12.17截止" or "18/12之前": before a date, in Chinese.
DAY_MONTH_BEFORE_RE = re.compile(
    r"(?:[12]\d|3[01]|0?[1-9])[/.-](?:[12]\d|3[01]|0?[1-9])\s*(?:或)?(?:之前|前|截止|截标|截標)"
)
_ORDINAL_WORDS = (
    "(?:(?:twenty|thirty)[\\s-])?(?:first|second|third|fourth|fifth|sixth|seventh|eighth"
    "|ninth)|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth"
    "|eighteenth|nineteenth|twentieth|thirtieth"
)
_FULL_MONTH = "(?:" + "|".join(MONTHS) + ")"
# "December seventeenth", "the seventeenth of December", "17th December" in words.
WORD_DATE_RE = re.compile(
    rf"\b{_FULL_MONTH}\s+(?:the\s+)?(?i:{_ORDINAL_WORDS})\b"
    rf"|\b(?i:the\s+)?(?i:{_ORDINAL_WORDS})\s+(?:of\s+)?{_FULL_MONTH}\b"
)
MONTH_WORD_RE = re.compile(_FULL_MONTH)
# "Thursday 17th", "Thu, 17": a weekday, then a day of the month (without a month: the coming
# one). The weekday is only looked for when a short number follows a space.
WEEKDAY_BEFORE_RE = re.compile(
    r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|MON|TUE|WED|THU|FRI|SAT|SUN)[a-zA-Z]*\.?,?(?: the)? $"
)
WEEKDAY_DAY_RE = re.compile(
    r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?(?![\d/.:-]?\d)(?![A-Za-z])"
    r"(?!\s?(?:nights?|days?|hours?|hrs?|weeks?|sessions?|x\b))"
    # "Monday to Friday 9 to 5": opening hours, not a day.
    r"(?!\s*(?:to|till|until|and|or|through|[-–])\s*\d)"
)

# --- reference numbers ----------------------------------------------------------------------

_GROUP_SPLIT_RE = re.compile(r"[/.-]")
# A number with a unit or ordinal suffix: 100kW, 500GB, 21st, 4000m2.
_UNIT_RE = re.compile(r"\d+(?:\.\d+)?[A-Za-z]{1,5}\d?", re.ASCII)
# Standards and technical prefixes cited with digits (ISO 9001, EN-1090, IP65, DN150, RS-485,
# MIL-STD-810H, GB50016-2014): not references.
STANDARDS = word_set(
    "ISO IEC EN BS AS NZS ASTM IEEE ANSI DIN PAS CSA UL NFPA HTM IP ITU RFC IFRS GB GBT JIS "
    "MIL STD RS DN PN SAE API ASME AWS NEMA ETSI ASHRAE TIA EIA IPC JEDEC AASHTO NACE FCC "
    "CE IK NEN BSEN ASNZS CAT USB DDR PCIE HDMI SFP QSFP LTE OHSAS BREEAM LEED NABERS HQE "
    "CIBSE BSRIA NHBC CIE IES NEC FIDIC JCT PE PP PEX"
)
# Cited with a space only ("SS 554", "CP 83"): as a token's head they start references.
SPACED_STANDARDS = STANDARDS | word_set("SS CP TR TS EC ES")
# Model numbers and periods that look like codes: refrigerants (R410A, R-32), aircraft
# (A320neo, A350-900, B777-300ER, ATR72), fiscal years (FY2026/27), quarters (Q3-2026).
TECH_TOKEN_RE = re.compile(
    r"R-?\d{2,4}[A-Za-z]{0,2}|[AB]\d{3}(?:-\d{1,4}[A-Z]{0,3})?[a-z]*|ATR-?\d{2}(?:-\d{3})?"
    r"|FY\d{2}(?:\d{2})?(?:/\d{2}(?:\d{2})?)?|Q[1-4](?:[-/]\d{2,4})?|H[12](?:[-/]\d{2,4})?"
    r"|Euro-?[1-6][A-Za-z]?|Cat-?\d[aAeE]?|Gen-?\d|M\d{1,2}(?:x\d+)?",
)
TED_RE = re.compile(r"\d{4}/S\s?\d{1,3}-\d{3,9}(?!\d)")
# "FEHQ 17/2026": an office's code, then a serial and a year.
OFFICE_SERIAL_RE = re.compile(r"\d+(?:/\d+)*/(?:19|20)\d\d")
# Chinese official document numbers: 粤财采〔2026〕12号; 第124/2026号.
CN_DOC_BEFORE_RE = re.compile(r"[\u4e00-\u9fff]{1,6}[〔\[（(]$")
CN_DOC_AT_RE = re.compile(r"\d{4}[〕\]）)]\s*\d+\s*号")
CN_ORDINAL_REF_RE = re.compile(r"[A-Za-z0-9/.-]+\s*[号號]")
_YEAR_RE = re.compile(r"(?:19|20)\d\d(?:[-/](?:19|20)?\d\d)?")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/.-")
_LOWER_SUFFIX_RE = re.compile(r"\d*[a-z]+\d?")
_HEAD_DIGITS_RE = re.compile(r"([A-Za-z]+)\d")


def _standard_head(group: str) -> bool:
    m = _HEAD_DIGITS_RE.match(group)
    head = m.group(1) if m else group
    return head.upper() in STANDARDS and (head.isupper() or len(head) > 2)


def is_reference_like(token: str) -> bool:
    """Whether a letters-and-digits token looks like a notice or file reference.

    References: CF-12345-2026, ArchSD/T/2026/12345, LTA000ETT26123456, P2014/156/EG, JL008,
    T39-18, RMS.17.0000302129.1667. Not references: COVID-19, 24/7, x86-64, 100-bed, 600-Volt,
    21st, 500kW, ISO-9001, 2026-2027, 1.5, R410A, DN150, RS-485, MIL-STD-810H, A320neo,
    GB50016-2014, FY2026/27.
    """
    if token.isdigit() or len(token) < 4:
        return False  # plain numbers and short codes (24, A4, 5G, PM2)
    digits = sum(c.isdigit() for c in token)
    letters = sum(c.isalpha() for c in token)
    groups = _GROUP_SPLIT_RE.split(token)
    seps = len(groups) - 1
    if digits == 0 or TECH_TOKEN_RE.fullmatch(token):
        return False
    if letters == 0:
        return seps >= 2 and digits >= 6
    if seps == 0:
        if _UNIT_RE.fullmatch(token) or _standard_head(token):
            return False
        if any(c.islower() for c in token) and len(token) <= 10:
            return False  # model names: A320neo, R134a, iPhone15
        return letters >= 2 and digits >= 3
    if _standard_head(groups[0]) and len(groups) <= 4:
        return False  # GB50016-2014, MIL-STD-810H, AS2293.1-2018
    lettered = [g for g in groups if not g.isdigit()]
    numbers = [g for g in groups if g.isdigit()]
    if (
        len(numbers) == 1
        and len(numbers[0]) <= 4
        and all(g.isalpha() and (g.islower() or g.istitle()) for g in lettered)
    ):
        return False  # 100-bed, 24-hour, 600-Volt: a number in an English compound
    if all(_LOWER_SUFFIX_RE.fullmatch(g) for g in lettered):
        return False  # 802.11ax, 2.4ghz: a version or a unit
    if digits < 3:
        return False
    # T39-18, DJ2017-226: upper-case letters fused with digits in a joined code.
    fused = any(not g.isdigit() and not g.isalpha() and g[0].isupper() for g in groups)
    return letters >= 2 or seps >= 2 or fused


def token_around(text: str, start: int, end: int) -> tuple[int, int]:
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


def _word_before(text: str, start: int) -> str:
    """The word (letters, /, &) just before ``start`` across one space: "IEC" in "IEC 62443"."""
    end = start - 1
    if end < 1 or text[end] not in " -":
        return ""
    begin = end
    while begin > 0 and (text[begin - 1] in _LETTERS or text[begin - 1] in "/-"):
        begin -= 1
    return text[begin:end]


_PRODUCT_LINE_RE = re.compile(r"[A-Z][a-z]+[A-Z][A-Za-z]*")


def product_before(text: str, start: int) -> bool:
    """Whether a product line written in camel case stands just before ``start``: "ProLiant
    DL380", "PowerEdge R760", "ThinkPad T14" are models, not references."""
    word = _word_before(text, start)
    return bool(word) and _PRODUCT_LINE_RE.fullmatch(word) is not None


def standard_before(text: str, start: int) -> bool:
    """Whether a standards body is cited just before ``start`` ("IEC 62443-3-3")."""
    word = _word_before(text, start)
    return bool(word) and word.replace("/", "").replace("-", "").upper() in SPACED_STANDARDS


_MONTH_WORDS = frozenset(_MONTH_FORMS)
# The last character of a currency written before an amount (symbols, codes in either case,
# "patacas", Chinese currencies).
_MONEY_TAIL = frozenset("$£€¥￥币幣元镑鎊圓金ABCDEFGHIJKLMNOPQRSTUVWXYZdpryfbsa")
# Words after a number that make it a quantity ("contract 120 sites"), not a serial.
_QUANTITY_FOLLOWERS = word_set(
    "units unit sites site months month years year weeks week days day hours hour lots lot "
    "items item pieces pcs sets set beds bed staff people persons users licences licenses "
    "seats rooms floors storeys vehicles buses schools locations offices stations km m mm "
    "kg tonnes tons litres liters sqm hectares"
)


def month_before(text: str, p: int) -> int:
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


def money_before(text: str, p: int) -> int:
    """Start of a currency written just before ``p`` ("HK$", "USD ", "港币"), or -1."""
    if p == 0:
        return -1
    tail = text[p - 1] if text[p - 1] != " " or p < 2 else text[p - 2]
    if tail not in _MONEY_TAIL:
        return -1
    found = MONEY_BEFORE_RE.search(text, max(0, p - 8), p)
    return found.start() if found else -1


def _next_word(text: str, end: int) -> str:
    while end < len(text) and text[end] == " ":
        end += 1
    start = end
    while end < len(text) and text[end] in _LETTERS:
        end += 1
    return text[start:end]


# Words that make the code after them a reference: with "no"/"number"/"#" after them
# ("Tender No. 4471"), or bare ("tender 124/2026", "notice 0458", "Quote T41").
_LABEL_WORDS = word_set(
    "ref reference tender tenders contract notice file quotation quote rft rfq rfp itt eoi bid "
    "solicitation requisition project case po order opportunity rfx itq itb rfi rfs job "
    "procurement purchase"
)
_NUMBER_WORDS_AFTER_LABEL = word_set("no number nr id")
_CN_STRONG_LABELS = ("编号", "編號", "档号", "檔號", "文号", "文號", "号码", "號碼")
_CN_LABELS = ("招标", "招標", "标书", "標書", "合约", "合約", "报价", "報價", "通告", "公告")


def _word_ending_at(text: str, end: int) -> tuple[str, int]:
    """The ASCII word ending at ``end`` (after spaces, colons, "#" and "."), and its start."""
    while end > 0 and text[end - 1] in " :：#.":
        end -= 1
    start = end
    while start > 0 and text[start - 1] in _LETTERS:
        start -= 1
    return text[start:end].lower(), start


def _year_or_period(token: str) -> bool:
    """ "2026", "2026-27", "2026/2027": a year or a period, not a serial ("2026-08" is one)."""
    if not _YEAR_RE.fullmatch(token):
        return False
    first, _, second = token.replace("/", "-").partition("-")
    return not second or int(second[-2:]) == (int(first) + 1) % 100


def labelled_reference(text: str, start: int, end: int) -> bool:
    """Whether a label ends just before the token text[start:end]: "Ref. No.", "Tender number:",
    "编号" make any code a reference; a bare "tender", "notice" or "Quote" makes a code with a
    serial's shape one ("tender 124/2026", "notice 0458", "Quote T41")."""
    word, word_start = _word_ending_at(text, start)
    head = text[max(0, start - 6) : start].rstrip(" :：#")
    numbered = word in _NUMBER_WORDS_AFTER_LABEL or text[start - 1 : start] == "#"
    if (
        numbered
        and (
            _word_ending_at(text, word_start)[0] in _LABEL_WORDS
            # Any "... No. 55120", "... ID 88123": a serial of three digits or more.
            or sum(c.isdigit() for c in text[start:end]) >= 3
        )
    ):
        return True
    if word in ("ref", "reference") or head.endswith(_CN_STRONG_LABELS):
        return True
    if word not in _LABEL_WORDS and not head.endswith(_CN_LABELS):
        return False
    token = text[start:end]
    digits = sum(c.isdigit() for c in token)
    if digits < 2 or _year_or_period(token):
        return False
    if token.isdigit() and token[0] != "0":
        follower = _next_word(text, end)
        return len(token) >= 3 and follower.lower() not in _QUANTITY_FOLLOWERS
    return True


def office_before(text: str, start: int, end: int) -> int:
    """Start of an upper-case office code before a serial/year ("FEHQ 17/2026"), or -1."""
    if start < 3 or text[start - 1] != " " or not OFFICE_SERIAL_RE.fullmatch(text, start, end):
        return -1
    word_start = start - 1
    while word_start > 0 and text[word_start - 1] in _LETTERS:
        word_start -= 1
    word = text[word_start : start - 1]
    if 2 <= len(word) <= 6 and word.isupper() and word not in STANDARDS:
        return word_start
    return -1


_DATE_NEXT = frozenset("-/.")
_SUFFIX_START = frozenset(" snrt")


def numeric_spans(view: View, runs: list[tuple[int, int]]) -> Iterator[Span]:
    """Money, dates and reference-like codes, checked at each run of digits. The patterns are
    only tried where what follows the run could continue them (cheap tests first)."""
    text = view.narrowed
    size = len(text)
    exact = not view.printable  # other white space than plain spaces: try every pattern
    hints = view.hints
    currency = "currency" in hints
    cue = "budget" in hints
    cn_month = "月" in text
    token_end = -1
    for p, q in runs:
        after = text[q] if q < size else ""
        starts_word = p == 0 or text[p - 1] not in _ALNUM
        if starts_word:
            if (
                exact
                or after in _DATE_NEXT
                or q - p == 8
                or (cn_month and after in " 年月")
                or (after in _SUFFIX_START and view.has_month)
            ) and (m := DATE_AT_RE.match(text, p)):
                yield p, m.end(), "date", ""
            elif (
                (exact or after in _DATE_NEXT or (cn_month and after in " 月"))
                and (m := DAY_MONTH_RE.match(text, p))
                and (
                    DEADLINE_CUE_RE.search(text, max(0, p - 30), p)
                    or DAY_MONTH_BEFORE_RE.match(text, p)
                )
            ):
                yield p, m.end(), "date", "a day and month after a word about the deadline"
            if currency and (m := MONEY_AFTER_RE.match(text, p)):
                yield p, m.end(), "money", ""
            elif (
                cue
                and (m := CUE_NUMBER_RE.match(text, p))
                and MONEY_CUE_RE.search(text, max(0, p - 40), p)
            ):
                yield p, m.end(), "money", "a number after a word about the budget or value"
        if (
            (b := money_before(text, p)) >= 0
            and (m := MONEY_NUMBER_RE.match(text, p))
            # "CAD 3D models" is design software, not Canadian dollars.
            and (m.end() >= size or text[m.end()] not in _LETTERS)
        ):
            yield b, m.end(), "money", ""
        if (
            p
            and (exact or text[p - 1] == " ")
            and view.has_month
            and (b := month_before(text, p)) >= 0
            and (m := DAY_YEAR_RE.match(text, p))
        ):
            yield b, m.end(), "date", ""
        if (
            q - p <= 2
            and p > 3
            and text[p - 1] == " "
            and "weekday" in view.marks
            and WEEKDAY_BEFORE_RE.search(text, max(0, p - 16), p)
            and (m := WEEKDAY_DAY_RE.match(text, p))
        ):
            yield p, m.end(), "date", "a day of the month after a weekday"
        if q - p == 4 and (m := TED_RE.match(text, p)):
            yield p, m.end(), "reference_like", ""
        if (
            p > 0
            and text[p - 1] in "〔[（("
            and (m := CN_DOC_AT_RE.match(text, p))
            and (b := CN_DOC_BEFORE_RE.search(text, max(0, p - 7), p))
        ):
            yield b.start(), m.end(), "reference_like", ""
        if p >= token_end:
            start, token_end = token_around(text, p, q)
            token = text[start:token_end]
            if labelled_reference(text, start, token_end):
                yield start, token_end, "reference_like", "a code after a reference label"
            elif (
                is_reference_like(token)
                and not standard_before(text, start)
                and not product_before(text, start)
                and not (token[0].isdigit() and UNIT_AFTER_RE.match(text, token_end))
            ):
                yield start, token_end, "reference_like", ""
            elif (office := office_before(text, start, token_end)) >= 0:
                yield office, token_end, "reference_like", ""
            elif (
                (first := text.rfind("第", max(0, start - 2), start)) >= 0
                and not text[first + 1 : start].strip()
                and (m := CN_ORDINAL_REF_RE.match(text, start))
                and (len(token) >= 3 or "/" in token)
            ):
                yield first, m.end(), "reference_like", "a numbered document (第…号)"


def word_spans(view: View) -> Iterator[Span]:
    """Amounts and dates written in words."""
    text = view.narrowed
    if "number_words" in view.hints:
        for m in WORD_MONEY_RE.finditer(text):
            found = m.group()
            words = found.lower()
            # A currency before or after, or a budget word before, makes it money:
            # "four point two million dollars", but not "two million residents".
            if (
                _WORDS_TAIL_RE.search(words)
                or _WORDS_HEAD_RE.match(found)
                or MONEY_CUE_RE.search(text, max(0, m.start() - 40), m.start())
            ):
                yield m.start(), m.end(), "money", "an amount written in words"
    if not text.isascii() and "cn_scale" in view.marks:
        for m in CN_WORD_MONEY_RE.finditer(text):
            yield m.start(), m.end(), "money", "an amount in Chinese numerals"
        if "budget" in view.hints:
            for m in CN_NUMERAL_AMOUNT_RE.finditer(text):
                if MONEY_CUE_RE.search(text, max(0, m.start() - 12), m.start()):
                    yield m.start(), m.end(), "money", "an amount after a word about the budget"
    if view.has_month:
        for m in WORD_DATE_RE.finditer(text):
            yield m.start(), m.end(), "date", "a date written in words"


def cn_dates(text: str) -> Iterator[Span]:
    at = text.find("月")
    while at != -1:
        if at and text[at - 1] in _CN_NUM:
            for m in CN_DATE_RE.finditer(text, max(0, at - 8), at + 6):
                yield m.start(), m.end(), "date", ""
        at = text.find("月", at + 1)

"""The record's own secrets, and the needles they are looked for with.

A record's secrets (buyer, reference, source host, deadline, amount, contact names) become
three lists of needles:

- ``folded``: matched in the folded view of a summary (``text.fold``), so case, punctuation,
  spacing, accents and full-width forms do not hide them; Latin needles match whole words only;
- ``compact``: the source site's brand (``contractsfinder``), matched with spaces removed so
  "Contracts Finder" is found too;
- ``exact``: acronyms of the buyer name (``LTA``, ``DfT``), matched case-sensitively as whole
  words, because "lta" or "Dft" in prose is not the buyer.

Needles of a buyer name, a date and an amount are cached: they recur across many records.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from functools import cached_property, lru_cache
from itertools import chain
from zoneinfo import ZoneInfo

from ..chinese import to_simplified, to_traditional
from .names import abbreviation_rule, latin_variants, partial_names
from .text import MONTHS, fold
from .words import ORDINARY_WORDS

_DIGIT_RUN_RE = re.compile(r"\d+")
_CJK_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’]*")
# first.last before an "@": the mailbox is read back from each "@" and matched whole.
_NAMED_MAILBOX_RE = re.compile(r"([A-Za-z]{2,})[._]([A-Za-z]{2,})")
_HONORIFIC_RE = re.compile(
    r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?\s+([A-Z][a-z'’-]+\s+[A-Z][a-z'’-]+)"
)
_HONORIFIC_HINT_RE = re.compile(r"M(?:r|s|iss|x)|Dr|Prof")
# "Contact: Peter Tan", "Contact person - Mary Wong", "联系人：李小明" in the private notice:
# the labels are found with str.find in the lower-case text, the name after one with a match.
_LABELS = ("contact", "attention", "attn", "enquiries", "officer", "name")
_LABELLED_NAME_RE = re.compile(
    r"(?:\s+(?:person|officer|name|to|in\s+charge))?\.?\s*[:：-]\s*"
    r"(?:(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+)?([A-Z][A-Za-z'’-]+(?:\s+[A-Z][A-Za-z'’-]+){1,2})"
)
_CN_LABELS = ("联系人", "聯繫人", "联络人", "聯絡人", "负责人", "負責人", "经办人", "經辦人")
_CN_LABELLED_NAME_RE = re.compile(
    r"\s*[:：]?\s*([\u4e00-\u9fff]{2,4}?)(?=[，,。；;、\s(（]|$|电话|電話|先生|女士|小姐)"
)
# Bodies named in the private notice ("Canterbury-Bankstown Council invites tenders"), for a
# record whose buyer field holds the publisher ("Spend Network"): found from each head word.
_BODY_HEAD_RE = re.compile(
    r"(?:Council|Authority|Agency|Department|Ministry|Board|Commission|Corporation|Trust"
    r"|Bureau|Directorate)\b"
)
_BODY_OF_RE = re.compile(
    r"(?:City|Shire|Municipality|Department|Ministry) of (?:the )?"
    r"[A-Z][A-Za-z'’-]+(?: [A-Z][A-Za-z'’-]+){0,3}"
)
_SPACE_RE = re.compile(r"\s")
_CAPITALISED_RE = re.compile(r"[A-Z][A-Za-z'’&-]+")
_CN_BODY_SUFFIX_RE = re.compile(r"委员会|委員會|管理局|事务局|事務局|议会|議會|政府|署|局")
_CJK_CHAR_RE = re.compile(r"[\u4e00-\u9fff]")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Where each market's deadlines are local: a deadline at 00:30 in Hong Kong is the day
# before in UTC, and a summary would give the local date.
MARKET_ZONES = {
    "HK": "Asia/Hong_Kong",
    "MO": "Asia/Macau",
    "SG": "Asia/Singapore",
    "GB": "Europe/London",
    "EU": "Europe/Brussels",
    "AU": "Australia/Sydney",
    "CA": "America/Toronto",
}
_STOP_WORDS = _words(
    "of and for the to in on at de des du da do dos das la le les para e et y & und"
)
# First labels of source hosts that say nothing about the source.
_GENERIC_LABELS = _words(
    "www tender tenders etender etendering procurement portal gov service services notice "
    "notices buy eprocurement supplier suppliers"
)


@dataclass(frozen=True)
class RecordSecrets:
    """The private fields of one record that its public text must not reveal."""

    buyer_name: str = ""
    reference: str = ""
    source_url: str = ""
    deadline: datetime | date | None = None
    amount: Decimal | None = None
    currency: str = ""
    market: str = ""
    contact_names: tuple[str, ...] = ()
    body_names: tuple[str, ...] = ()

    @classmethod
    def of(cls, record) -> "RecordSecrets":
        """The secrets of a source record (any object with SourceTender's fields).

        Contact names are not stored as such; they are read from the private title and
        description (``Mr Ian Hewitson``, ``andrew.doherty@...``, ``Contact: Peter Tan``),
        which notices carry; so are the names of bodies the notice text gives (a buyer field
        may hold the publisher while the text names the council).
        """
        private_text = f"{getattr(record, 'title', '')}\n{getattr(record, 'description', '')}"
        return cls(
            buyer_name=record.buyer_name,
            reference=record.reference,
            source_url=record.source_url,
            deadline=record.deadline,
            amount=record.amount,
            currency=record.currency,
            market=record.market,
            contact_names=contact_names_in(private_text),
            body_names=body_names_in(private_text),
        )


@dataclass(frozen=True)
class Needles:
    # (kind, needle, whole words only), in groups as they were cached (buyer, host, dates...):
    # joined only for a summary that has one of the ``keys`` (``all_folded``).
    groups: tuple[tuple[tuple[str, str, bool], ...], ...]
    compact: tuple[tuple[str, str], ...]  # (kind, needle) in the folded text without spaces
    exact: tuple[tuple[str, str, bool], ...]  # (kind, needle, weak) case-sensitive, whole word
    # Pieces that must be in a summary's plain lower-case form for any folded or compact needle
    # to match it: a summary without any skips folding (most summaries, most of the time).
    keys: tuple[str, ...] = ()
    # The amount's needles are only spelled out when a summary has one of its keys: amounts
    # rarely repeat, so building them for every record would cost more than the search.
    amount: Decimal | None = None

    @cached_property
    def folded(self) -> tuple[tuple[str, str, bool], ...]:
        """Every folded needle but the amount's, in order."""
        return tuple(chain.from_iterable(self.groups))

    def all_folded(self) -> tuple[tuple[str, str, bool], ...]:
        if self.amount is None:
            return self.folded
        return self.folded + _amount_group(self.amount)


def contact_names_in(text: str) -> tuple[str, ...]:
    """Person names in private notice text: after an honorific, or in first.last e-mails."""
    if not text:
        return ()
    names: list[str] = []
    at = text.find("@")
    while at != -1:
        # The mailbox before the "@" (letters, digits, "_", ".", up to 64 of them).
        start = at
        while start > max(0, at - 64) and (text[start - 1].isalnum() or text[start - 1] in "._"):
            start -= 1
        if m := _NAMED_MAILBOX_RE.fullmatch(text, start, at):
            names.append(f"{m.group(1)} {m.group(2)}")
        at = text.find("@", at + 1)
    if _HONORIFIC_HINT_RE.search(text):
        names += _HONORIFIC_RE.findall(text)
    lowered = text.lower()
    for label in _LABELS:
        at = lowered.find(label)
        while at != -1:
            if m := _LABELLED_NAME_RE.match(text, at + len(label)):
                words = m.group(1).split()
                if not any(w.lower() in ORDINARY_WORDS for w in words):
                    names.append(" ".join(words))
            at = lowered.find(label, at + 1)
    names = [n.title() for n in names]
    for label in () if text.isascii() else _CN_LABELS:
        at = text.find(label)
        while at != -1:
            if m := _CN_LABELLED_NAME_RE.match(text, at + len(label)):
                names.append(m.group(1))
            at = text.find(label, at + 1)
    return tuple(dict.fromkeys(names))


def body_names_in(text: str) -> tuple[str, ...]:
    """Names of public bodies in private notice text ("Canterbury City Council")."""
    if not text:
        return ()
    names = [m.group() for m in _BODY_OF_RE.finditer(text)]
    for m in _BODY_HEAD_RE.finditer(text):
        # The capitalised words just before the head word: "Canterbury City Council".
        words = _SPACE_RE.split(text[max(0, m.start() - 80) : m.start()])[:-1]
        kept: list[str] = []
        for word in reversed(words):
            if len(kept) == 5 or not _CAPITALISED_RE.fullmatch(word):
                break
            kept.insert(0, word)
        if kept:
            names.append(" ".join([*kept, m.group()]))
    names = [n for n in names if any(w.lower() not in ORDINARY_WORDS for w in n.split())]
    if not text.isascii() and _CJK_CHAR_RE.search(text):
        for m in _CN_BODY_SUFFIX_RE.finditer(text):
            start = m.start()
            while start > 0 and m.start() - start < 10 and _CJK_CHAR_RE.match(text[start - 1]):
                start -= 1
            if m.end() - start >= 4:
                names.append(text[start : m.end()])
    return tuple(dict.fromkeys(names))


def _folded(value: str) -> str:
    return fold(value).strip()


def _has_cjk(value: str) -> bool:
    return _CJK_RE.search(value) is not None


def _acronyms(name: str) -> set[str]:
    words = _WORD_RE.findall(name)
    if len(words) < 2:
        return set()
    mixed = "".join(w if w.isupper() and len(w) > 1 else w[0] for w in words)
    significant = "".join(
        w if w.isupper() and len(w) > 1 else w[0]
        for w in words
        if w.lower() not in _STOP_WORDS and w[0].isupper()
    )
    found = {mixed, mixed.upper(), significant}
    return {a for a in found if len(a) >= 2 and a.isalpha()}


@lru_cache(maxsize=4096)
def buyer_needles(name: str) -> tuple[tuple[str, bool], tuple[str, ...]]:
    """(folded needles with their whole-word flag, acronyms) of a buyer name."""
    name = " ".join(name.split())
    if not name:
        return (), ()
    variants = latin_variants(name)
    if _has_cjk(name):
        variants |= {to_traditional(v) for v in variants} | {to_simplified(v) for v in variants}
    folded = []
    for v in variants:
        needle = _folded(v)
        cjk = _has_cjk(needle)
        if len(needle.replace(" ", "")) >= (2 if cjk else 3):
            folded.append((needle, not cjk))
        if not cjk:
            folded += [(part, True) for part in partial_names(needle)]
    return tuple(sorted(set(folded))), tuple(sorted(_acronyms(name)))


def _ordinal(day: int) -> str:
    if 11 <= day % 100 <= 13:
        return f"{day}th"
    return f"{day}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th') }"


def _longest_piece(needle: str) -> str:
    """The piece of a needle a summary must hold for it to match: its longest word, of the
    words no ordinary text has when there is one ("kowloon" of "kowloon city council")."""
    pieces = needle.split(" ")
    rare = [p for p in pieces if p not in ORDINARY_WORDS]
    return max(rare or pieces, key=len)


@lru_cache(maxsize=4096)
def date_keys(day: date) -> tuple[str, ...]:
    """Every spelling of the date has its month's name, its year (4 or 2 digits) or "4月"."""
    return (
        MONTHS[day.month - 1][:3].lower(),
        str(day.year),
        f"{day.year % 100:02d}",
        f"{day.month}月",
    )


@lru_cache(maxsize=4096)
def date_needles(day: date) -> tuple[str, ...]:
    """Folded spellings of one date: English, numeric (both orders) and Chinese."""
    month = MONTHS[day.month - 1]
    d, m, y = day.day, day.month, day.year
    spellings = [
        f"{d} {month} {y}",
        f"{_ordinal(d)} {month} {y}",
        f"{d} {month[:3]} {y}",
        f"{_ordinal(d)} of {month} {y}",
        f"{month} {d} {y}",
        f"{month} {_ordinal(d)} {y}",
        f"{month[:3]} {d} {y}",
        f"{y} {m:02d} {d:02d}",
        f"{y} {m} {d}",
        f"{d:02d} {m:02d} {y}",
        f"{d} {m} {y}",
        f"{m:02d} {d:02d} {y}",
        f"{m} {d} {y}",
        f"{d:02d} {m:02d} {y % 100:02d}",
        f"{y}年{m}月{d}日",
        f"{y}年{m:02d}月{d:02d}日",
        f"{y} 年 {m} 月 {d} 日",
        f"{m}月{d}日",
        f"{m}月{d}号",
        f"{m}月{d}號",
    ]
    return tuple(dict.fromkeys(_folded(s) for s in spellings))


def deadline_days(deadline: datetime | date | None, market: str) -> tuple[date, ...]:
    """The deadline's day, and the market's local day when it differs."""
    if deadline is None:
        return ()
    if not isinstance(deadline, datetime):
        return (deadline,)
    day = deadline.date()
    zone = _zone(market)
    if zone is not None and deadline.tzinfo is not None:
        local = deadline.astimezone(zone).date()
        if local != day:
            return (day, local)
    return (day,)


@lru_cache(maxsize=64)
def _zone(market: str) -> ZoneInfo | None:
    name = MARKET_ZONES.get(market)
    return ZoneInfo(name) if name else None


def _g(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def amount_keys(amount: Decimal) -> tuple[str, ...]:
    """Every spelling of the amount has its second group of digits, or a scale word."""
    whole = int(amount)
    if whole < 1000:
        return ()
    return (f"{whole:,}".split(",")[1], "million", "mn", "万", "萬", "亿", "億")


@lru_cache(maxsize=4096)
def amount_needles(amount: Decimal) -> tuple[str, ...]:
    """Folded spellings of an exact amount: grouped, plain, in millions, in 万 and 亿."""
    whole = int(amount)
    if whole < 1000:
        return ()
    spellings = [f"{whole:,}", str(whole)]
    if amount != whole:
        spellings += [f"{amount:,.2f}", f"{amount:.2f}"]
    # Already in folded form but for the separators: skip the general folding (not cached well,
    # amounts rarely repeat).
    spellings = [s.replace(",", " ").replace(".", " ") for s in spellings]
    if whole >= 1_000_000:
        millions = _g(whole / 1_000_000)
        spellings += [f"{millions} million", f"{millions}mn", f"{millions} mn"]
    if whole >= 10_000 and whole % 100 == 0:
        wan = _g(whole / 10_000)
        spellings += [f"{wan}万", f"{wan}萬", f"{wan} 万", f"{wan} 萬"]
    if whole >= 100_000_000:
        yi = _g(whole / 100_000_000)
        spellings += [f"{yi}亿", f"{yi}億"]
    return tuple(dict.fromkeys(s.replace(".", " ") for s in spellings))


def _reference_needles(reference: str) -> list[str]:
    reference = reference.strip()
    needle = _folded(reference)
    if len(needle.replace(" ", "")) < 3:
        return []
    needles = [needle]
    # The serial part alone still identifies the notice ("tender 12345").
    longest = max(_DIGIT_RUN_RE.findall(reference), key=len, default="")
    if len(longest) >= 5:
        needles.append(longest)
    return needles


def _host_of(url: str) -> str:
    """The host of a URL, cheaply (publication calls this once per record)."""
    rest = url.split("://", 1)[-1] if "://" in url else url.removeprefix("//")
    host = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0].rsplit("@", 1)[-1]
    return host.split(":", 1)[0].lower().removeprefix("www.")


def _host_needles(host: str) -> tuple[list[str], list[str], list[str]]:
    if not host:
        return [], [], []
    folded = [_folded(host)]
    label = host.split(".")[0].lower()
    compact, exact = [], []
    # A brand that is a word of our own public vocabulary ("public", "supply") is no sign of
    # the source: the summary templates write such words.
    if label not in _GENERIC_LABELS and label.isalpha() and not _vocabulary_word(label):
        if len(label) >= 5:
            compact.append(label)
        elif len(label) >= 3:
            exact.append(label.upper())
    return folded, compact, exact


@lru_cache(maxsize=4096)
def _buyer_group(name: str) -> tuple[tuple, tuple, tuple]:
    names, acronyms = buyer_needles(name)
    folded = tuple(("buyer_name", n, whole) for n, whole in names)
    exact = tuple(("buyer_name", a, abbreviation_rule(a) == "weak") for a in acronyms)
    return folded, exact, tuple({_longest_piece(n) for n, _ in names})


def _vocabulary_word(word: str) -> bool:
    from ..vocabulary.coverage import vocabulary

    return word in vocabulary().en


def source_host(url: str) -> str:
    """The host a record's source URL names, without ``www.``."""
    return _host_of(url or "")


@lru_cache(maxsize=1024)
def _host_group(host: str) -> tuple[tuple, tuple, tuple, tuple]:
    hosts, brands, short_brands = _host_needles(host)
    folded = tuple(("source_host", n, True) for n in hosts)
    compact = tuple(("source_host", n) for n in brands)
    exact = tuple(("source_host", n, False) for n in short_brands)
    # A brand written with spaces ("Contracts Finder") still has its first and last letters.
    keys = {_longest_piece(n) for n in hosts} | {k for b in brands for k in (b[:4], b[-4:])}
    return folded, compact, exact, tuple(keys)


@lru_cache(maxsize=4096)
def _amount_group(amount: Decimal) -> tuple[tuple[str, str, bool], ...]:
    return tuple(("amount", n, True) for n in amount_needles(amount))


@lru_cache(maxsize=4096)
def _date_group(day: date) -> tuple[tuple[str, str, bool], ...]:
    return tuple(("deadline_date", n, True) for n in date_needles(day))


@lru_cache(maxsize=4096)
def _contact_group(name: str) -> tuple[tuple[tuple[str, str, bool], ...], tuple[str, ...]]:
    if _has_cjk(name):
        needles = sorted({to_simplified(name), to_traditional(name)})
        return tuple(("contact_name", n, False) for n in needles), tuple(needles)
    needle = _folded(name)
    if len(needle) >= 5 and " " in needle:
        return (("contact_name", needle, True),), (_longest_piece(needle),)
    return (), ()


def secret_needles(secrets: RecordSecrets) -> Needles:
    """The needles of one record. Cheap: the parts that recur (buyer, host, dates, bodies and
    contacts of the notice text) are cached, and only joined for a summary that has a key."""
    buyer = secrets.buyer_name or ""
    b_folded, exact, b_keys = _buyer_group(buyer)
    h_folded, compact, h_exact, h_keys = _host_group(_host_of(secrets.source_url or ""))
    groups, exact, keys = [b_folded, h_folded], exact + h_exact, [*b_keys, *h_keys]
    if references := _reference_needles(secrets.reference or ""):
        groups.append(tuple([("reference", n, True) for n in references]))
        keys += [_longest_piece(n) for n in references]
    for day in deadline_days(secrets.deadline, secrets.market):
        groups.append(_date_group(day))
        keys += date_keys(day)
    amount = Decimal(secrets.amount) if secrets.amount is not None else None
    if amount is not None:
        keys += amount_keys(amount)
    for name in _unique(secrets.body_names):
        if name != buyer:  # a notice usually names its own buyer: needles already made
            n_folded, n_exact, n_keys = _buyer_group(name)
            groups.append(n_folded)
            exact += n_exact
            keys += n_keys
    for name in _unique(secrets.contact_names):
        c_folded, c_keys = _contact_group(name)
        groups.append(c_folded)
        keys += c_keys
    return Needles(tuple(groups), compact, exact, tuple(keys), amount)


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))

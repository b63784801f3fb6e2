"""The directory check: every name of every public body, contact person and tender portal the
feed knows, found in a summary in one pass (two Aho-Corasick automata), whoever the record is.

``compile_patterns(entries)`` turns directory spellings (plain values) into patterns: the
spellings and their variants (both Chinese scripts, ``&``/``and``, ``Dept``/``Department``,
``Govt``, a leading "The", the distinctive part of a longer name such as "Olympic Park
Authority" in "Sydney Olympic Park Authority"), each with the rule it is matched by:

- ``name``: Latin names, matched in the folded view (case, punctuation, spacing and width do
  not hide them) as whole words, and only where written as a name: each word the directory
  capitalises has a capital ("Housing Authority" or "HOUSING AUTHORITY", never "housing
  authority" in prose);
- ``cjk``: Chinese names, matched in the folded view in either script (3 characters or more);
- ``strong``: abbreviations that are no ordinary word (``HyD``, ``C&ED``, ``ArchSD``,
  ``TPSGC``, ``LTA``), matched case-sensitively as whole tokens;
- ``weak``: abbreviations that are also ordinary terms (``HA``, ``HD``, ``CAD``, ``EPD``,
  ``GPA``, ``HP``) or only two letters: they count only where they stand as a name (see
  ``stands_as_name``).

Patterns are plain values, so a publication sends them to its worker processes, which build
the automata once (``NameMatcher``, with ``ahocorasick_rs``); nothing here reads the database.
"""

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import ahocorasick_rs

from ..chinese import to_simplified, to_traditional
from .text import flatten, fold, fold_map, narrow
from .view import MARK_WORDS, TRIGGER_WORDS, View
from .words import COMMON_ACRONYMS, ORDINARY_SENSES, ORDINARY_WORDS, word_set

Span = tuple[int, int, str, str]

_CJK_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_FOLDED_WORD_RE = re.compile(r"[^\W_]+")  # a word of the folded text
_ASCII_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

# Directory kinds -> finding kinds.
FINDING_KINDS = {"body": "public_body", "person": "contact_person", "source": "source_name"}
FORM_WORDS = {"full": "name", "short": "short form", "abbreviation": "abbreviation"}

# Words at the end of a body's name that say what it is: a part of a name ending in one
# ("Olympic Park Authority") still names the body.
HEAD_WORDS = word_set(
    "department ministry bureau office agency authority board commission council "
    "corporation trust fund institute force service directorate secretariat administration "
    "registry tribunal court university college hospital library museum police customs "
    "commissioner"
)
# Generic parts of council names: "City of Canterbury Bankstown" is "Canterbury Bankstown".
_CORE_EDGES = word_set(
    "the city of shire council municipality municipal government borough county district "
    "town royal regional metropolitan ltd limited inc"
)
_ABBREVIATIONS = (
    ("department", "dept"),
    ("government", "govt"),
    ("saint", "st"),
    ("company", "co"),
    ("limited", "ltd"),
    ("corporation", "corp"),
    ("incorporated", "inc"),
    ("university", "univ"),
    ("services", "svcs"),
)
# Places that begin many official Chinese names: 香港醫院管理局 is also 醫院管理局.
_CN_PLACE_PREFIXES = (
    "香港特別行政區政府",
    "香港特别行政区政府",
    "澳門特別行政區政府",
    "澳门特别行政区政府",
    "香港",
    "澳門",
    "澳门",
    "新加坡",
)
# Chinese department names any organisation has: never a name on their own.
GENERIC_CJK = word_set(
    "采购部 采购组 采购科 采购处 采购办 财务部 财务处 财务科 行政部 总务部 总务处 人事部 "
    "人力资源部 工程部 工程处 物业部 资讯科技部 信息技术部 供应部 管理处 办公室 秘书处 "
    "总办事处 政府 医院 学校 委员会 管理局 事务局 服务部 客户服务部 市场部 法律部 审计部 "
    "採購部 採購組 採購科 採購處 財務部 財務處 財務科 總務部 總務處 人力資源部 工程處 "
    "資訊科技部 資訊技術部 管理處 辦公室 秘書處 總辦事處 醫院 學校 委員會 事務局 服務部 "
    "客戶服務部 市場部 審計部 "
    # What a place's name leaves when taken off an official one (香港公共圖書館, 新加坡國立大學):
    # ordinary terms, not names.
    "公共圖書館 公共图书馆 文化博物館 文化博物馆 設計中心 设计中心 房屋協會 房屋协会 "
    "中文大學 中文大学 理工大學 理工大学 城市大學 城市大学 科技大學 科技大学 教育大學 "
    "教育大学 兒童醫院 儿童医院 鐵路有限公司 铁路有限公司 旅遊學院 旅游学院 "
    "旅遊大學 旅游大学 國立大學 国立大学 理工學院 理工学院 管理大學 管理大学 武裝部隊 武装部队 "
    "都會大學 都会大学 藝術館 艺术馆 科學館 科学馆 警察部隊 警察部队"
)


@dataclass(frozen=True)
class NameEntry:
    """One directory spelling, as the gate reads it (plain values)."""

    name: str
    market: str = ""
    kind: str = "body"  # body, person, source
    form: str = "full"  # full, short, abbreviation
    body: str = ""  # the body's main name, to explain a finding
    # Seed and staff names are curated; an imported name made only of ordinary words and no
    # word saying it is a body ("Corporate Services") is a department any body has.
    trusted: bool = True


@dataclass(frozen=True)
class Pattern:
    needle: str
    rule: str  # name, cjk, strong, weak
    kind: str  # the finding's kind
    why: str
    # Words the directory writes with a capital: they must have one in the text too.
    capitals: frozenset[str] = frozenset()


def _has_cjk(value: str) -> bool:
    return _CJK_RE.search(value) is not None


def _cjk_count(value: str) -> int:
    return len(_CJK_RE.findall(value))


def _is_abbreviation(name: str, form: str) -> bool:
    if form == "abbreviation":
        return True
    token = name.replace("&", "").replace(".", "")
    # "HyD", "ArchSD", "MOHH": one token with two capitals, or all capitals.
    return " " not in name and sum(c in _UPPER for c in token) >= 2 and len(token) <= 8


def abbreviation_rule(abbr: str) -> str:
    """``strong`` for abbreviations that are no ordinary term, ``weak`` for the others."""
    letters = [c for c in abbr if c.isalpha()]
    if abbr.upper() in COMMON_ACRONYMS or abbr in COMMON_ACRONYMS:
        return "weak"
    mixed = any(c.islower() for c in letters) and sum(c.isupper() for c in letters) >= 2
    if mixed or "&" in abbr or " " in abbr or len(letters) >= 3:
        return "strong"
    return "weak"


def latin_variants(name: str) -> set[str]:
    """A name with and without a leading "The", with "&" or "and", and its words shortened
    or spelled out ("Govt Logistics Dept" of "Government Logistics Department")."""
    variants = {name, re.sub(r"^(?i:the)\s+", "", name)}
    for v in list(variants):
        variants |= {v.replace("&", " and "), re.sub(r"\s+and\s+", " & ", v)}
    for v in list(variants):
        short_all = long_all = v.lower()
        for word, short in _ABBREVIATIONS:
            short_all = re.sub(rf"\b{word}\b", short, short_all)
            long_all = re.sub(rf"\b{short}\b", word, long_all)
        # Each word shortened alone, and all at once: "Govt Logistics Dept".
        for word, short in _ABBREVIATIONS:
            variants.add(re.sub(rf"\b{word}\b", short, v.lower()))
        variants |= {short_all, long_all}
    return variants


def _ordinary(word: str) -> bool:
    return word in ORDINARY_WORDS or len(word) <= 2


_COUNCIL_PREFIX_RE = re.compile(r"^(?:the )?(?:city|shire|municipality|town|council|borough) of ")
_COUNCIL_SUFFIX_RE = re.compile(
    r" (?:city|county|district|borough|shire|municipal|town|regional|metropolitan) council$"
)


def partial_names(folded: str) -> set[str]:
    """Distinctive parts of a long body name: "olympic park authority" of "sydney olympic park
    authority" (three words or more, ending in a word that says it is a body, starting with
    one that is no ordinary word), "canterbury bankstown" of "city of canterbury bankstown"
    (the place in a council's name, when it has two words or more)."""
    words = folded.split()
    parts = set()
    if len(words) >= 4 and words[-1] in HEAD_WORDS:
        for i in range(1, len(words) - 2):
            if not _ordinary(words[i]):
                parts.add(" ".join(words[i:]))
    core = _COUNCIL_SUFFIX_RE.sub("", _COUNCIL_PREFIX_RE.sub("", folded))
    if core != folded and len(core.split()) >= 2 and not any(map(_ordinary, core.split())):
        parts.add(core)
    return parts


def _capitalised(name: str) -> frozenset[str]:
    words = {w.lower() for w in _LETTERS_RE.findall(name) if w[0].isupper()}
    for word, short in _ABBREVIATIONS:
        if word in words or short in words:
            words |= {word, short}
    return frozenset(words)


def _latin_patterns(entry: NameEntry, kind: str, why: str) -> Iterator[Pattern]:
    capitals = _capitalised(entry.name)
    for variant in latin_variants(entry.name):
        needle = fold(variant).strip()
        words = needle.split()
        if not words:
            continue
        if len(words) == 1:
            # One word is a name only if it is no ordinary word: "Centrelink", "Ofsted".
            if len(needle) >= 5 and not _ordinary(needle) and not needle.isdigit():
                yield Pattern(needle, "name", kind, why, capitals)
            continue
        ordinary = all(_ordinary(w) for w in words)
        if ordinary and not entry.trusted and not any(w in HEAD_WORDS for w in words):
            continue  # "Facilities Management", "Corporate Services": any body has one
        yield Pattern(needle, "name", kind, why, capitals)
        if entry.kind == "body" and entry.form == "full":
            for part in partial_names(needle):
                yield Pattern(part, "name", kind, f"part of the name {why}", capitals)


def _cjk_patterns(entry: NameEntry, kind: str, why: str) -> Iterator[Pattern]:
    variants = {entry.name, to_simplified(entry.name), to_traditional(entry.name)}
    for v in list(variants):
        for prefix in _CN_PLACE_PREFIXES:
            rest = v.removeprefix(prefix)
            if rest != v and _cjk_count(rest) >= 4:
                variants.add(rest)
                break
    for v in variants:
        needle = fold(v).strip()
        if _cjk_count(needle) < 3 or needle in GENERIC_CJK:
            continue
        yield Pattern(needle, "cjk", kind, why)


SEED_FILE = Path(__file__).resolve().parent.parent / "data" / "public_bodies.json"


def seed_entries() -> list[NameEntry]:
    """The seed list's spellings, read from its data file (tests and benchmarks use it without
    a database; the directory holds the same names after migration 0011)."""
    document = json.loads(SEED_FILE.read_text(encoding="utf-8"))
    return [
        NameEntry(name, body["market"], body["kind"], form, body["names"][0][0])
        for body in document["bodies"]
        for name, _lang, form in body["names"]
    ]


def compile_patterns(entries: Iterable[NameEntry]) -> tuple[Pattern, ...]:
    """Every pattern the directory's spellings give, without duplicates (first one kept)."""
    seen: dict[tuple[str, str], Pattern] = {}
    for entry in entries:
        name = " ".join(narrow(entry.name or "").split())
        if len(name) < 2:
            continue
        kind = FINDING_KINDS.get(entry.kind, "public_body")
        owner = entry.body or name
        place = f" ({entry.market})" if entry.market else ""
        if entry.kind == "person":
            why = "a contact person in the directory"
        elif name == owner:
            why = f"{owner}{place} in the directory"
        else:
            why = f"{FORM_WORDS.get(entry.form, 'name')} of {owner}{place} in the directory"
        entry = NameEntry(name, entry.market, entry.kind, entry.form, owner, entry.trusted)
        if _has_cjk(name):
            patterns = _cjk_patterns(entry, kind, why)
        elif _is_abbreviation(name, entry.form) and entry.kind != "person":
            patterns = iter([Pattern(name, abbreviation_rule(name), kind, why)])
        else:
            patterns = _latin_patterns(entry, kind, why)
        for pattern in patterns:
            seen.setdefault((pattern.needle, pattern.rule), pattern)
    return tuple(seen.values())


# --- where an ambiguous abbreviation stands as a name ------------------------------------

_CUES_BEFORE = word_set("by for from to with at via of the")
_CJK_CUES_BEFORE = frozenset("由为為向与與经經于於替被")
_CJK_CUES_AFTER = ("辖下", "轄下", "属下", "屬下", "负责", "負責", "委托", "委託", "邀请", "邀請")
# Words after an abbreviation that show it is the subject of a sentence, not a modifier.
_WORDS_AFTER = word_set(
    "and or is are was were has have had will would shall should may can could must to for "
    "on in at with under which who that as invites invited seeks requires required intends "
    "plans wishes proposes issues issued manages managed operates operated owns runs needs "
    "wants procures awards calls tenders"
)
_END_MARKS = frozenset(".,;:!?)）。，；：、」』\"'")
_WORD_RE = re.compile(r"[A-Za-z0-9]+")
_SENTENCE_END_RE = re.compile(r"[.;!?](?:\s|$)|[。；！？]")


def _word_before(text: str, start: int) -> str:
    end = start
    while end > 0 and text[end - 1] == " ":
        end -= 1
    begin = end
    while begin > 0 and text[begin - 1].isascii() and text[begin - 1].isalpha():
        begin -= 1
    return text[begin:end].lower()


def stands_as_name(text: str, start: int, end: int, abbr: str) -> bool:
    """Whether an ambiguous abbreviation at text[start:end] is used as a body's name.

    As a name: "issued by the HA.", "for HD and the LandsD", "the HA's hospitals", "由HA负责",
    "為HA轄下醫院". Not a name: "HD cameras", "CAD drawings", "HP LaserJet", "covered by the
    WTO GPA" (a word of the term's ordinary sense is in the text).
    """
    senses = ORDINARY_SENSES.get(abbr.upper())
    if senses:
        # Words of the ordinary sense close by: "HD cameras", "laptops by HP", "WTO GPA".
        before = _SENTENCE_END_RE.split(text[max(0, start - 30) : start])[-1]
        after = _SENTENCE_END_RE.split(text[end : end + 30])[0]
        near = _WORD_RE.findall(f"{before} {after}")
        if any(w.lower() in senses for w in near):
            return False
    after = text[end : end + 2]
    if after in ("'s", "’s"):
        return True
    if text.startswith(_CJK_CUES_AFTER, end):
        return True
    cue = _word_before(text, start) in _CUES_BEFORE
    cjk_cue = start > 0 and text[start - 1] in _CJK_CUES_BEFORE
    if not (cue or cjk_cue):
        return False
    rest = text[end:].lstrip(" ")
    if not rest or rest[0] in _END_MARKS:
        return True
    if _has_cjk(rest[0]):
        return cjk_cue
    following = _WORD_RE.match(rest)
    return bool(following) and following.group().lower() in _WORDS_AFTER


# --- the matcher ----------------------------------------------------------------------------


def _bounded(haystack: str, start: int, end: int) -> bool:
    """Whole words: a needle's Latin letter or digit at an edge has no letter or digit beside
    it (Chinese has no word boundaries, so a Chinese edge needs none)."""
    if haystack[start] in _ASCII_ALNUM and start > 0 and haystack[start - 1] in _ASCII_ALNUM:
        return False
    last = end - 1
    return not (
        haystack[last] in _ASCII_ALNUM and end < len(haystack) and haystack[end] in _ASCII_ALNUM
    )


_LETTERS_RE = re.compile(r"[^\W\d_]+")


def _written_as_name(span: str, capitals: frozenset[str]) -> bool:
    """Whether a span is written as the directory writes the name: each word the directory
    capitalises has a capital ("Olympic Park Authority", "OLYMPIC PARK AUTHORITY", "Services
    publics et Approvisionnement Canada"), never "housing authority" or "Housing authority"."""
    if not capitals:
        return True  # the directory writes it in lower case ("buy.nsw"): any case counts
    words = _LETTERS_RE.findall(span)
    has_capital = [any(c.isupper() for c in w) for w in words]
    return any(has_capital) and all(
        capital for w, capital in zip(words, has_capital, strict=True) if w.lower() in capitals
    )


class NameMatcher:
    """Two automata over a directory's patterns: folded (names, with the generic checks'
    trigger words after them, so one pass also gives the summary's ``hints``) and exact
    (abbreviations). ``hints=False``: names only (publication asks whether names added to the
    directory occur in a text; the spans are the same)."""

    def __init__(self, patterns: Iterable[Pattern], *, hints: bool = True):
        patterns = list(patterns)
        self.hints = hints
        self.exact_patterns = [p for p in patterns if p.rule in ("strong", "weak")]
        self.folded_patterns = [p for p in patterns if p.rule not in ("strong", "weak")]
        marks = MARK_WORDS if hints else []
        self.exact = self._automaton([p.needle for p in self.exact_patterns] + marks)
        triggers = TRIGGER_WORDS if hints else []
        self.folded = self._automaton([p.needle for p in self.folded_patterns] + triggers)

    def may_find(self, text: str) -> bool:
        """Whether ``spans(View(text))`` may find a name (for a matcher without ``hints``): a
        test of a few microseconds that never says no where ``spans`` finds one, so that
        publication folds only the texts it lets through (see ``GateChange``).

        An exact needle must be in the narrowed text. A folded needle's two longest words must
        both be in ``flatten(text)``, which holds every word of the folded text."""
        if self.exact is not None and self.exact.find_matches_as_indexes(narrow(text)):
            return True
        words = self._folded_words
        if words is None:
            return self.folded is not None
        automaton, pairs = words
        hits = automaton.find_matches_as_indexes(flatten(text), overlapping=True)
        found = {i for i, _, _ in hits}
        return any(not pairs[i].isdisjoint(found) for i in found if i in pairs)

    @cached_property
    def _folded_words(self) -> tuple[object, dict[int, set[int]]] | None:
        """(an automaton of the folded needles' words, each needle's longest word -> its second
        longest ones), or None when a needle has no word (or there is no folded needle)."""
        vocabulary: dict[str, int] = {}
        pairs: dict[int, set[int]] = {}
        for pattern in self.folded_patterns:
            words = sorted(set(_FOLDED_WORD_RE.findall(pattern.needle)), key=lambda w: (-len(w), w))
            if not words:
                return None
            first = vocabulary.setdefault(words[0], len(vocabulary))
            second = vocabulary.setdefault(words[min(1, len(words) - 1)], len(vocabulary))
            pairs.setdefault(first, set()).add(second)
        if not pairs:
            return None
        return ahocorasick_rs.AhoCorasick(list(vocabulary)), pairs

    @staticmethod
    def _automaton(needles: list[str]):
        if not needles:
            return None
        return ahocorasick_rs.AhoCorasick(needles)

    def spans(self, view: View) -> list[Span]:
        """Directory names in a summary (and its ``hints`` set on the way)."""
        text, narrowed, folded = view.text, view.narrowed, view.folded
        spans = []
        if self.exact is not None:
            abbreviations, marks = len(self.exact_patterns), []
            for index, start, end in self.exact.find_matches_as_indexes(narrowed, overlapping=True):
                if index >= abbreviations:
                    marks.append(index - abbreviations)
                    continue
                pattern = self.exact_patterns[index]
                if not _bounded(narrowed, start, end):
                    continue
                if pattern.rule == "weak" and not stands_as_name(
                    narrowed, start, end, pattern.needle
                ):
                    continue
                spans.append((start, end, pattern.kind, pattern.why))
            if self.hints:
                view.set_marks(marks)
        if self.folded is None:
            return spans
        names = len(self.folded_patterns)
        hits, triggers = [], []
        for index, start, end in self.folded.find_matches_as_indexes(folded, overlapping=True):
            if index >= names:
                triggers.append(index - names)
            elif _bounded(folded, start, end):
                hits.append((start, end, self.folded_patterns[index]))
        if self.hints:
            view.set_hints(triggers)
        if not hits:
            return spans
        _, where = fold_map(text)
        for start, end, pattern in hits:
            begin, finish = where[start], where[end - 1] + 1
            # Latin names only count where written as names: "Housing Authority", not
            # "housing authority" (nor "Housing authority" at the start of a sentence).
            if pattern.rule == "name" and not _written_as_name(
                narrow(text[begin:finish]), pattern.capitals
            ):
                continue
            spans.append((begin, finish, pattern.kind, pattern.why))
        return spans

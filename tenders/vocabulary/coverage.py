"""The coverage check: every word of a public summary must be in the public vocabulary. Pure.

The vocabulary is the concepts' labels in three languages, the summary templates' phrases, the
market and category names, a curated list of generic procurement words (``data/words.tsv``) and
the words staff added (passed in). English is checked word by word (a plural or singular of a
known word counts as known); numbers of up to three digits are the only figures the templates
write. Chinese is read as Simplified (Traditional text through ``t2s``) and each run of Han
characters must split into pieces of the vocabulary: two to four characters found in its
Chinese texts, or a single character that stands alone in them. What cannot be split is reported
as the unknown span.
"""

import csv
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from ..chinese import hong_kong_wording, to_simplified
from ..markets import MARKETS
from . import summaries
from .cpv import DATA, concepts

# Letters and digits together are one token: "6D063" is a reference, not "6", "D" and "063".
_LATIN = re.compile(r"[A-Za-z0-9]+")
_HAN = re.compile(r"[\u3400-\u9fff]+")
PIECE_MAX = 4
CACHED_TEXTS = 65_536
NUMBER_DIGITS_MAX = 3


def _en_words(text: str) -> set[str]:
    return {w.lower() for w in _LATIN.findall(text) if not w.isdigit()}


def _known_en(word: str, known: frozenset) -> bool:
    if word in known:
        return True
    for suffix, replacement in (("ies", "y"), ("es", ""), ("s", ""), ("", "s")):
        if word.endswith(suffix) and (word[: len(word) - len(suffix)] + replacement) in known:
            return True
    return False


def template_texts() -> list[tuple[str, str]]:
    """Every fixed (English, Simplified Chinese) phrase the summary templates write."""
    pairs = [*summaries.KINDS.values(), *summaries.BUYER_KINDS.values()]
    pairs += [summaries.DEFAULT_BUYER, *summaries.PROCEDURES.values(), summaries.FRAMEWORK]
    pairs += [summaries.LOTS, summaries.MONTHS, summaries.YEARS, summaries.ONE_YEAR]
    pairs += [summaries.ALSO, ("the", summaries.WHAT_ZH)]
    pairs += [(m.name_en, m.name_zh) for m in MARKETS.values()]
    return [(en.replace("{n}", " "), zh.replace("{n}", "，")) for en, zh in pairs]


@cache
def _generic() -> tuple[tuple[str, ...], tuple[str, ...]]:
    en, zh = [], []
    with (DATA / "words.tsv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            (en if row["lang"] == "en" else zh).extend(row["word"].split())
    return tuple(en), tuple(zh)


@dataclass(frozen=True)
class Vocabulary:
    """The public vocabulary, ready to check text. Build with ``vocabulary(...)``."""

    en: frozenset
    pieces: frozenset
    singles: frozenset

    def __post_init__(self):
        # Summaries built from the templates repeat across thousands of records: each distinct
        # text is checked once per process.
        object.__setattr__(self, "_checked", lru_cache(maxsize=CACHED_TEXTS)(self._unknown))
        # ... and their runs of Chinese (采购内容, 加拿大公共机构采购货物) far more.
        object.__setattr__(self, "_split", lru_cache(maxsize=CACHED_TEXTS)(self._unsplit))

    def unknown(self, text: str, lang: str) -> list[str]:
        """The words of ``text`` that are not in the vocabulary, in order, each once."""
        return list(self._checked(text, lang != "en"))

    def _unknown(self, text: str, chinese: bool) -> tuple[str, ...]:
        found: list[str] = []
        for word in _LATIN.findall(text):
            if word.isdigit():
                if len(word) > NUMBER_DIGITS_MAX:
                    found.append(word)
            elif not _known_en(word.lower(), self.en):
                found.append(word)
        if chinese:
            simplified = to_simplified(text)
            for run in _HAN.finditer(simplified):
                for start, end in self._split(run.group(0)):
                    # Report the span as written (Traditional stays Traditional).
                    found.append(text[run.start() + start : run.start() + end])
        return tuple(dict.fromkeys(found))

    def covers(self, summaries_: dict[str, str]) -> bool:
        return not any(self.unknown(text, lang) for lang, text in summaries_.items() if text)

    def _unsplit(self, run: str) -> tuple[tuple[int, int], ...]:
        """Spans of ``run`` that no split into vocabulary pieces covers (empty: all covered).
        Dynamic programming from the end: best[i] = fewest uncovered characters of run[i:]."""
        size = len(run)
        best = [0] * (size + 1)
        step = [1] * (size + 1)
        for i in range(size - 1, -1, -1):
            best[i], step[i] = best[i + 1] + 1, -1  # character i uncovered
            if run[i] in self.singles and best[i + 1] < best[i]:
                best[i], step[i] = best[i + 1], 1
            for length in range(2, min(PIECE_MAX, size - i) + 1):
                if run[i : i + length] in self.pieces and best[i + length] < best[i]:
                    best[i], step[i] = best[i + length], length
        spans: list[tuple[int, int]] = []
        i = 0
        while i < size:
            if step[i] == -1:
                if spans and spans[-1][1] == i:
                    spans[-1] = (spans[-1][0], i + 1)
                else:
                    spans.append((i, i + 1))
                i += 1
            else:
                i += step[i]
        return tuple(spans)


def _pieces(texts: Iterable[str]) -> tuple[set[str], set[str]]:
    pieces, singles = set(), set()
    for text in texts:
        for run in _HAN.findall(to_simplified(text)):
            if len(run) == 1:
                singles.add(run)
            for length in range(2, PIECE_MAX + 1):
                for i in range(len(run) - length + 1):
                    pieces.add(run[i : i + length])
    return pieces, singles


@cache
def _base() -> tuple[frozenset, frozenset, frozenset]:
    english, chinese = [], []
    for c in concepts().values():
        english += [c.en, c.zh]  # the acronyms a Chinese label keeps (LED, USB) are words too
        chinese += [c.zh, hong_kong_wording(c.zh), c.zht]
    for en, zh in template_texts():
        english.append(en)
        chinese += [zh, hong_kong_wording(zh)]
    generic_en, generic_zh = _generic()
    english += generic_en
    chinese += generic_zh
    words = set()
    for text in english:
        words |= _en_words(text)
    pieces, singles = _pieces(chinese)
    return frozenset(words), frozenset(pieces), frozenset(singles)


@cache
def vocabulary(extra: tuple[tuple[str, str], ...] = ()) -> Vocabulary:
    """The vocabulary with ``extra`` (lang, text) entries: category names, words staff added.
    Cached by its entries, so pass a tuple in a stable order."""
    words, pieces, singles = _base()
    extra_en = [text for lang, text in extra if lang == "en"]
    extra_zh = [text for lang, text in extra if lang != "en"]
    more_words = set().union(*map(_en_words, extra_en)) if extra_en else set()
    more_pieces, more_singles = _pieces(extra_zh + [hong_kong_wording(t) for t in extra_zh])
    return Vocabulary(
        en=words | more_words, pieces=pieces | more_pieces, singles=singles | more_singles
    )

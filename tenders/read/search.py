"""Substring search over the public text that works for Chinese, at a million rows.

``q`` is a case-insensitive substring match over the three summaries and the three category
names. A trigram index cannot serve one- and two-character queries, and Chinese has no spaces,
so each snapshot row stores three derived columns, computed once at publication:

- ``search_text``: all six texts normalised (NFKC, casefold, whitespace folded), with every CJK
  character standing alone between spaces. The exact match is always checked against it.
- ``search_latin``: the same text with the CJK characters taken out. A trigram index on it
  finds the candidates for queries without CJK characters (three letters or more).
- ``search_cjk``: the distinct CJK characters of the row. A GIN index on it finds the rows that
  contain every CJK character of the query (the unigram inverted index that full-text engines
  use for Chinese), which serves ``q=医`` and ``q=医疗`` alike.

Candidates from an index are then rechecked with ``LIKE`` on ``search_text``, so results are
exact. One visible difference from a raw substring match: whitespace next to a CJK character
is ignored. Splitting the index this way builds in about 60% of the time one trigram index over
everything takes (publication builds it for every issue).

A query is one or more *terms* (:func:`parse_terms`): words separated by whitespace, each a
substring that must occur (in any order), or phrases in double quotes that must occur as
written. One word is one term, exactly as a whole query used to be.
"""

import functools
import json
import operator
import re
import unicodedata
from functools import reduce

from django.db import connection
from django.db.models import Q

# Han ideographs (with extension A and compatibility forms), kana, Hangul and CJK punctuation.
_WIDE = (
    "\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3190-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f"
)
_WIDE_CHAR = re.compile(f"[{_WIDE}]")
_WIDE_RUN = re.compile(f"[{_WIDE}]+")
_WIDE_RUN_SPLIT = re.compile(f"([{_WIDE}]+)")
_TRIGRAM = re.compile(r"[^\W_]{3}")

# The search indexes every snapshot gets where the store has them (PostgreSQL), by name:
# trigrams of the Latin text, and the CJK characters (``matches`` relies on both).
INDEXES = {
    "latin": "USING gin (search_latin gin_trgm_ops)",
    "cjk": "USING gin (search_cjk jsonb_path_ops)",
}


def _space_run(match: re.Match) -> str:
    return " " + " ".join(match.group()) + " "


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    # One callback per run of CJK characters (a few per summary), not one per character.
    return " ".join(_WIDE_RUN.sub(_space_run, text).split())


def is_wide(char: str) -> bool:
    return _WIDE_CHAR.fullmatch(char) is not None


def search_columns(*parts: str, repeated: tuple[str, ...] = ()) -> tuple[str, str, list[str]]:
    """(search_text, search_latin, search_cjk) for a row's public texts: those of the texts
    joined by spaces (``parts``, then ``repeated``). Computed text by text (NFKC, case folding
    and the split at CJK runs all work alike on the parts of a space-joined text), which lets
    English skip all three, and texts that many rows share (``repeated``: the category names)
    be computed once per process."""
    columns = [*map(_columns_of, parts), *map(_columns_of_repeated, repeated)]
    text, latin, cjk = zip(*columns, strict=True) if columns else ((), (), ())
    return (
        " " + " ".join(filter(None, text)) + " ",
        " " + " ".join(filter(None, latin)) + " ",
        sorted(set("".join(cjk))),
    )


def _columns_of(part: str) -> tuple[str, str, str]:
    """One text's words normalised, its Latin words, and its CJK characters (each a string)."""
    if part.isascii():
        words = " ".join(part.lower().split())
        return words, words, ""
    # One split gives both kinds of run: Latin at even positions, CJK at odd ones.
    pieces = _WIDE_RUN_SPLIT.split(nfkc(part).casefold())
    latin = " ".join(" ".join(pieces[0::2]).split())
    runs = pieces[1::2]
    cjk = "".join(runs)
    pieces[1::2] = map(" ".join, runs)
    return " ".join(" ".join(pieces).split()), latin, cjk


_columns_of_repeated = functools.lru_cache(maxsize=1024)(_columns_of)


def nfkc(text: str) -> str:
    """``unicodedata.normalize("NFKC", text)``, several times faster on Chinese text.

    CPython normalizes slowly past the first character that needs it, and Chinese summaries
    have such characters (full-width punctuation) among hundreds of ideographs that need
    nothing. Here only the characters that change on their own are replaced; when the result
    is normalized it is the same as NFKC of the whole (NFKC(s) = NFKC(s with any character c
    replaced by NFKC(c))), else (combining marks) the whole text is normalized as usual.
    """
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return text
    mapped = _changing().sub(_nfkc_char, text)
    if unicodedata.is_normalized("NFKC", mapped):
        return mapped
    return unicodedata.normalize("NFKC", text)


def _nfkc_char(match: re.Match) -> str:
    return unicodedata.normalize("NFKC", match.group())


@functools.cache
def _changing() -> re.Pattern:
    """The characters of the Basic Multilingual Plane that NFKC changes on their own (made
    once per process, on first use: about 0.1 s)."""
    ranges, start, end = [], None, None
    for code in range(0xA0, 0x10000):
        char = chr(code)
        if 0xD800 <= code < 0xE000 or unicodedata.normalize("NFKC", char) == char:
            continue
        if end is not None and code == end + 1:
            end = code
            continue
        if start is not None:
            ranges.append((start, end))
        start = end = code
    ranges.append((start, end))
    spans = (re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in ranges)
    return re.compile(f"[{''.join(spans)}]")


def contains_pattern(query: str) -> str:
    """The literal to look for in ``search_text`` (the caller wraps it in ``%...%``).

    A query that starts or ends with a CJK character is anchored on the space that always
    frames such a character in the column.
    """
    core = normalize(query)
    if not core:
        return ""
    return (" " if is_wide(core[0]) else "") + core + (" " if is_wide(core[-1]) else "")


# --- the query: words and phrases ------------------------------------------------------

MAX_TERMS = 8
# NFKC turns the full-width quote into ASCII; typographic quotes are quotes too.
_QUOTE = re.compile('["\u201c\u201d]')


class QueryError(ValueError):
    """``q`` cannot be searched for; the message says what to send instead."""


def parse_terms(text: str) -> tuple[str, ...]:
    """The terms of a query, canonical: normalised, without duplicates or terms implied by
    another (``net`` by ``network``), sorted. Two queries that find the same rows through the
    same terms get the same tuple, whatever their order or spelling.

    Raises ``QueryError`` for an unmatched quote, an empty phrase or more than
    ``MAX_TERMS`` words and phrases.
    """
    pieces = _QUOTE.split(unicodedata.normalize("NFKC", text))
    if len(pieces) % 2 == 0:
        raise QueryError(
            'q has an unmatched double quote; close the phrase ("fleet maintenance") or '
            "remove the quote."
        )
    raw = []
    for i, piece in enumerate(pieces):
        if i % 2:  # inside quotes: one phrase
            if not piece.strip():
                raise QueryError(
                    'q has an empty phrase (""); put words between the quotes or remove them.'
                )
            raw.append(piece)
        else:
            raw.extend(piece.split())
    if not raw:
        raise QueryError("q is empty; give a word, several words or a phrase in double quotes.")
    if len(raw) > MAX_TERMS:
        raise QueryError(
            f"q has {len(raw)} words and phrases; the most is {MAX_TERMS}. Leave out the "
            'least telling ones, or join words that belong together in double quotes ("like '
            'this").'
        )
    patterns = {contains_pattern(term): normalize(term) for term in raw}
    if "" in patterns:
        raise QueryError("q has nothing to search for; give letters, digits or characters.")
    kept = {
        term
        for pattern, term in patterns.items()
        if not any(pattern != other and pattern in other for other in patterns)
    }
    return tuple(sorted(kept))


def canonical(terms: tuple[str, ...]) -> str:
    """The terms as one text for keys: a single term as itself, as before several were
    allowed; several as a JSON list (no term contains a double quote, so no term can be
    mistaken for a list)."""
    if len(terms) == 1:
        return terms[0]
    return json.dumps(list(terms), ensure_ascii=False)


def matches(terms: tuple[str, ...] | str) -> Q:
    """The filter for ``q``: rows containing every term. Index-friendly candidates (all the
    CJK characters of all terms in one lookup, the trigrams of each Latin term), then the exact
    substring check of each term."""
    if isinstance(terms, str):
        terms = (terms,)
    patterns = [contains_pattern(term) for term in terms]
    if not patterns or not all(patterns):
        raise ValueError("empty search query")
    exact = reduce(operator.and_, (Q(search_text__contains=p) for p in patterns))
    # The indexes are built with each snapshot where the database has them (PostgreSQL).
    if connection.vendor != "postgresql":
        return exact
    chars = sorted({c for p in patterns for c in _WIDE_CHAR.findall(p)})
    found = [Q(search_cjk__contains=chars)] if chars else []
    found += [Q(search_latin__contains=p) for p in patterns if has_trigram(p)]
    return reduce(operator.and_, found, exact)


def has_trigram(pattern: str) -> bool:
    """Whether the trigram index can narrow a Latin pattern: it needs three letters or digits
    in a row. For ``ab`` or ``a b`` it would read its whole posting lists, several times
    slower than checking every row (what the query does without it)."""
    return not _WIDE_CHAR.search(pattern) and _TRIGRAM.search(pattern) is not None

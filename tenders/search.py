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
"""

import re
import unicodedata

from django.db.models import Q

# Han ideographs (with extension A and compatibility forms), kana, Hangul and CJK punctuation.
_WIDE = (
    "\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3190-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f"
)
_WIDE_CHAR = re.compile(f"[{_WIDE}]")
_WIDE_RUN = re.compile(f"[{_WIDE}]+")
_WIDE_RUN_SPLIT = re.compile(f"([{_WIDE}]+)")

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


def search_columns(*parts: str) -> tuple[str, str, list[str]]:
    """(search_text, search_latin, search_cjk) for a row's public texts."""
    folded = unicodedata.normalize("NFKC", " ".join(p for p in parts if p)).casefold()
    # One split gives both kinds of run: Latin at even positions, CJK at odd ones.
    pieces = _WIDE_RUN_SPLIT.split(folded)
    latin = " ".join(" ".join(pieces[0::2]).split())
    cjk_runs = pieces[1::2]
    text = " ".join(" ".join(piece) if i % 2 else piece for i, piece in enumerate(pieces)).split()
    return " " + " ".join(text) + " ", f" {latin} ", sorted(set("".join(cjk_runs)))


def contains_pattern(query: str) -> str:
    """The literal to look for in ``search_text`` (the caller wraps it in ``%...%``).

    A query that starts or ends with a CJK character is anchored on the space that always
    frames such a character in the column.
    """
    core = normalize(query)
    if not core:
        return ""
    return (" " if is_wide(core[0]) else "") + core + (" " if is_wide(core[-1]) else "")


def matches(query: str) -> Q:
    """The filter for ``q``: index-friendly candidates, then the exact substring check."""
    pattern = contains_pattern(query)
    if not pattern:
        raise ValueError("empty search query")
    exact = Q(search_text__contains=pattern)
    from .publication.storage import snapshot_store  # the store builds on this module

    if not snapshot_store().indexed_search:
        return exact
    chars = sorted(set(_WIDE_CHAR.findall(pattern)))
    if chars:
        return Q(search_cjk__contains=chars) & exact
    return Q(search_latin__contains=pattern) & exact

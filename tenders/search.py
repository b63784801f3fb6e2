"""Substring search that works for Chinese: the normalised text and the query pattern.

PostgreSQL's trigram index cannot serve one- and two-character queries, and Chinese text has no
spaces, so a plain trigram index finds nothing useful for ``q=医`` or ``q=医疗``. We store a
search column in which every CJK character stands as its own word (surrounded by spaces). The
trigram extractor pads words at word boundaries, so a one-character query becomes the pattern
``% 医 %`` with the indexable trigrams ``"  医"`` and ``" 医 "``; two characters give four.
Latin text is untouched, so three-letter and longer Latin queries use the same index as usual.

Both sides go through :func:`normalize` (NFKC, casefold, CJK spacing, whitespace folding), so
the match is case-insensitive and full-width letters match their ASCII forms. The one visible
difference from a raw substring match: whitespace next to a CJK character is ignored.
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


def _space_run(match: re.Match) -> str:
    return " " + " ".join(match.group()) + " "


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    # One callback per run of CJK characters (a few per summary), not one per character.
    return " ".join(_WIDE_RUN.sub(_space_run, text).split())


def search_text(*parts: str) -> str:
    """The stored search column: normalised parts, framed by single spaces."""
    return " " + normalize(" ".join(p for p in parts if p)) + " "


def is_wide(char: str) -> bool:
    return _WIDE_CHAR.fullmatch(char) is not None


def contains_pattern(query: str) -> str:
    """The literal to look for in the search column (the caller wraps it in ``%...%``).

    A query that starts or ends with a CJK character is anchored on the space that always
    frames such a character in the column, which is what makes it indexable.
    """
    core = normalize(query)
    if not core:
        return ""
    return (" " if is_wide(core[0]) else "") + core + (" " if is_wide(core[-1]) else "")


def matches(query: str) -> Q:
    """The filter for ``q`` on snapshot rows: the search column contains the query."""
    pattern = contains_pattern(query)
    if not pattern:
        raise ValueError("empty search query")
    return Q(search_text__contains=pattern)

"""Exact search counts from an inverted index: which rows hold each *key* of ``search_text``.

Counting the rows of a ``q`` with ``LIKE`` reads every candidate row of the snapshot (about a
second for a word in a third of a million rows). The same count follows from postings built
once per snapshot by a job after publication (``tenders.read.postings_store``): each row gets an
ordinal, each key a set of ordinals, and a term's rows are the union of the postings of a few
keys. This module is the pure part: the keys of a row, how a term maps to keys, the stored
form of a set of ordinals and the count over the ordinal ranges of the chosen cells.

Keys of a row (``search_text`` as ``tenders.read.search`` writes it: normalised, every CJK
character alone between spaces, tokens separated by one space):

- its Latin tokens (tokens without a wide character);
- its CJK characters (each such token is one wide character);
- its CJK bigrams and trigrams: two or three wide characters that are consecutive tokens.

A term's pattern (``contains_pattern``) maps to keys exactly (``term_plan``):

- no space and no wide character: it can only occur inside one token, a Latin one, so its rows
  are the union of the postings of every Latin key that contains it;
- `` a `` (one wide character): the key ``a``; `` a b ``: the bigram ``ab``; `` a b c ``: the
  trigram ``abc``;
- anything else (phrases, Latin beside CJK, four CJK characters or more): no plan, the count
  stays the ``LIKE`` count.

Postings stored under another ``SCHEME`` (another set of keys) count as not built: a plan could
name a key they never had.

Ordinals: a snapshot's rows are grouped by their ``IssueCount`` cell, cell *i* (in primary key
order) owning ordinals ``[start_i, start_i + rows_i)``; a count restricted by the other filters
is a popcount over the ranges of the cells those filters select (the same filter code as the
total without ``q``).

A set of ordinals is stored either as a bitmap of ``n`` bits (bit *i* of the little-endian
integer is ordinal *i*) when the key is frequent (more than ``n / 32`` rows: the bitmap is then
no larger than the list), or as packed little-endian unsigned 32-bit ordinals, sorted.
"""

import re
import sys
from array import array
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat

from tenders.read.search import _WIDE, contains_pattern, is_wide

# The keys a row gets, as stored postings record them: 2 added CJK trigrams.
SCHEME = 2
# A key in more than n / DENSE_SHARE rows is stored as a bitmap.
DENSE_SHARE = 32
# One byte per ordinal (0 or 1) to ASCII "0"/"1": int(..., 2) then packs them into bits at C
# speed (the bytes reversed, so that ordinal 0 is the lowest bit).
_TO_DIGITS = bytes.maketrans(b"\x00\x01", b"01")
_BITS = tuple(1 << i for i in range(8))
# Two wide characters that are consecutive tokens, and the third when it follows as the next
# token ("" when not): the second and third are looked ahead, so that every pair and triple is
# found, overlapping, in one pass.
_NGRAM = re.compile(f"(?<= )([{_WIDE}]) (?=([{_WIDE}]) (?:([{_WIDE}]) )?)")


def keys_of(search_text: str) -> set[str]:
    """The keys of one row: Latin tokens, CJK characters, CJK bigrams and trigrams."""
    keys = set(search_text.split())  # Latin tokens and CJK characters (each its own token)
    for a, b, c in _NGRAM.findall(search_text):
        keys.add(a + b)
        if c:
            keys.add(a + b + c)
    return keys


@dataclass(frozen=True)
class TermPlan:
    """A term's rows: the postings of ``key``, or the union of the postings of every Latin key
    containing ``inside``."""

    key: str | None = None
    inside: str | None = None

    def takes(self, key: str) -> bool:
        """Whether ``key``'s postings are part of this term's rows."""
        if self.key is not None:
            return key == self.key
        return self.inside in key and not is_wide(key[0])


def term_plan(term: str) -> TermPlan | None:
    """How the rows of ``term`` follow from key postings, exactly; None when they do not."""
    pattern = contains_pattern(term)
    if not pattern:
        return None
    if " " not in pattern and not any(is_wide(c) for c in pattern):
        return TermPlan(inside=pattern)
    core = pattern.split(" ")
    if pattern[0] == " " and pattern[-1] == " ":
        chars = core[1:-1]
        if len(chars) in (1, 2, 3) and all(len(c) == 1 and is_wide(c) for c in chars):
            return TermPlan(key="".join(chars))
    return None


def plans_of(terms: Sequence[str]) -> list[TermPlan] | None:
    """The plans of every term, or None if one has none."""
    plans = [term_plan(term) for term in terms]
    return None if any(plan is None for plan in plans) else plans


# --- stored form of a set of ordinals ---------------------------------------------------


def nbytes(n: int) -> int:
    return (n + 7) // 8


def is_dense(count: int, n: int) -> bool:
    return count * DENSE_SHARE > n


def encode(ordinals: array, n: int) -> tuple[bool, bytes]:
    """(dense, bytes) of a set of ordinals below ``n`` (an ``array('I')``, any order, no
    duplicates)."""
    if is_dense(len(ordinals), n):
        return True, _bitmap(ordinals, n).to_bytes(nbytes(n), "little")
    ordered = array("I", sorted(ordinals))
    if sys.byteorder == "big":
        ordered.byteswap()
    return False, ordered.tobytes()


def decode_sparse(blob: bytes) -> array:
    ordinals = array("I")
    ordinals.frombytes(blob)
    if sys.byteorder == "big":
        ordinals.byteswap()
    return ordinals


def _bitmap(ordinals: Iterable[int], n: int, flags: bytearray | None = None) -> int:
    """The integer with bit i set for each ordinal i (one C-speed pass: a byte per ordinal,
    then the bytes read as binary digits)."""
    if flags is None:
        flags = bytearray(n)
    deque(map(flags.__setitem__, ordinals, repeat(1)), maxlen=0)
    return int(flags.translate(_TO_DIGITS)[::-1], 2) if n else 0


def union(postings: Iterable[tuple[bool, bytes]], n: int) -> int:
    """The bitmap (an integer) of the union of stored sets of ordinals."""
    mask = 0
    flags = None
    for dense, blob in postings:
        if dense:
            mask |= int.from_bytes(blob, "little")
        else:
            if flags is None:
                flags = bytearray(n)
            deque(map(flags.__setitem__, decode_sparse(blob), repeat(1)), maxlen=0)
    if flags is not None:
        mask |= int(flags.translate(_TO_DIGITS)[::-1], 2)
    return mask


# --- counting over the chosen cells -------------------------------------------------------


def ranges(cells: Sequence[tuple[int, int]], chosen: Iterable[int]) -> list[tuple[int, int]]:
    """The ordinal ranges ``[start, end)`` of the chosen cells, adjacent ones merged.

    ``cells``: (cell id, rows) of every cell of the issue in ordinal order."""
    chosen = set(chosen)
    merged: list[tuple[int, int]] = []
    start = 0
    for cell, rows in cells:
        end = start + rows
        if cell in chosen and rows:
            if merged and merged[-1][1] == start:
                merged[-1] = (merged[-1][0], end)
            else:
                merged.append((start, end))
        start = end
    return merged


def popcount(bitmap: bytes | memoryview, start: int, end: int) -> int:
    """The set bits among bits ``[start, end)`` of a little-endian bitmap."""
    if start >= end:
        return 0
    first, last = start >> 3, (end - 1) >> 3
    low, high = start & 7, (end - 1) & 7
    if first == last:
        return ((bitmap[first] >> low) & ((1 << (high - low + 1)) - 1)).bit_count()
    head = (bitmap[first] >> low).bit_count()
    tail = (bitmap[last] & ((1 << (high + 1)) - 1)).bit_count()
    return head + int.from_bytes(bitmap[first + 1 : last], "little").bit_count() + tail


def count(masks: Sequence[int], n: int, spans: Sequence[tuple[int, int]]) -> int:
    """The ordinals in every one of ``masks`` (the terms' bitmaps) within ``spans``."""
    if not masks or not spans:
        return 0
    both = masks[0]
    for mask in masks[1:]:
        both &= mask
    if len(spans) == 1 and spans[0] == (0, n):
        return both.bit_count()
    bitmap = memoryview(both.to_bytes(nbytes(n), "little"))
    return sum(popcount(bitmap, start, end) for start, end in spans)


def term_masks(
    plans: Sequence[TermPlan], postings: Iterable[tuple[str, bool, bytes]], n: int
) -> list[int]:
    """Each plan's bitmap from the postings of the keys it takes (``postings``: key, dense,
    bytes of at least those keys)."""
    found: list[list[tuple[bool, bytes]]] = [[] for _ in plans]
    for key, dense, blob in postings:
        for i, plan in enumerate(plans):
            if plan.takes(key):
                found[i].append((dense, blob))
    return [union(each, n) for each in found]


class Builder:
    """Postings of rows added in any ordinal order, with modest memory: a key's ordinals are
    kept as a list until the key is frequent (``is_dense``), then as a bitmap of ``n / 8``
    bytes, however many rows hold it."""

    PROMOTE_EVERY = 20_000  # rows between looks for lists grown frequent

    def __init__(self, n: int):
        self.n = n
        self.lists: dict[str, array] = {}
        self.bitmaps: dict[str, bytearray] = {}
        self.dense: set[str] = set()
        self.added = 0

    def add(self, ordinal: int, text: str) -> None:
        """Add the row ``ordinal`` (each ordinal once)."""
        if not 0 <= ordinal < self.n:
            raise ValueError(f"ordinal {ordinal} out of range (of {self.n})")
        keys = keys_of(text)
        if self.dense:
            byte, bit = ordinal >> 3, _BITS[ordinal & 7]
            bitmaps = self.bitmaps
            for key in keys & self.dense:
                bitmaps[key][byte] |= bit
            keys -= self.dense
        lists = self.lists
        for key in keys:
            found = lists.get(key)
            if found is None:
                found = lists[key] = array("I")
            found.append(ordinal)
        self.added += 1
        if self.added % self.PROMOTE_EVERY == 0:
            self._promote()

    def _promote(self) -> None:
        n = self.n
        for key in [key for key, found in self.lists.items() if is_dense(len(found), n)]:
            bits = _bitmap(self.lists.pop(key), n)
            self.bitmaps[key] = bytearray(bits.to_bytes(nbytes(n), "little"))
            self.dense.add(key)

    def finish(self) -> dict[str, tuple[bool, bytes]]:
        """Every key's stored set (the builder is spent)."""
        self._promote()
        stored = {}
        for key in list(self.bitmaps):  # each bitmap freed once copied
            stored[key] = (True, bytes(self.bitmaps.pop(key)))
        for key in list(self.lists):
            stored[key] = encode(self.lists.pop(key), self.n)
        return stored


def build(rows: Iterable[tuple[int, str]], n: int) -> dict[str, tuple[bool, bytes]]:
    """The postings of rows given as (ordinal, search_text), each ordinal once."""
    builder = Builder(n)
    for ordinal, text in rows:
        builder.add(ordinal, text)
    return builder.finish()

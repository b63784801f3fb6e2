"""Text for terminals: display widths of mixed English and Chinese, cells, aligned tables.

A Chinese character takes two columns of a terminal, a combining mark none, so ``len()`` cannot
align a table of trilingual text; :func:`text_width` counts columns with
``unicodedata.east_asian_width``. Text from the network is also cleaned of control characters
before it reaches a terminal (a stray escape sequence could rewrite the screen).
"""

import unicodedata
from collections.abc import Iterable, Sequence

ELLIPSIS = "..."  # ASCII: "…" is one column or two depending on the terminal's locale


def clean(text: str) -> str:
    """One line of printable text: control and separator characters become spaces."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in text)


def char_width(char: str) -> int:
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def text_width(text: str) -> int:
    """Columns ``text`` takes in a terminal."""
    if text.isascii():
        return len(text)
    return sum(char_width(c) for c in text)


def cut(text: str, columns: int) -> str:
    """``text`` in at most ``columns`` columns, ending in "..." when something was left out."""
    if text_width(text) <= columns:
        return text
    if columns <= len(ELLIPSIS):
        return ELLIPSIS[:columns]
    room, used, kept = columns - len(ELLIPSIS), 0, []
    for char in text:
        width = char_width(char)
        if used + width > room:
            break
        kept.append(char)
        used += width
    return "".join(kept).rstrip() + ELLIPSIS


# Where a shared start may end: after punctuation or a space, so no word is cut in two.
BOUNDARIES = frozenset(" ,.:;，。：；、")


class CommonStart:
    """The start every text added shares, ending at a boundary and never a whole text: the
    template words that begin every summary of a table (``采购内容`` and its colon), which
    say nothing about one row. One pass, so the texts may come from a file."""

    def __init__(self) -> None:
        self.common: str | None = None
        self.shortest = 0
        self.count = 0

    def add(self, text: str) -> None:
        self.count += 1
        if self.common is None:
            self.common, self.shortest = text, len(text)
            return
        self.shortest = min(self.shortest, len(text))
        common, same = self.common, 0
        for mine, theirs in zip(common, text, strict=False):
            if mine != theirs:
                break
            same += 1
        self.common = common[:same]

    def value(self) -> str:
        if self.count < 2 or not self.common:
            return ""
        start = self.common[: self.shortest - 1]
        end = max((i + 1 for i, char in enumerate(start) if char in BOUNDARIES), default=0)
        return start[:end]


def after_start(text: str, start: str) -> str:
    """``text`` without ``start`` (and the spaces after it)."""
    return text[len(start) :].lstrip() if start and text.startswith(start) else text


def cell(text: str, columns: int, *, right: bool = False) -> str:
    """``text`` cut and padded to exactly ``columns`` columns."""
    text = cut(text, columns)
    pad = " " * (columns - text_width(text))
    return pad + text if right else text + pad


def render(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    widths: Sequence[int],
    right: Sequence[bool] = (),
    gap: str = "  ",
) -> list[str]:
    """Aligned lines; the last column is cut to its width but not padded."""
    right = list(right) + [False] * (len(widths) - len(right))
    lines = []
    for values in [header, *rows] if header else rows:
        cells = [
            cell(clean(value), width, right=align)
            for value, width, align in zip(values, widths, right, strict=True)
        ]
        lines.append(gap.join(cells).rstrip())
    return lines


def fit_widths(
    header: Sequence[str], rows: Iterable[Sequence[str]], limits: Sequence[int | None]
) -> list[int]:
    """Each column as wide as its widest value (or header), at most its limit. One pass over
    ``rows``, so they may come from a file."""
    widths = [text_width(name) for name in header] if header else [0] * len(limits)
    for row in rows:
        for index, value in enumerate(row):
            widths[index] = max(widths[index], text_width(clean(value)))
    return [w if limit is None else min(w, limit) for w, limit in zip(widths, limits, strict=True)]

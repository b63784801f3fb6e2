"""The CPV 2008 concepts with our three labels. Pure: read once from ``data/cpv.tsv``.

A concept is a CPV code (8 digits, no check digit) with its official English label and our own
Simplified (mainland wording) and Traditional (Hong Kong wording) Chinese labels. The codes form
a tree by their significant digits: a division (``33000000``) holds groups (``33100000``), a
group classes (``33110000``), a class categories (``33111000``), a category subcategories
(``33111100``).
"""

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA = Path(__file__).with_name("data")
LEVELS = ("division", "group", "class", "category", "subcategory")


@dataclass(frozen=True)
class Concept:
    code: str
    en: str
    zh: str
    zht: str

    @property
    def level(self) -> int:
        """0 division, 1 group, 2 class, 3 category, 4 subcategory."""
        return level_of(self.code)

    @property
    def level_name(self) -> str:
        return LEVELS[self.level]

    def label(self, lang: str) -> str:
        return {"en": self.en, "zh": self.zh, "zht": self.zht}[lang]

    def __str__(self) -> str:
        return f"{self.code} {self.en} / {self.zh} / {self.zht}"


def level_of(code: str) -> int:
    """How deep a code sits: the significant digits past the division's two."""
    significant = len(code.rstrip("0"))
    return min(max(significant - 2, 0), 4)


def prefix(code: str) -> str:
    """The digits that name a code's subtree (``33100000`` -> ``331``)."""
    return code[: 2 + level_of(code)]


def in_subtree(code: str, root: str) -> bool:
    return code.startswith(prefix(root))


@cache
def concepts() -> dict[str, Concept]:
    """Every concept by code, in code order."""
    with (DATA / "cpv.tsv").open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(rows)
        return {code: Concept(code, en, zh, zht) for code, en, zh, zht in rows}


def concept(code: str) -> Concept | None:
    return concepts().get(code)


def nearest(code: str) -> Concept | None:
    """The concept of a code, or of its nearest ancestor in the vocabulary (a code with a check
    digit, ``33112200-1``, or one missing from CPV 2008 falls back to its parent)."""
    digits = "".join(c for c in code.split("-", 1)[0] if c.isdigit())[:8]
    if len(digits) < 2:
        return None
    digits = digits.ljust(8, "0")
    table = concepts()
    for size in range(max(len(digits.rstrip("0")), 2), 1, -1):
        found = table.get(digits[:size].ljust(8, "0"))
        if found:
            return found
    return None


def parent(code: str) -> Concept | None:
    size = len(prefix(code))
    if size <= 2:
        return None
    return nearest(code[: size - 1].ljust(8, "0"))


def division(code: str) -> str:
    return code[:2].ljust(8, "0")


def group(code: str) -> str:
    return code[:3].ljust(8, "0")


def klass(code: str) -> str:
    return code[:4].ljust(8, "0")


def subtree(root: str) -> list[Concept]:
    start = prefix(root)
    return [c for code, c in concepts().items() if code.startswith(start)]

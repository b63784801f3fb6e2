"""The coded public samples the classifier learns from and is measured on. Needs ``../shared``.

Each coded notice's *truth* is the concept its own codes give (CPV, or UNSPSC and GSIN through
the concordance tables), without the title. A fixed part of the notices, chosen by a hash of
the notice id (``held_out``), is never learned from: ``bench/classify_accuracy.py`` measures
the title classifier on it.
"""

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..importers import eforms, gld, ocds
from ..importers.notice import Notice
from ..importers.sources import read_notices
from .classify import by_code

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
HELD_OUT_SHARE = 30  # percent
SOURCES = [
    ("GB", ocds, "ocds/gb-contracts-finder", "GB"),
    ("AU", ocds, "ocds/au-nsw-etendering", "AU"),
    ("CA", ocds, "ocds/ca-buyandsell-tenders-2014", "CA"),
    ("EU", eforms, "eforms", ""),
]
UNCODED = [("HK", gld, str(Path(__file__).resolve().parents[2] / "tests" / "data" / "gld"), "")]


def held_out(notice_id: str) -> bool:
    digest = hashlib.sha256(notice_id.encode()).digest()
    return int.from_bytes(digest[:4], "big") % 100 < HELD_OUT_SHARE


@dataclass(frozen=True)
class Sample:
    source: str
    notice: Notice
    truth: str  # CPV code from the notice's own codes ('' when none maps)

    @property
    def held_out(self) -> bool:
        return held_out(self.notice.notice_id)


def truth_of(notice: Notice) -> str:
    for scheme, code, description in notice.classifications:
        found, _ = by_code(scheme, code, description)
        if found:
            return found
    return ""


def samples(root: Path = SHARED) -> Iterator[Sample]:
    """Every notice of the coded samples (procedures that are not opportunities skipped)."""
    for source, reader, path, market in SOURCES:
        for built in read_notices(reader, str(root / path), market=market):
            if isinstance(built, Notice):
                yield Sample(source, built, truth_of(built))

"""The view's one-pass hints against plain substring tests (the reference they replace).

``View.marks`` and ``View.hints`` come from Aho-Corasick passes, run by the view itself or by
the directory's matcher on its way; the checks only try their patterns where these say so. A
mark or hint missed would let a secret through, one too many only costs time: here each must
be exactly what substring tests over the same text give, on the gate's corpora, the demo
records and texts made to hold every mark.
"""

import random
import re
from datetime import UTC, datetime

import pytest

from tenders.demo import demo_records
from tenders.sanitize import Gate
from tenders.sanitize.text import MONTHS
from tenders.sanitize.view import MARKS, SIGNS, TRIGGERS, View
from tests.gate_corpus import clean_corpus, directory_entries, planted
from tests.gate_corpus_b import clean_b, planted_b

GATE = Gate.of_names(directory_entries())


# What each mark stands for, as the checks wrote it before (a search in the narrowed text).
MEANT = {
    "honorific": r"M(?:r|s|iss|x)|Dr|Prof",
    "month_abbr": "|".join(sorted({m[:3] for m in MONTHS} | {m[:3].upper() for m in MONTHS})),
    "weekday": "Mon|Tue|Wed|Thu|Fri|Sat|Sun|MON|TUE|WED|THU|FRI|SAT|SUN",
    "cn_honorific": "先生|女士|小姐|太太",
    "cn_label": "联|聯|查|负责|負責|经办|經辦|致|询|詢|洽",
    "cn_scale": "[十百千万萬亿億拾佰仟]",
    "markup": "|".join(re.escape(s) for s, family in SIGNS.items() if family == "markup"),
    "currency": "|".join(re.escape(s) for s, family in SIGNS.items() if family == "currency"),
}


def reference_marks(text: str) -> frozenset[str]:
    narrowed = View(text).narrowed
    return frozenset(mark for mark, pattern in MEANT.items() if re.search(pattern, narrowed))


def reference_hints(text: str) -> frozenset[str]:
    view = View(text)
    words = {f for f, words in TRIGGERS.items() if any(w in view.folded for w in words)}
    signs = {family for sign, family in SIGNS.items() if sign in view.narrowed}
    return frozenset(words | signs)


def made_texts(count: int = 400, seed: int = 5) -> list[str]:
    """Texts made of the marks' words, trigger words and ordinary pieces, glued or spaced."""
    rng = random.Random(seed)
    pieces = [w for words in MARKS.values() for w in words]
    pieces += [w for words in TRIGGERS.values() for w in words]
    pieces += [w for pattern in MEANT.values() for w in pattern.strip("[]").split("|")]
    pieces += [
        "Miss",
        "Mrs",
        "ＭＲ",
        "Ｄｅｃ",
        "＄",
        "１２",
        "the",
        "合约",
        "Tender",
        "12",
        ".",
        "　",
    ]
    return [
        "".join(rng.choice(pieces) + rng.choice(["", " ", "-"]) for _ in range(rng.randint(1, 9)))
        for _ in range(count)
    ]


def corpus_texts() -> list[str]:
    texts = [item.text for item in planted() + planted_b()]
    texts += [text for text, _, _ in clean_corpus() + clean_b()]
    at = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)
    for record in demo_records(300, seed=11, at=at):
        texts += [record.summary_en, record.summary_zh, record.summary_zht, record.description]
    return texts + made_texts()


TEXTS = corpus_texts()


@pytest.mark.parametrize("directory", [False, True], ids=["alone", "after the directory"])
def test_marks_and_hints_are_the_substrings_they_stand_for(directory):
    wrong = []
    for text in TEXTS:
        view = View(text)
        if directory:
            GATE.matcher.spans(view)  # sets marks and hints on its way
        if view.marks != reference_marks(text) or view.hints != reference_hints(text):
            wrong.append((text, view.marks ^ reference_marks(text), view.hints))
    assert not wrong, wrong[:3]


def test_the_made_texts_hold_every_mark_and_hint():
    assert set().union(*map(reference_marks, TEXTS)) == set(MARKS) == set(MEANT)
    assert set().union(*map(reference_hints, TEXTS)) == set(TRIGGERS)


def test_a_view_without_marks_shares_nothing():
    quiet = View("plain words only")
    assert quiet.marks == frozenset() and not quiet.has_month
    assert View("Closing 17 Dec").has_month and "honorific" in View("Dr Wong").marks

"""The search columns computed text by text are those of the whole text (tenders/read/search.py),
and the fast NFKC is NFKC."""

import random
import unicodedata
from datetime import UTC, datetime

import pytest

from tenders.demo import demo_records
from tenders.read.search import _WIDE_RUN_SPLIT, nfkc, search_columns


def columns_of_the_whole(*parts: str) -> tuple[str, str, list[str]]:
    """The definition: NFKC and case folding of all the texts joined, split at CJK runs."""
    folded = unicodedata.normalize("NFKC", " ".join(p for p in parts if p)).casefold()
    pieces = _WIDE_RUN_SPLIT.split(folded)
    latin = " ".join(" ".join(pieces[0::2]).split())
    text = " ".join(" ".join(piece) if i % 2 else piece for i, piece in enumerate(pieces)).split()
    return " " + " ".join(text) + " ", f" {latin} ", sorted(set("".join(pieces[1::2])))


# Full-width forms, compatibility ideographs, Kangxi radicals, combining marks, ligatures,
# ideographic space, Hangul, German sharp s, Latin with accents: what NFKC or folding changes.
ODD = (
    "ＩＴ　Ｓｅｒｖｉｃｅｓ（１２３）：﹐︰ ﬁ ß Straße É e\u0301 a\u0327\u0301 ⼈⽔ 豈更 "
    "ｶﾞ ガ 한국 ㈱ ① ¼ Ⅻ \u3000 \u00a0 –— 「医疗」、。 x\u0301中 中\u0301 \u3099"
)


def test_the_columns_of_demo_records_are_those_of_the_whole_text():
    records = demo_records(300, seed=3, at=datetime(2026, 11, 23, tzinfo=UTC))
    for record in records:
        parts = (record.summary_en, record.summary_zh, record.summary_zht, "IT 设备", "", " ")
        assert search_columns(*parts) == columns_of_the_whole(*parts)


def test_the_columns_of_odd_texts_are_those_of_the_whole_text():
    chars = [c for c in ODD if c != " "]
    rng = random.Random(5)
    for _ in range(3000):
        parts = [
            "".join(rng.choice([*chars, " ", "a", "中"]) for _ in range(rng.randint(0, 9)))
            for _ in range(rng.randint(1, 6))
        ]
        assert search_columns(*parts) == columns_of_the_whole(*parts), parts
        # Texts many rows share (category names) are computed once, to the same columns.
        cut = rng.randint(0, len(parts))
        repeated = search_columns(*parts[:cut], repeated=tuple(parts[cut:]))
        assert repeated == columns_of_the_whole(*parts), (parts, cut)


@pytest.mark.parametrize("start", range(0, 0x30000, 0x1000))
def test_nfkc_is_nfkc_for_every_character_beside_ideographs_and_marks(start):
    for code in range(start, start + 0x1000):
        if 0xD800 <= code < 0xE000:
            continue
        c = chr(code)
        for text in (c, f"中{c}文", f"e{c}\u0301", f"{c}\u0327\u0301", f"医{c}\u3099"):
            assert nfkc(text) == unicodedata.normalize("NFKC", text), ascii(text)

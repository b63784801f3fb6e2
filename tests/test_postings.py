"""The search postings' pure part (tenders/read/postings.py): keys, term plans, stored sets and
counts over cell ranges, checked against the substring match they replace."""

import random
from array import array
from datetime import UTC, datetime

import pytest

from tenders.demo import demo_records
from tenders.read import postings
from tenders.read.postings import (
    Builder,
    TermPlan,
    build,
    count,
    decode_sparse,
    encode,
    keys_of,
    popcount,
    ranges,
    term_masks,
    term_plan,
    union,
)
from tenders.read.search import contains_pattern, search_columns
from tests.test_search_columns import ODD


def text_of(*parts):
    return search_columns(*parts)[0]


def test_keys_are_latin_tokens_cjk_characters_and_adjacent_cjk_pairs_and_triples():
    text = text_of("采购医疗 IT Hardware 24个月")
    assert text == " 采 购 医 疗 it hardware 24 个 月 "
    assert keys_of(text) == {
        *"采购医疗个月",
        "采购",
        "购医",
        "医疗",
        "个月",
        "采购医",
        "购医疗",
        "it",
        "hardware",
        "24",
    }
    assert keys_of(" ") == set()
    assert keys_of(" 甲 乙 丙 丁 ") == {*"甲乙丙丁", "甲乙", "乙丙", "丙丁", "甲乙丙", "乙丙丁"}
    assert keys_of(" 甲 乙 x 丙 丁 ") == {*"甲乙x丙丁", "甲乙", "丙丁"}


def test_a_three_character_term_counts_its_characters_in_their_order_only():
    texts = [text_of(t) for t in ("甲乙丙", "丙乙甲", "甲乙 丙", "乙丙甲", "甲乙x丙", "甲丙乙")]
    n = len(texts)
    stored = build(enumerate(texts), n)
    expected = {"甲乙丙": 2, "丙乙甲": 1, "乙丙甲": 1, "甲丙乙": 1, "乙甲丙": 0, "丙甲乙": 0}
    for term, rows in expected.items():
        assert brute_count(texts, [term], [(0, n)]) == rows, term
        assert postings_count(stored, texts, [term], [(0, n)]) == rows, term


@pytest.mark.parametrize(
    "term,plan",
    [
        ("services", TermPlan(inside="services")),
        ("SERV", TermPlan(inside="serv")),
        ("a-b", TermPlan(inside="a-b")),
        ("100%", TermPlan(inside="100%")),
        ("医", TermPlan(key="医")),
        ("醫療", TermPlan(key="醫療")),
        ("流感疫", TermPlan(key="流感疫")),
        (" 流 感疫 ", TermPlan(key="流感疫")),
        ("医疗设备", None),  # four characters or more: counted from rows
        ("it设备", None),  # Latin beside CJK
        ("network switches", None),  # a phrase
        ("  ", None),
    ],
)
def test_term_plans(term, plan):
    assert term_plan(term) == plan


def brute_count(texts, terms, spans):
    patterns = [contains_pattern(term) for term in terms]
    return sum(
        all(p in texts[i] for p in patterns) for start, end in spans for i in range(start, end)
    )


def postings_count(stored, texts, terms, spans):
    plans = postings.plans_of(terms)
    assert plans is not None
    found = [(key, dense, blob) for key, (dense, blob) in stored.items()]
    return count(term_masks(plans, found, len(texts)), len(texts), spans)


def corpus(seed: int) -> list[str]:
    """Demo summaries and odd texts (full-width, combining marks, kana, Hangul...)."""
    records = demo_records(150, seed=seed, at=datetime(2026, 11, 23, tzinfo=UTC))
    texts = [text_of(r.summary_en, r.summary_zh, r.summary_zht, "IT 设备") for r in records]
    rng = random.Random(seed)
    chars = [c for c in ODD if c != " "] + list("ab中医疗")
    for _ in range(150):
        parts = ["".join(rng.choice([*chars, " "]) for _ in range(rng.randint(0, 12)))]
        texts.append(text_of(*parts))
    rng.shuffle(texts)
    return texts


def random_terms(texts, rng, count):
    """Terms taken from the texts (1 to 3 characters or tokens), fragments and edge cases."""
    terms = ["a", "ab", "s", "services", "public", "医", "医疗", "疗医", "中", "ｉｔ", "ß", "zzz"]
    terms += ["医疗设", "疗医中", "中医疗", "采购项", "构采购"]
    while len(terms) < count:
        text = rng.choice(texts).strip()
        if not text:
            continue
        tokens = text.split()
        i = rng.randrange(len(tokens))
        kind = rng.random()
        if kind < 0.4:  # a piece of one token
            token = tokens[i]
            a = rng.randrange(len(token))
            terms.append(token[a : rng.randint(a + 1, len(token))])
        else:  # one to three consecutive tokens joined as a user would type them
            terms.append("".join(tokens[i : i + rng.choice((1, 2, 3))]))
    return [t for t in terms if term_plan(t) is not None]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_postings_counts_are_the_substring_counts(seed):
    texts = corpus(seed)
    n = len(texts)
    stored = build(enumerate(texts), n)
    assert any(dense for dense, _ in stored.values()) and not all(
        dense for dense, _ in stored.values()
    )
    rng = random.Random(seed)
    terms = random_terms(texts, rng, 250)
    assert len(terms) > 150
    triples = [t for t in terms if len(term_plan(t).key or "") == 3]
    assert sum(brute_count(texts, [t], [(0, n)]) > 0 for t in triples) >= 10
    for term in terms:
        spans = [(0, n)] if rng.random() < 0.5 else random_spans(rng, n)
        assert postings_count(stored, texts, [term], spans) == brute_count(texts, [term], spans), (
            term
        )
    for _ in range(150):
        chosen = rng.sample(terms, rng.choice((2, 3)))
        spans = random_spans(rng, n)
        assert postings_count(stored, texts, chosen, spans) == brute_count(texts, chosen, spans), (
            chosen
        )


def random_spans(rng, n):
    cuts = sorted(rng.sample(range(n + 1), 6))
    return [(cuts[i], cuts[i + 1]) for i in range(0, 6, 2)]


class SmallBuilder(Builder):
    PROMOTE_EVERY = 7  # keys turn into bitmaps while rows are still being added


def test_the_builder_takes_rows_in_any_order_and_gives_the_same_postings():
    texts = corpus(4)
    n = len(texts)
    order = list(range(n))
    random.Random(4).shuffle(order)
    builder = SmallBuilder(n)
    for i in order:
        builder.add(i, texts[i])
    assert builder.finish() == build(enumerate(texts), n)
    with pytest.raises(ValueError):
        Builder(3).add(3, " a ")


def test_stored_sets_decode_to_their_ordinals():
    n = 1000
    few = array("I", [999, 3, 500])
    assert encode(few, n) == (False, array("I", [3, 500, 999]).tobytes())
    assert list(decode_sparse(encode(few, n)[1])) == [3, 500, 999]
    many = array("I", range(0, n, 7))  # 143 of 1,000: more than n / 32
    dense, blob = encode(many, n)
    assert dense and len(blob) == 125
    assert union([(dense, blob)], n) == sum(1 << i for i in many)
    assert union([(dense, blob), encode(few, n)], n) == sum(1 << i for i in {*many, *few})
    assert union([], n) == 0


def test_popcount_of_every_bit_range_of_a_bitmap():
    rng = random.Random(7)
    bits = [rng.random() < 0.5 for _ in range(45)]
    bitmap = sum(1 << i for i, on in enumerate(bits) if on).to_bytes(6, "little")
    for start in range(46):
        for end in range(start, 46):
            assert popcount(bitmap, start, end) == sum(bits[start:end]), (start, end)


def test_ranges_of_chosen_cells_merge_when_adjacent():
    cells = [(10, 5), (11, 0), (12, 3), (13, 4), (14, 2)]
    assert ranges(cells, [10, 11, 12, 14]) == [(0, 8), (12, 14)]
    assert ranges(cells, [10, 13]) == [(0, 5), (8, 12)]
    assert ranges(cells, []) == []
    assert count([0b1111], 4, []) == 0

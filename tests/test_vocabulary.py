"""The public vocabulary: its data, the summaries built from it, the coverage check and the
concept classifier. Pure: no database."""

import re

import pytest

from tenders.chinese import to_simplified, to_traditional
from tenders.markets import MARKETS
from tenders.vocabulary import build as vocabulary_build
from tenders.vocabulary.classify import by_code, by_title, classify, refine, search
from tenders.vocabulary.coverage import template_texts, vocabulary
from tenders.vocabulary.cpv import concept, concepts, in_subtree, level_of, nearest, parent
from tenders.vocabulary.learn import learn
from tenders.vocabulary.summaries import BUYER_KINDS, PROCEDURES, Facts, build

# Latin letters a Chinese label may keep: acronyms Chinese technical usage writes as they are.
ACRONYMS = set(
    [
        "X",
        "T",
        "CD",
        "DVD",
        "USB",
        "GPS",
        "GSM",
        "GPRS",
        "UMTS",
        "EDGE",
        "WAP",
        "SIM",
        "IP",
        "ISDN",
        "ISDX",
        "PABX",
        "RAM",
        "ROM",
        "SRAM",
        "DRAM",
        "SDRAM",
        "SGRAM",
        "RDRAM",
        "PROM",
        "EPROM",
        "EEPROM",
        "RAID",
        "PCMCIA",
        "MP3",
        "LED",
        "LCD",
        "PVC",
        "PCR",
        "MOSFET",
        "JFET",
        "FET",
        "IGBT",
        "VHF",
        "DVOR",
        "DME",
        "NDB",
        "ILS",
        "PAPI",
        "LTO",
        "DLT",
        "DAT",
        "CAD",
        "CAM",
        "OCR",
        "POS",
        "GIS",
        "TNT",
    ]
)


# --- the data -------------------------------------------------------------------------------


def test_every_code_has_three_labels_and_chinese_keeps_only_known_acronyms():
    table = concepts()
    assert len(table) == 9454
    assert concept("33112200").en == "Ultrasonic unit"
    for c in table.values():
        assert re.fullmatch(r"\d{8}", c.code), c
        assert c.en.strip() and c.zh.strip() and c.zht.strip(), c
        for label in (c.zh, c.zht):
            assert re.search(r"[\u4e00-\u9fff]", label), c
            for word in re.findall(r"[A-Za-z][A-Za-z0-9]*", label):
                assert word in ACRONYMS, (c, word)
            assert not re.search(r"[(),;:\"]", label), c  # full-width punctuation only


def test_different_concepts_never_share_a_chinese_label():
    for lang in ("zh", "zht"):
        seen = {}
        for c in concepts().values():
            label = c.label(lang)
            assert label not in seen, (c.code, seen.get(label), label)
            seen[label] = c.code


def test_traditional_labels_are_the_hong_kong_conversion_of_the_simplified():
    fixed = vocabulary_build.overrides()
    for c in concepts().values():
        assert c.zht == vocabulary_build.traditional(c.code, c.zh, fixed), c


@pytest.mark.parametrize(
    ("simplified", "traditional"),
    [
        ("合同", "合約"),
        ("公共机构", "公營機構"),
        ("信息技术服务", "資訊科技服務"),
        ("计算机设备", "電腦設備"),
        ("塑料制品", "塑膠製品"),
        ("超声波设备", "超聲波設備"),
    ],
)
def test_traditional_uses_hong_kong_wording_not_a_character_conversion(simplified, traditional):
    assert to_traditional(simplified) == traditional
    assert to_simplified(traditional) != traditional


def test_the_tree_of_codes():
    assert [level_of(c) for c in ("33000000", "33100000", "33110000", "33112000", "33112200")] == [
        0,
        1,
        2,
        3,
        4,
    ]
    assert parent("33112200").code == "33112000"
    assert parent("33000000") is None
    assert in_subtree("33112200", "33100000") and not in_subtree("33112200", "33600000")
    assert nearest("33112200-1").code == "33112200"
    assert nearest("33112999").code == "33112000"  # unknown subcategory: its nearest ancestor
    for division in ("80000000", "90000000", "30000000"):  # a division ending in 0
        assert nearest(division).code == division


def test_search_finds_a_concept_in_any_language_or_by_code():
    for query in ("超声", "超聲", "ultrasonic", "33112200"):
        assert "33112200" in [c.code for c in search(query)], query
    assert search("") == []


# --- summaries ------------------------------------------------------------------------------


def facts(**kwargs) -> Facts:
    return Facts(**{"market": "CA", "concepts": ("33112200",), **kwargs})


def test_a_summary_says_what_is_bought_in_each_language():
    drafted = build(
        facts(concepts=("33112200", "33100000"), procedure="open", lots=3, duration_months=26)
    )
    assert drafted["en"] == (
        "Ultrasonic unit (also: medical equipments). Supplies for a public buyer in Canada. "
        "In 3 lots. Duration: about 2 years. Open procedure: any qualified supplier may bid."
    )
    assert drafted["zh"].startswith(
        "采购内容：超声波设备（另含：医疗设备）。加拿大公共机构采购货物。"
    )
    assert drafted["zht"] == to_traditional(drafted["zh"])
    assert "公營機構" in drafted["zht"] and "超聲波設備" in drafted["zht"]


def test_markets_take_their_article_and_buyer_kinds_are_kinds_not_names():
    gb = build(facts(market="GB", concepts=("45000000",), buyer_kind="la", framework=True))
    assert gb["en"] == (
        "Construction work. Works for a local authority in the United Kingdom. Framework agreement."
    )
    eu = build(facts(market="EU", concepts=("72000000",), buyer_kind="unknown-code"))
    assert "for a public buyer in the European Union." in eu["en"]


def test_durations_are_rounded_and_implausible_figures_left_out():
    def said(months: int, lots: int = 0) -> str:
        return build(facts(duration_months=months, lots=lots))["en"]

    assert "about 6 months" in said(6)
    assert "about one year" in said(12)
    assert "about 3 years" in said(40)
    assert "Duration" not in said(0) and "Duration" not in said(12 * 50)
    assert "lots" not in said(0, lots=1) and "lots" not in said(0, lots=500)


def test_every_summary_built_from_the_vocabulary_passes_the_coverage_check():
    """By construction: every concept, every market, every procedure, kind and buyer kind."""
    checked = vocabulary()
    variants = [
        {"procedure": p, "buyer_kind": b, "framework": True, "lots": 4, "duration_months": 30}
        for p, b in zip(PROCEDURES, list(BUYER_KINDS)[: len(PROCEDURES)], strict=False)
    ]
    markets = list(MARKETS)
    for i, code in enumerate(concepts()):
        more = variants[i % len(variants)]
        drafted = build(facts(market=markets[i % len(markets)], concepts=(code,), **more))
        for lang, text in drafted.items():
            assert checked.unknown(text, lang) == [], (code, lang, text)


# --- the coverage check ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lang", "unknown"),
    [
        ("Advisory services (23530-140468/a)", "en", ["23530", "140468"]),
        ("Renovation at 400-440 Strasburg Road, Kitchener", "en", ["Strasburg", "Kitchener"]),
        (
            "Court reporting services for the Embassy of Canada in Haiti",
            "en",
            ["reporting", "Embassy", "Haiti"],
        ),
        ("Supply of network switches for a public body.", "en", []),
        ("超声波设备。卫生署采购货物。", "zh", ["署"]),
        ("超聲波設備。荃灣區採購貨物。", "zht", ["荃灣區"]),
        ("加拿大公共机构采购服务。", "zh", []),
    ],
)
def test_the_coverage_check_names_words_outside_the_vocabulary(text, lang, unknown):
    assert vocabulary().unknown(text, lang) == unknown


def test_words_added_by_staff_extend_the_vocabulary():
    assert vocabulary().unknown("Kitchener", "en") == ["Kitchener"]
    assert vocabulary((("en", "Kitchener"),)).unknown("Kitchener", "en") == []


def test_template_phrases_are_in_the_vocabulary():
    checked = vocabulary()
    for en, zh in template_texts():
        assert checked.unknown(en, "en") == [] and checked.unknown(zh, "zh") == [], (en, zh)


# --- the classifier -------------------------------------------------------------------------


def test_codes_map_to_concepts_through_the_concordances():
    assert by_code("CPV", "33112200-1") == ("33112200", False)
    assert by_code("CPV", " 72000000 ") == ("72000000", False)
    cpv, mapped = by_code("GSIN", "", "D302A: Informatics Professional Services")
    assert mapped and cpv[:2] == "72"
    cpv, mapped = by_code("UNSPSC", " 72141000")
    assert mapped and cpv[:2] == "45"
    assert by_code("NAICS", "1234") == ("", False)


def test_a_broad_code_is_refined_by_the_title_inside_its_subtree_only():
    found = classify([("CPV", "33100000", "")], "Portable Diagnostic Ultrasound")
    assert found.codes == ("33112200",)
    assert "refined" in found.how
    # A title naming a concept of another division never leaves the code's subtree.
    away = classify([("CPV", "33100000", "")], "Office furniture")
    assert all(in_subtree(code, "33100000") for code in away.codes)


@pytest.mark.parametrize(
    "title",
    ["Portable Diagnostic Ultrasound", "Snow removal services", "Supply of office furniture"],
)
def test_refining_never_leaves_the_subtree(title):
    for root in ("33000000", "45000000", "39100000", "90600000"):
        assert in_subtree(refine(root, title), root)


def test_the_title_classifier_abstains_when_unsure():
    assert by_title("Parking Pilot") == ""
    assert by_title("Orange Street refurbishment")[:2] != "03"
    assert by_title("") == ""
    assert classify([], "Request for information").codes == ()


def test_learning_keeps_phrases_that_point_to_one_concept():
    training = [
        ("Snow clearing north lot", "90620000"),
        ("Snow clearing south lot", "90620000"),
        ("Snow clearing depot", "90620000"),
        ("Lot maintenance", "45000000"),
        ("Lot paving", "45233000"),
        ("Lot survey", "71000000"),
    ]
    learned = {(phrase, code) for phrase, code, _ in learn(training)}
    assert ("snow clearing", "90620000") in learned
    assert not any(phrase == "lot" for phrase, _ in learned)


def test_a_source_host_named_like_a_vocabulary_word_is_not_found_in_the_templates():
    from tenders.sanitize import RecordSecrets, scan

    text = "Ultrasonic unit. Supplies for a public buyer in the European Union."
    generic = RecordSecrets(source_url="https://public.example.org/notice/1", market="EU")
    assert scan({"en": text}, generic) == []
    branded = RecordSecrets(source_url="https://contractsfinder.example.org/1", market="EU")
    assert [f.kind for f in scan({"en": text + " See Contracts Finder."}, branded)] == [
        "source_host"
    ]


def test_a_reviewed_traditional_label_is_used_as_written():
    drafted = build(facts(concepts=("75231200", "33651610")))
    assert drafted["zht"].startswith(
        "採購內容：罪犯羈押或更生相關服務（另含：白喉、百日咳及破傷風混合疫苗）。"
    )
    assert "改造" in drafted["zh"] and "改造" not in drafted["zht"]  # not the bare conversion
    assert vocabulary().unknown(drafted["zht"], "zht") == []

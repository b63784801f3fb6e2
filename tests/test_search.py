import pytest

from tenders.search import contains_pattern, normalize, search_text


def test_cjk_characters_stand_alone_and_latin_is_folded():
    assert search_text("采购医疗设备", "IT Hardware") == " 采 购 医 疗 设 备 it hardware "


def test_full_width_letters_and_case_fold_to_ascii():
    assert normalize("ＩＴ　Services") == "it services"
    assert normalize("STRASSE") == normalize("straße")


@pytest.mark.parametrize(
    "query,pattern",
    [
        ("医", " 医 "),
        ("医疗", " 医 疗 "),
        ("IT设备", "it 设 备 "),
        ("设备IT", " 设 备 it"),
        ("  Network ", "network"),
        ("it", "it"),
        ("   ", ""),
    ],
)
def test_query_patterns_anchor_cjk_edges(query, pattern):
    assert contains_pattern(query) == pattern


@pytest.mark.parametrize(
    "text,query,found",
    [
        ("公营机构采购医疗设备", "医疗", True),
        ("公营机构采购医疗设备", "医", True),
        ("公营机构采购医疗设备", "疗医", False),
        ("Supply of Network switches", "network sw", True),
        ("Supply of Network switches", "NETWORK", True),
        ("Supply of IT设备", "it设备", True),
        ("采购设备", "购设", True),
        ("采购设备", "采设", False),
    ],
)
def test_pattern_matches_exactly_the_substrings(text, query, found):
    assert (contains_pattern(query) in search_text(text)) is found

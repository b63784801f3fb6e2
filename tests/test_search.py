import pytest
from django.db import connection

from tenders import publication
from tenders.models import SnapshotRow
from tenders.read.search import (
    MAX_TERMS,
    QueryError,
    canonical,
    contains_pattern,
    has_trigram,
    matches,
    normalize,
    parse_terms,
    search_columns,
)
from tenders.read.selectors import current_issue
from tests.factories import SourceTenderFactory


def text_of(*parts):
    return search_columns(*parts)[0]


def test_search_columns_split_latin_and_cjk():
    text, latin, cjk = search_columns("采购医疗设备", "IT Hardware 24个月")
    assert text == " 采 购 医 疗 设 备 it hardware 24 个 月 "
    assert latin == " it hardware 24 "
    assert cjk == sorted(set("采购医疗设备个月"))


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
    assert (contains_pattern(query) in text_of(text)) is found


@pytest.mark.parametrize(
    "query,terms",
    [
        ("Network", ("network",)),  # one word: normalised as a whole query always was
        ("  ＮＥＴＷＯＲＫ ", ("network",)),
        ("医疗设备", ("医 疗 设 备",)),  # Chinese needs no spaces: one term
        ("fleet maintenance", ("fleet", "maintenance")),
        ("maintenance   FLEET", ("fleet", "maintenance")),  # any order, any case
        ('"fleet maintenance"', ("fleet maintenance",)),
        ('"Fleet   Maintenance" repair', ("fleet maintenance", "repair")),
        ("“fleet maintenance”", ("fleet maintenance",)),  # typographic quotes
        ("＂fleet maintenance＂", ("fleet maintenance",)),  # full-width quotes
        ('fleet"maintenance repair"', ("fleet", "maintenance repair")),
        ("医疗　设备", ("医 疗", "设 备")),  # an ideographic space separates words
        ("fleet fleet FLEET", ("fleet",)),
        ("net network", ("network",)),  # net is implied by network
        ('network "network switches"', ("network switches",)),
        ("医 医疗", ("医 疗",)),
        ("it it设备", ("it 设 备",)),
        ("a b c d e f g h", tuple("abcdefgh")),
    ],
)
def test_terms_are_canonical(query, terms):
    assert parse_terms(query) == terms


@pytest.mark.parametrize(
    "query,message",
    [
        ('fleet "maintenance', "unmatched double quote"),
        ('"', "unmatched double quote"),
        ('""', "empty phrase"),
        ('fleet " "', "empty phrase"),
        ("a b c d e f g h i", f"q has 9 words and phrases; the most is {MAX_TERMS}."),
        ('"a b c d e f g h i"', None),  # one phrase, one term
    ],
)
def test_bad_queries_say_what_to_do(query, message):
    if message is None:
        assert parse_terms(query) == ("a b c d e f g h i",)
        return
    with pytest.raises(QueryError, match=message):
        parse_terms(query)


def test_canonical_text_keeps_one_word_as_it_was_and_cannot_confuse_words_with_a_phrase():
    assert canonical(("network",)) == "network"
    assert canonical(("x&q=y",)) != canonical(("x", "y"))
    assert canonical(("fleet maintenance",)) != canonical(("fleet", "maintenance"))
    assert canonical(("fleet", "maintenance")) == '["fleet", "maintenance"]'


@pytest.mark.parametrize(
    "text,query,found",
    [
        ("Fleet maintenance and repair", "repair fleet", True),
        ("Fleet maintenance and repair", '"repair fleet"', False),
        ("Fleet maintenance and repair", '"fleet maintenance" repair', True),
        ("Fleet maintenance and repair", "fleet painting", False),
        ("车队保养及维修服务", "维修 车队", True),
        ("車隊保養及維修服務", "维修", False),  # a row carries both scripts, not this text
        ("车队保养及维修服务", "车队维修", False),
    ],
)
def test_every_term_must_be_found(text, query, found):
    column = text_of(text)
    assert all(contains_pattern(term) in column for term in parse_terms(query)) is found


@pytest.mark.parametrize(
    "pattern,narrows",
    [
        ("abc", True),
        ("ab", False),
        ("a b c", False),
        ("it hardware", True),
        ("x-ray", True),
        ("a-b", False),
        ("2026", True),
        (" 医 疗 ", False),  # the CJK index serves it
        ("it 设 备 ", False),
    ],
)
def test_the_trigram_index_is_asked_only_when_it_can_narrow(pattern, narrows):
    assert has_trigram(pattern) is narrows


@pytest.mark.django_db
class TestMatchesOnTheSnapshot:
    @pytest.fixture
    def rows(self, t0):
        texts = {
            "AT-TEST-0000000001": (
                "Supply of patient monitors",
                "供应病人监护仪",
                "供應病人監護儀",
            ),
            "AT-TEST-0000000002": ("Cloud hosting services", "云端托管服务", "雲端託管服務"),
            "AT-TEST-0000000003": ("Supply of IT设备 for clinics", "医疗设备", "醫療設備"),
            "AT-TEST-0000000004": ("Monitoring network operation", "监测网络营运", "監測網絡營運"),
        }
        for listing_id, (en, zh, zht) in texts.items():
            SourceTenderFactory(
                listing_id=listing_id, summary_en=en, summary_zh=zh, summary_zht=zht
            )
        publication.publish_issue(now=t0)
        return current_issue()

    def found(self, issue, query):
        qs = SnapshotRow.objects.filter(issue=issue).filter(matches(parse_terms(query)))
        return sorted(aid[-1] for aid in qs.values_list("asaptic_id", flat=True))

    @pytest.mark.parametrize(
        "query,expected",
        [
            ("监", ["1", "4"]),  # one Simplified character
            ("監測", ["4"]),  # two Traditional characters
            ("医疗", ["3"]),
            ("设备", ["1", "2", "3", "4"]),  # every row: the category name has it
            ("备设", []),  # both characters present, not adjacent in this order
            ("MONITOR", ["1", "4"]),  # Latin, any case
            ("it设备", ["3"]),  # mixed
            ("100%", []),  # LIKE wildcards are literal
            ("it hardware", ["1", "2", "3", "4"]),  # the category name is searched too
            ("信息技术", ["1", "2", "3", "4"]),
            ("supply 医疗", ["3"]),  # several terms: every one must match
            ("監護 supply", ["1"]),
            ("supply clinics", ["3"]),
            ('"supply of"', ["1", "3"]),
            ('"of supply"', []),
            ("供應 设备 monitors", ["1"]),  # scripts mixed, one lookup of the CJK characters
            ("of", ["1", "3"]),  # too short for the trigram index: every row is checked
            ("it 设备", ["1", "2", "3", "4"]),
        ],
    )
    def test_finds_exactly_the_matching_rows(self, rows, query, expected):
        assert self.found(rows, query) == expected

    def test_the_planner_uses_the_search_indexes(self, rows):
        if connection.vendor != "postgresql":
            pytest.fail("the suite must run on PostgreSQL")
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")
            for query, index in (("医疗", "_cjk"), ("monitor", "_latin")):
                qs = SnapshotRow.objects.filter(issue=rows).filter(matches(query))
                plan = qs.explain()
                assert index in plan, plan

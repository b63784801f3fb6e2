"""The filter contract (``TenderFilterSet``, the one parser): typed (MCP) and text (REST) values
alike."""

import pytest
from django.db.models import Q

from core.errors import ApiError
from tenders.read.fields import parse_lang
from tenders.read.filters import TenderFilterSet, parse_list_params, parse_row_params
from tenders.read.query import DEFAULT_LIMIT, TOOL, ListQuery, Vocabulary, check_params
from tenders.read.search import matches

VOCABULARY = Vocabulary.from_facets(
    {
        "categories": [
            {
                "slug": "medical-supplies",
                "name_en": "Medical supplies and equipment",
                "name_zh": "医疗用品及设备",
                "name_zht": "醫療用品及設備",
                "count": 3,
            },
            {
                "slug": "it-hardware",
                "name_en": "IT hardware and equipment",
                "name_zh": "信息技术硬件及设备",
                "name_zht": "資訊科技硬件及設備",
                "count": 0,
            },
        ]
    }
)


def parse(**params):
    return parse_list_params(params, VOCABULARY)


def test_defaults():
    assert parse() == ListQuery()
    query = parse()
    assert (query.limit, query.closing_buckets, query.lang, query.cursor) == (
        DEFAULT_LIMIT,
        ("le_2w", "2_4w", "gt_4w"),
        None,
        None,
    )
    assert query.filters_key() == "closing_bucket=le_2w,2_4w,gt_4w"
    assert query.cell_filter() == Q(closing_bucket__in=("le_2w", "2_4w", "gt_4w"))


def test_typed_values_and_text_values_give_the_same_query():
    typed = parse(
        market=["hk", "SG"], new=True, lead_ok=False, limit=20, category=["医疗用品及设备"]
    )
    text = parse(market="SG,HK", new="1", lead_ok="false", limit="20", category="medical-supplies")
    assert typed == text
    assert typed.filters_key() == (
        "market=HK,SG&category=medical-supplies&closing_bucket=le_2w,2_4w,gt_4w"
        "&new=true&lead_ok=false"
    )


def test_null_means_not_given():
    assert parse(market=None, q=None, limit=None, cursor=None) == ListQuery()


def test_all_buckets_and_the_four_buckets_are_the_same_filter():
    assert parse(closing_bucket="all") == parse(closing_bucket="deadline_passed,gt_4w,2_4w,le_2w")
    assert parse(closing_bucket="all").filters_key() == "closing_bucket=all"
    assert parse(closing_bucket="all").cell_filter() == Q()


def test_value_band_unspecified_is_null():
    assert parse(value_band="unspecified").cell_filter() == Q(
        closing_bucket__in=("le_2w", "2_4w", "gt_4w")
    ) & Q(value_band__isnull=True)
    both = parse(value_band="unspecified,lt_500k").cell_filter()
    assert both == Q(closing_bucket__in=("le_2w", "2_4w", "gt_4w")) & (
        Q(value_band__in=["lt_500k"]) | Q(value_band__isnull=True)
    )


def test_q_is_normalised_so_equivalent_queries_share_a_key():
    assert parse(q="  Network ").q == ("network",)
    assert parse(q="ＮＥＴＷＯＲＫ").q == ("network",)
    assert parse(q="医疗").filters_key().endswith("&q=医 疗")  # one word: the key it always had
    assert parse(q="医疗").row_filter() == parse(q="医疗").cell_filter() & matches(("医 疗",))


def test_several_words_share_a_key_in_any_order_and_differ_from_the_phrase():
    words = parse(q="Fleet  维修").filters_key()
    assert words == parse(q="维修 fleet fleet").filters_key()
    assert words.endswith('&q=["fleet", "维 修"]')
    assert words != parse(q='"fleet 维修"').filters_key()
    assert parse(q="fleet 维修").row_filter() == parse().cell_filter() & matches(("fleet", "维 修"))


@pytest.mark.parametrize(
    "q,message",
    [
        (
            'fleet "repair',
            'q has an unmatched double quote; close the phrase ("fleet '
            'maintenance") or remove the quote.',
        ),
        ('""', 'q has an empty phrase (""); put words between the quotes or remove them.'),
        (
            "one two three four five six seven eight nine",
            "q has 9 words and phrases; the most is 8. Leave out the least telling ones, or "
            'join words that belong together in double quotes ("like this").',
        ),
    ],
)
def test_bad_q_is_refused_with_what_to_do(q, message):
    with pytest.raises(ApiError) as caught:
        parse(q=q)
    assert caught.value.body() == {
        "error": {"code": "invalid_parameter", "message": message, "param": "q"}
    }


def test_categories_match_any_name_in_any_english_case():
    for spelling in ("medical-supplies", "MEDICAL SUPPLIES AND EQUIPMENT", "醫療用品及設備"):
        assert parse(category=spelling).categories == ("medical-supplies",)


@pytest.mark.parametrize(
    "params,param",
    [
        ({"limit": True}, "limit"),
        ({"limit": 2.0}, "limit"),
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"new": 1}, "new"),
        ({"new": "maybe"}, "new"),
        ({"market": ["HK", 3]}, "market"),
        ({"market": []}, "market"),
        ({"market": 7}, "market"),
        ({"q": 5}, "q"),
        ({"q": "\ud800"}, "q"),
        ({"lang": ["en", "zh"]}, "lang"),
        ({"cursor": 12}, "cursor"),
        ({"sort": "asc"}, "sort"),
    ],
)
def test_typed_values_outside_the_domain_are_refused(params, param):
    with pytest.raises(ApiError) as error:
        parse(**params)
    assert (error.value.status, error.value.code, error.value.param) == (
        400,
        "invalid_parameter",
        param,
    )


def test_typed_error_messages_say_what_was_wrong():
    with pytest.raises(ApiError) as error:
        parse(market=["HK", 3])
    assert error.value.message == "market must be text or a list of text; got int."
    with pytest.raises(ApiError) as error:
        parse(limit=True)
    assert error.value.message.startswith("limit must be a whole number from 1 to 200")


def test_row_parameters_take_only_lang():
    assert parse_row_params({}) is None
    assert parse_row_params({"lang": "ZHT"}) == "zht"
    with pytest.raises(ApiError) as error:
        parse_row_params({"market": "HK"})
    assert error.value.body() == {
        "error": {
            "code": "invalid_parameter",
            "message": "Unknown parameter 'market'. Known parameters: lang.",
            "param": "market",
        }
    }


def test_endpoints_without_parameters_refuse_any():
    assert check_params({}, ()) == {}
    with pytest.raises(ApiError) as error:
        check_params({"x": "1"}, ())
    assert error.value.message == "Unknown parameter 'x'. It takes none."


def test_parse_lang():
    assert parse_lang(None) is None
    assert parse_lang("en") == "en"
    with pytest.raises(ApiError):
        parse_lang("de")


@pytest.mark.django_db
def test_the_filterset_is_the_parser_and_costs_no_query(django_assert_num_queries):
    with django_assert_num_queries(0):
        filterset = TenderFilterSet(
            {"market": ["hk", "SG"], "category": "医疗用品及设备", "limit": "20"},
            vocabulary=VOCABULARY,
            surface=TOOL,
        )
        query = filterset.query
    assert query == parse(market="HK,SG", category="medical-supplies", limit=20, lang="en")
    assert TenderFilterSet({}, surface=TOOL).query.limit == TOOL.default_limit
    with pytest.raises(ApiError) as error:
        _ = TenderFilterSet({"limit": "500"}, vocabulary=VOCABULARY, surface=TOOL).query
    assert error.value.message.startswith("limit must be a whole number from 1 to 200 (default 10)")


def test_the_first_refusal_is_reported_in_the_order_of_the_checks():
    # value_band is checked before new, as it always was, whatever the order given.
    with pytest.raises(ApiError) as error:
        parse(new="maybe", value_band="huge", sort="x")
    assert error.value.param == "sort"  # an unknown name first
    with pytest.raises(ApiError) as error:
        parse(new="maybe", value_band="huge")
    assert error.value.param == "value_band"
    with pytest.raises(ApiError) as error:
        parse(cursor="")
    assert (error.value.code, error.value.param) == ("invalid_cursor", "cursor")


@pytest.mark.django_db
def test_the_filterset_filters_rows_as_the_listing_does():
    from tenders.models import SnapshotRow

    filterset = TenderFilterSet({"market": "hk", "q": "fleet"}, vocabulary=VOCABULARY)
    rows = SnapshotRow.objects.filter(issue_id=1)
    expected = rows.filter(filterset.query.row_filter())
    assert str(filterset.filter_queryset(rows).query) == str(expected.query)

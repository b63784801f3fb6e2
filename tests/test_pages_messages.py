"""The pages word the domain's refusals for people, in each language, without judging anything
themselves: the refusals here come from the shared validators (``rfq.validation``,
``tenders.read.fields``), and the page only chooses the words by code and field."""

import re

import pytest
from django.utils import translation

from core.errors import ApiError
from pages.intake import ACCESS, RFQ, field_message
from pages.messages import intake_message, listing_message
from rfq import services
from rfq.validation import clean_idempotency_key
from tenders.read.filters import parse_list_params
from tenders.read.query import PAGES, Vocabulary

CHINESE = ("zh-hans", "zh-hant")
# Chinese text: CJK, digits, codes and the punctuation around them; no English words (the
# messenger kinds are the syntax of a contact, written as they are in every language).
ENGLISH_WORD = re.compile(
    r"\b(?!AT\b|HK\b|DE\b|WeChat\b|WhatsApp\b|Line\b|Telegram\b)[A-Za-z]{2,}\b"
)

VALID = {
    "rfq": {"product": "LED lights", "buyer_contact": "buyer@example.com"},
    "access": {"organisation": "Harbour Ltd", "contact": "bids@example.com", "purpose": "Bid"},
}
# A value each field refuses, besides an empty required field: the rules every text field has
# (length, control characters) and each format.
REFUSED = {
    "product": ["x" * 501, "LED\x00lights"],
    "quantity": ["9" * 101],
    "target_market": ["XX", "1"],
    "buyer_contact": ["2123 4567", "buyer@", "+1 000", "somebody", "WeChat: abc", "Skype: x"],
    "asaptic_id": ["AT-123"],
    "at_id": ["AT-123", "X" * 19],
    "organisation": ["x" * 201, "Harbour\tLtd"],
    "contact": ["2123 4567", "x@y"],
    "purpose": ["x" * 1001],
}


def refusals(intake):
    """Every (field, ApiError) the intake's own validator gives for the values above."""
    for spec in intake.form.fields:
        values = ([""] if spec.required else []) + REFUSED[spec.name]
        for value in values:
            with pytest.raises(ApiError) as caught:
                intake.form.clean({**VALID[intake.name], spec.name: value})
            assert caught.value.param == spec.name
            yield spec, caught.value


@pytest.mark.parametrize("intake", [RFQ, ACCESS], ids=lambda i: i.name)
def test_every_field_refusal_reads_in_the_pages_language(intake):
    for spec, error in refusals(intake):
        english = field_message(intake, error)
        assert english != error.message
        assert "%" not in english
        for lang in CHINESE:
            with translation.override(lang):
                said = field_message(intake, error)
            assert said != english, (spec.name, said)
            assert not ENGLISH_WORD.search(said), (spec.name, said)


def test_a_required_field_left_empty_is_told_so():
    (product,) = (f for f in RFQ.form.fields if f.name == "product")
    error = ApiError(400, "invalid_parameter", product.required_message, param="product")
    with translation.override("zh-hant"):
        assert field_message(RFQ, error) == "請說明您要採購的產品。"
    with pytest.raises(ApiError) as too_long:
        RFQ.form.clean({**VALID["rfq"], "product": "x" * 501})
    with translation.override("zh-hans"):
        assert field_message(RFQ, too_long.value) == "请填写纯文本，最多 500 个字符。"


def test_refusals_about_no_field_read_in_the_pages_language():
    from core.ratelimit import Rate

    errors = [
        services.rate_limited(Rate(1, 3600, "hour"), 90),
        services.unavailable(services.RFQ),
    ]
    with pytest.raises(ApiError) as caught:
        clean_idempotency_key("two words")
    errors.append(caught.value)
    with translation.override("en"):
        assert intake_message(errors[0]) == (
            "Too many requests were sent from your network. Please try again in 2 minutes."
        )
    for lang in CHINESE:
        with translation.override(lang):
            for error in errors:
                said = intake_message(error)
                assert not ENGLISH_WORD.search(said), said


@pytest.mark.parametrize(
    "params",
    [
        {"market": "XX"},
        {"category": "bridges"},
        {"closing_bucket": "soon"},
        {"value_band": "huge"},
        {"lead_ok": "maybe"},
        {"q": '"open'},
        {"q": " ".join("abcdefghi")},
        {"sort": "price"},
        {"cursor": ""},
    ],
)
def test_every_listing_refusal_reads_in_the_pages_language(params):
    vocabulary = Vocabulary(("it-hardware",), {"it-hardware": "it-hardware"})
    with pytest.raises(ApiError) as caught:
        parse_list_params(params, vocabulary, PAGES)
    for lang in CHINESE:
        with translation.override(lang):
            said = listing_message(caught.value)
        assert not ENGLISH_WORD.search(said), said

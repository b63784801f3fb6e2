"""The one validator of both intakes, and the pure helpers around it: no database."""

import pytest

from core.errors import ApiError
from rfq import references, validation
from rfq.validation import ACCESS_REQUEST_FORM, RFQ_FORM

VALID = {
    "product": "LED street lights, 120 W, IP66",
    "quantity": "2,000 units",
    "target_market": "HK",
    "buyer_contact": "buyer@example.com",
}
PHONE_HINT = "e.g. +852 2123 4567"
FORMS = (
    "an e-mail address, an international phone number starting with + (e.g. +852 2123 4567), "
    "or a messenger contact written as WeChat: harbour_lighting, WhatsApp: +852 9123 4567, "
    "Line: harbourlight or Telegram: @harbour_lighting"
)


def error_of(call) -> dict:
    with pytest.raises(ApiError) as caught:
        call()
    return {"status": caught.value.status, **caught.value.body()}


def rfq_error(**changes) -> dict:
    payload = {k: v for k, v in {**VALID, **changes}.items() if v is not ...}
    return error_of(lambda: RFQ_FORM.clean(payload))


def field_error(param: str, message: str) -> dict:
    return {
        "status": 400,
        "error": {"code": "invalid_parameter", "message": message, "param": param},
    }


def test_a_valid_rfq_is_cleaned_to_the_stored_form():
    assert RFQ_FORM.clean(
        {
            "product": "  LED street lights\r\n120 W  ",
            "quantity": " 2,000 units ",
            "target_market": "hk",
            "buyer_contact": " Buyer.Name@Example.COM ",
        }
    ) == {
        "product": "LED street lights\n120 W",
        "quantity": "2,000 units",
        "target_market": "HK",
        "buyer_contact": "Buyer.Name@example.com",
        "asaptic_id": "",
    }


def test_optional_fields_may_be_absent_null_or_blank():
    expected = {
        "product": "Hospital beds",
        "quantity": "",
        "target_market": "",
        "buyer_contact": "+852 2123 4567",
        "asaptic_id": "",
    }
    assert RFQ_FORM.clean({"product": "Hospital beds", "buyer_contact": "+85221234567"}) == expected
    assert (
        RFQ_FORM.clean(
            {
                "product": "Hospital beds",
                "quantity": None,
                "target_market": "  ",
                "buyer_contact": "+852 2123 4567",
            }
        )
        == expected
    )


def test_text_is_unicode_normalized():
    # "é" as e + combining accent is stored in its composed form.
    assert (
        RFQ_FORM.clean({**VALID, "product": "Cafe\u0301 chairs"})["product"] == "Caf\u00e9 chairs"
    )


@pytest.mark.parametrize(
    "payload, kind", [(["LED"], "an array"), ("LED", "a string"), (None, "null"), (3, "an integer")]
)
def test_the_payload_must_be_an_object(payload, kind):
    assert error_of(lambda: RFQ_FORM.clean(payload)) == {
        "status": 400,
        "error": {
            "code": "invalid_body",
            "message": "The request for quote must be a JSON object with the fields product, "
            f"quantity, target_market, buyer_contact, asaptic_id; got {kind}.",
        },
    }


def test_unknown_fields_are_refused_with_a_suggestion():
    assert rfq_error(buyer_contcat="x") == field_error(
        "buyer_contcat",
        'Unknown field "buyer_contcat" (did you mean "buyer_contact"?). Allowed fields: '
        "product, quantity, target_market, buyer_contact, asaptic_id.",
    )
    assert rfq_error(colour="red") == field_error(
        "colour",
        'Unknown field "colour". Allowed fields: product, quantity, target_market, buyer_contact, asaptic_id.',
    )


def test_unknown_fields_are_reported_first_and_in_name_order():
    assert rfq_error(product=..., zeta=1, alpha=2)["error"]["param"] == "alpha"


def test_an_unknown_field_name_is_echoed_printable():
    assert rfq_error(**{"a\x00b": 1})["error"]["param"] == "a\\x00b"
    assert rfq_error(**{"\ud800x": 1})["error"] == {
        "code": "invalid_parameter",
        "message": 'Unknown field "\\ud800x". Allowed fields: product, quantity, target_market, buyer_contact, asaptic_id.',
        "param": "\\ud800x",
    }


@pytest.mark.parametrize("value", [..., None, "", "   \n "])
def test_product_is_required(value):
    assert rfq_error(product=value) == field_error(
        "product",
        'product is required: say what you want to source, e.g. "LED street lights, 120 W, IP66".',
    )


@pytest.mark.parametrize("value", [..., None, ""])
def test_buyer_contact_is_required(value):
    assert rfq_error(buyer_contact=value) == field_error(
        "buyer_contact",
        f"buyer_contact is required: give {FORMS}, so we can answer you.",
    )


@pytest.mark.parametrize(
    "value, kind",
    [(2000, "an integer"), (True, "a boolean"), ({"n": 1}, "an object"), (["a"], "an array")],
)
def test_fields_must_be_strings(value, kind):
    assert rfq_error(quantity=value) == field_error(
        "quantity",
        f'quantity must be a string (text in double quotes), e.g. "2,000 units"; got {kind}.',
    )
    assert rfq_error(product=value) == field_error(
        "product",
        f'product must be a string (text in double quotes), e.g. "LED street lights, 120 W, IP66"; got {kind}.',
    )


def test_maximum_lengths_count_characters_after_trimming():
    assert RFQ_FORM.clean({**VALID, "product": " " + "灯" * 500 + " "})["product"] == "灯" * 500
    assert rfq_error(product="灯" * 501) == field_error(
        "product", "product must be at most 500 characters; it has 501."
    )
    assert RFQ_FORM.clean({**VALID, "quantity": "9" * 100})["quantity"] == "9" * 100
    assert rfq_error(quantity="9" * 101) == field_error(
        "quantity", "quantity must be at most 100 characters; it has 101."
    )
    long_email = "a" * 64 + "@" + ("b" * 60 + ".") * 3 + "example.com"
    assert len(long_email) == 259
    assert rfq_error(buyer_contact=long_email) == field_error(
        "buyer_contact", "buyer_contact must be at most 254 characters; it has 259."
    )


def test_control_characters_are_refused_but_free_text_keeps_line_breaks():
    assert (
        RFQ_FORM.clean({**VALID, "product": "Lights\n\tTwo lines"})["product"]
        == "Lights\n\tTwo lines"
    )
    assert rfq_error(product="LED\x00") == field_error(
        "product", "product must not contain control characters (found U+0000)."
    )
    assert rfq_error(quantity="2\n000") == field_error(
        "quantity",
        "quantity must not contain line breaks, tabs or other control characters (found U+000A).",
    )
    assert rfq_error(product="LED \ud83d") == field_error(
        "product", "product must not contain control characters (found U+D83D)."
    )


@pytest.mark.parametrize(
    "value, stored",
    [
        ("HK", "HK"),
        ("mo", "MO"),
        ("eu", "EU"),
        ("Ca", "CA"),
        ("DE", "DE"),
        ("deu", "DE"),
        ("USA", "US"),
        ("jp", "JP"),
    ],
)
def test_target_market_accepts_iso_3166_and_our_market_codes(value, stored):
    assert RFQ_FORM.clean({**VALID, "target_market": value})["target_market"] == stored


@pytest.mark.parametrize("value", ["UK", "XX", "ZZZ", "Germany", "H", "D1", "U.S."])
def test_target_market_refuses_anything_else(value):
    assert rfq_error(target_market=value) == field_error(
        "target_market",
        "target_market must be an ISO 3166 country code such as DE or DEU, or one of our market "
        "codes HK, MO, SG, GB, EU, AU, CA (the United Kingdom is GB).",
    )


@pytest.mark.parametrize(
    "value, stored",
    [
        ("buyer@example.com", "buyer@example.com"),
        ("First.Last+rfq@Sub.Example.CO.UK", "First.Last+rfq@sub.example.co.uk"),
        ("+852 2123 4567", "+852 2123 4567"),
        ("+85221234567", "+852 2123 4567"),
        ("+44 (0)20 7946 0958", "+44 20 7946 0958"),
        ("+86 138-0013-8000", "+86 138 0013 8000"),
        ("+852 2123 4567 ext. 12", "+852 2123 4567 ext. 12"),
    ],
)
def test_buyer_contact_accepts_an_email_address_or_an_international_phone_number(value, stored):
    assert RFQ_FORM.clean({**VALID, "buyer_contact": value})["buyer_contact"] == stored


@pytest.mark.parametrize(
    "value", ["buyer@", "@example.com", "buyer@example", "buyer@localhost", "a b@example.com"]
)
def test_buyer_contact_refuses_a_broken_email_address(value):
    assert rfq_error(buyer_contact=value) == field_error(
        "buyer_contact",
        "buyer_contact looks like an e-mail address but is not a valid one: check it (e.g. "
        f"buyer@example.com), or give {FORMS}.",
    )


@pytest.mark.parametrize(
    "value", ["+852 0000 0000", "+852", "+999 1234 5678", "+852 2123 4567 after 5pm"]
)
def test_buyer_contact_refuses_an_invalid_phone_number(value):
    assert rfq_error(buyer_contact=value) == field_error(
        "buyer_contact",
        "buyer_contact is not a valid international phone number: check the country code and "
        f"the number, {PHONE_HINT}, or give {FORMS}.",
    )


@pytest.mark.parametrize("value", ["2123 4567", "00852 2123 4567", "(020) 7946 0958"])
def test_buyer_contact_refuses_a_phone_number_without_country_code(value):
    assert rfq_error(buyer_contact=value) == field_error(
        "buyer_contact",
        "buyer_contact looks like a phone number without its country code: write it in "
        f"international form, starting with + and the country code, {PHONE_HINT}, or give "
        f"{FORMS}.",
    )


@pytest.mark.parametrize("value", ["call me", "somebody at the harbour", "wechat"])
def test_buyer_contact_refuses_other_contact_forms(value):
    assert rfq_error(buyer_contact=value) == field_error(
        "buyer_contact", f"buyer_contact must be {FORMS}."
    )


@pytest.mark.parametrize(
    "value, kind", [("Skype: harbour", "Skype"), ("https://example.com/contact", "https")]
)
def test_buyer_contact_refuses_a_messenger_we_do_not_answer_on(value, kind):
    assert rfq_error(buyer_contact=value) == field_error(
        "buyer_contact",
        f"buyer_contact names a contact kind we do not answer on ({kind!r}); give {FORMS}.",
    )


@pytest.mark.parametrize(
    "value, stored",
    [
        # WeChat: the WeChat ID, 6 to 20 letters, digits, _ or -, starting with a letter.
        ("WeChat: harbour_lighting", "WeChat: harbour_lighting"),
        ("wechat:Harbour-Light88", "WeChat: Harbour-Light88"),
        ("WECHAT : abcdef", "WeChat: abcdef"),
        ("微信：harbour_lighting", "WeChat: harbour_lighting"),
        ("WeChat：a1234567890123456789", "WeChat: a1234567890123456789"),
        # WhatsApp: an international number, stored in international form.
        ("WhatsApp: +852 9123 4567", "WhatsApp: +852 9123 4567"),
        ("whatsapp: +85291234567", "WhatsApp: +852 9123 4567"),
        ("WhatsApp:+86 138-0013-8000", "WhatsApp: +86 138 0013 8000"),
        # Line: a LINE ID (case-insensitive, stored lower-case); official accounts start with @.
        ("Line: harbourlight", "Line: harbourlight"),
        ("LINE: Harbour.Light_2", "Line: harbour.light_2"),
        ("line: @harbour-hk", "Line: @harbour-hk"),
        # Telegram: @ and a 5 to 32 character username.
        ("Telegram: @harbour_lighting", "Telegram: @harbour_lighting"),
        ("telegram:@Harbour", "Telegram: @Harbour"),
    ],
)
def test_buyer_contact_accepts_messenger_contacts(value, stored):
    assert RFQ_FORM.clean({**VALID, "buyer_contact": value})["buyer_contact"] == stored
    # The same validator serves the access request's contact.
    assert ACCESS_REQUEST_FORM.clean({**ACCESS, "contact": value})["contact"] == stored


WECHAT_RULE = (
    "it has 6 to 20 letters, digits, _ or -, starting with a letter, e.g. WeChat: harbour_lighting."
)
WHATSAPP_RULE = "write + and the country code, e.g. WhatsApp: +852 9123 4567."
LINE_RULE = (
    "it has 1 to 20 letters, digits, ., _ or - (an official account's starts with @), "
    "e.g. Line: harbourlight."
)
TELEGRAM_RULE = (
    "write @ and 5 to 32 letters, digits or _, starting with a letter, e.g. "
    "Telegram: @harbour_lighting."
)


@pytest.mark.parametrize(
    "value, message",
    [
        ("WeChat: abc", "names WeChat but 'abc' is not a WeChat ID: " + WECHAT_RULE),
        ("WeChat: 1harbour", "names WeChat but '1harbour' is not a WeChat ID: " + WECHAT_RULE),
        (
            "WeChat: harbour lighting",
            "names WeChat but 'harbour lighting' is not a WeChat ID: " + WECHAT_RULE,
        ),
        (
            "WeChat: a" + "b" * 20,
            f"names WeChat but 'a{'b' * 20}' is not a WeChat ID: " + WECHAT_RULE,
        ),
        ("WeChat:", "names WeChat but '' is not a WeChat ID: " + WECHAT_RULE),
        (
            "WhatsApp: 9123 4567",
            "names WhatsApp but '9123 4567' is not an international phone number: " + WHATSAPP_RULE,
        ),
        (
            "WhatsApp: +852 0000 0000",
            "names WhatsApp but '+852 0000 0000' is not an "
            "international phone number: " + WHATSAPP_RULE,
        ),
        (
            "WhatsApp: harbour",
            "names WhatsApp but 'harbour' is not an international phone number: " + WHATSAPP_RULE,
        ),
        ("Line: harbour light", "names Line but 'harbour light' is not a LINE ID: " + LINE_RULE),
        ("Line: " + "a" * 21, f"names Line but '{'a' * 21}' is not a LINE ID: " + LINE_RULE),
        ("Line: 哈巴", "names Line but '哈巴' is not a LINE ID: " + LINE_RULE),
        (
            "Telegram: harbour_lighting",
            "names Telegram but 'harbour_lighting' is not a Telegram username: " + TELEGRAM_RULE,
        ),
        (
            "Telegram: @abc",
            "names Telegram but '@abc' is not a Telegram username: " + TELEGRAM_RULE,
        ),
        (
            "Telegram: @1harbour",
            "names Telegram but '@1harbour' is not a Telegram username: " + TELEGRAM_RULE,
        ),
        (
            "Telegram: @harbour-hk",
            "names Telegram but '@harbour-hk' is not a Telegram username: " + TELEGRAM_RULE,
        ),
    ],
)
def test_buyer_contact_refuses_a_messenger_id_that_breaks_its_kinds_rules(value, message):
    assert rfq_error(buyer_contact=value) == field_error(
        "buyer_contact", f"buyer_contact {message}"
    )
    assert access_error(contact=value) == field_error("contact", f"contact {message}")


def test_the_rfq_may_name_its_listing():
    cleaned = RFQ_FORM.clean({**VALID, "asaptic_id": " at-test-7k3m9q2x4b "})
    assert cleaned["asaptic_id"] == "AT-TEST-7K3M9Q2X4B"
    assert RFQ_FORM.clean({**VALID, "asaptic_id": None})["asaptic_id"] == ""
    assert RFQ_FORM.clean(VALID)["asaptic_id"] == ""
    assert rfq_error(asaptic_id="AT-123") == field_error(
        "asaptic_id",
        "asaptic_id must be a listing id (the asaptic_id of a row in the feed): AT- and 10 "
        "characters from 0-9 and A-Z without I, L, O and U, e.g. AT-7K3M9Q2X4B.",
    )
    assert rfq_error(asaptic_id=12)["error"]["param"] == "asaptic_id"


def test_an_empty_listing_id_leaves_the_fingerprint_of_older_requests_alone():
    before = {k: v for k, v in RFQ_FORM.clean(VALID).items() if k != "asaptic_id"}
    assert validation.fingerprint(RFQ_FORM.clean(VALID)) == validation.fingerprint(before)
    named = RFQ_FORM.clean({**VALID, "asaptic_id": "AT-TEST-7K3M9Q2X4B"})
    assert validation.fingerprint(named) != validation.fingerprint(before)


# --- access requests ------------------------------------------------------------------------

ACCESS = {
    "at_id": "AT-7K3M9Q2X4B",
    "organisation": "Harbour Lighting Ltd",
    "contact": "bids@example.com",
    "purpose": "We supply street lighting in Hong Kong and intend to bid.",
}


def access_error(**changes) -> dict:
    payload = {k: v for k, v in {**ACCESS, **changes}.items() if v is not ...}
    return error_of(lambda: ACCESS_REQUEST_FORM.clean(payload))


def test_a_valid_access_request_is_cleaned():
    assert ACCESS_REQUEST_FORM.clean({**ACCESS, "at_id": " at-test-7k3m9q2x4b "}) == {
        **ACCESS,
        "at_id": "AT-TEST-7K3M9Q2X4B",
    }
    assert ACCESS_REQUEST_FORM.clean({**ACCESS, "at_id": None})["at_id"] == ""


@pytest.mark.parametrize(
    "value",
    [
        "AT-7K3M9Q2X4",
        "AT-7K3M9Q2X4BB",
        "AT-IIIIIIIIII",
        "XX-7K3M9Q2X4B",
        "7K3M9Q2X4B",
        "AT-TEST-7K3M9Q2X4B-1",
    ],
)
def test_access_request_listing_id_must_have_the_listing_id_format(value):
    assert access_error(at_id=value) == field_error(
        "at_id",
        "at_id must be a listing id (the asaptic_id of a row in the feed): AT- and 10 "
        "characters from 0-9 and A-Z without I, L, O and U, e.g. AT-7K3M9Q2X4B.",
    )


def test_access_request_required_fields_and_rules():
    assert access_error(organisation=...) == field_error(
        "organisation",
        'organisation is required: name the organisation asking for access, e.g. "Harbour Lighting Ltd".',
    )
    assert access_error(contact=" ") == field_error(
        "contact",
        f"contact is required: give {FORMS}, so we can answer you.",
    )
    assert access_error(purpose=None) == field_error(
        "purpose",
        "purpose is required: say why you need the detail, e.g. what you supply and how you intend to bid.",
    )
    assert access_error(contact="2123 4567")["error"]["message"].startswith(
        "contact looks like a phone number without its country code"
    )
    assert access_error(purpose="x" * 1001) == field_error(
        "purpose", "purpose must be at most 1000 characters; it has 1001."
    )
    assert access_error(organisation="x" * 201) == field_error(
        "organisation", "organisation must be at most 200 characters; it has 201."
    )
    assert access_error(product="LED") == field_error(
        "product",
        'Unknown field "product". Allowed fields: at_id, organisation, contact, purpose.',
    )


# --- idempotency keys and fingerprints ------------------------------------------------------


@pytest.mark.parametrize(
    "value, key",
    [
        (None, None),
        ("6f1c2b0e-8a4d-4c1e-9b7a-2d5f3e9c1a40", "6f1c2b0e-8a4d-4c1e-9b7a-2d5f3e9c1a40"),
        ('"6f1c2b0e"', "6f1c2b0e"),
        ("  k1  ", "k1"),
        ("x" * 255, "x" * 255),
    ],
)
def test_idempotency_keys_accepted(value, key):
    assert validation.clean_idempotency_key(value) == key


@pytest.mark.parametrize("value", ["", "  ", "two words", "x" * 256, "ключ", '"', '""', 'a"b'])
def test_idempotency_keys_refused(value):
    assert error_of(lambda: validation.clean_idempotency_key(value)) == {
        "status": 400,
        "error": {
            "code": "invalid_parameter",
            "message": "Idempotency-Key must be 1 to 255 visible ASCII characters without spaces "
            "or quotes; a fresh UUID per submission is best, e.g. "
            "6f1c2b0e-8a4d-4c1e-9b7a-2d5f3e9c1a40.",
            "param": "Idempotency-Key",
        },
    }


def test_the_fingerprint_is_the_same_for_the_same_cleaned_content():
    a = RFQ_FORM.clean({**VALID, "target_market": "hk"})
    b = RFQ_FORM.clean(dict(reversed(list({**VALID, "product": " " + VALID["product"]}.items()))))
    assert validation.fingerprint(a) == validation.fingerprint(b)
    assert len(validation.fingerprint(a)) == 64
    assert validation.fingerprint(a) != validation.fingerprint({**a, "quantity": "2,001 units"})


# --- documentation generated from the same definitions ----------------------------------------


def test_the_rfq_json_schema_matches_the_rules():
    schema = RFQ_FORM.json_schema()
    assert schema["required"] == ["product", "buyer_contact"]
    assert schema["additionalProperties"] is False
    texts = {
        name: (p["anyOf"][0] if "anyOf" in p else p) for name, p in schema["properties"].items()
    }
    assert {name: (t["type"], t["maxLength"]) for name, t in texts.items()} == {
        "product": ("string", 500),
        "quantity": ("string", 100),
        "target_market": ("string", 3),
        "buyer_contact": ("string", 254),
        "asaptic_id": ("string", 18),
    }
    optional = [name for name, p in schema["properties"].items() if "anyOf" in p]
    assert optional == ["quantity", "target_market", "asaptic_id"]
    assert all(schema["properties"][n]["anyOf"][1] == {"type": "null"} for n in optional)
    assert ACCESS_REQUEST_FORM.json_schema()["required"] == ["organisation", "contact", "purpose"]


def test_references_have_the_published_format():
    made = {references.new_reference(references.RFQ_PREFIX) for _ in range(200)}
    assert len(made) == 200
    assert all(references.RFQ_REFERENCE_RE.fullmatch(r) for r in made)
    assert references.ACCESS_REQUEST_REFERENCE_RE.fullmatch(references.new_reference("ACR-"))

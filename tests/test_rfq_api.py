"""POST /rfq (submitRfq): the thin REST surface over the intake service."""

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client

from core.errors import ApiError
from rfq import services, validation
from rfq.models import Rfq
from rfq.validation import RFQ_FORM
from tenders import contract

pytestmark = pytest.mark.django_db

T = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)

RFQ = {
    "product": "LED street lights, 120 W, IP66",
    "quantity": "2,000 units",
    "target_market": "HK",
    "buyer_contact": "buyer@example.com",
}


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


def post(client, body, content_type="application/json", **headers):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    # CONTENT_TYPE also in the environ: the test client drops it for an empty body.
    return client.post(
        "/rfq", data=data, content_type=content_type, CONTENT_TYPE=content_type, **headers
    )


def assert_error(response, status, code, message, param=None, **extra):
    error = {"code": code, "message": message}
    if param is not None:
        error["param"] = param
    assert (response.status_code, response.json()) == (status, {"error": error, **extra})
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"


def test_a_request_for_quote_is_stored_before_the_answer(
    client, django_capture_on_commit_callbacks, mailoutbox
):
    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, RFQ, HTTP_USER_AGENT="buyer-script/2", REMOTE_ADDR="198.51.100.7")
    record = Rfq.objects.get()
    assert response.status_code == 200
    assert response.json() == {
        "received": True,
        "reference": record.reference,
        "next": "Thank you: your request for quote is stored. We answer you at the contact you "
        f"gave within 4 hours. Quote {record.reference} in any follow-up.",
    }
    assert response["Cache-Control"] == "no-store"
    assert not response.has_header("Idempotent-Replayed")
    assert (record.product, record.buyer_contact, record.client_ip, record.user_agent) == (
        "LED street lights, 120 W, IP66",
        "buyer@example.com",
        "198.51.100.7",
        "buyer-script/2",
    )
    assert len(mailoutbox) == 1


def test_field_errors_name_the_field_and_store_nothing(client):
    assert_error(
        post(client, {**RFQ, "buyer_contact": "call me"}),
        400,
        "invalid_parameter",
        "buyer_contact must be an e-mail address, an international phone number starting with + "
        "(e.g. +852 2123 4567), or a messenger contact written as WeChat: harbour_lighting, "
        "WhatsApp: +852 9123 4567, Line: harbourlight or Telegram: @harbour_lighting.",
        "buyer_contact",
    )
    assert_error(
        post(client, {**RFQ, "budget": "1m"}),
        400,
        "invalid_parameter",
        'Unknown field "budget". Allowed fields: product, quantity, target_market, buyer_contact, asaptic_id.',
        "budget",
    )
    assert_error(
        post(client, {"buyer_contact": "buyer@example.com"}),
        400,
        "invalid_parameter",
        'product is required: say what you want to source, e.g. "LED street lights, 120 W, IP66".',
        "product",
    )
    assert Rfq.objects.count() == 0


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "",
            'The body is empty. Send a JSON object, e.g. {"product": "LED street lights, 120 W, IP66", "quantity": "2,000 units", "target_market": "HK", "buyer_contact": "buyer@example.com"}',
        ),
        ('{"product": ', "The body is not valid JSON: Expecting value at line 1 column 13."),
        (b'{"product": "\xe9"}', "The body is not valid UTF-8 (byte 13)."),
        (
            '{"product": "a", "product": "b"}',
            'The body repeats the member "product". Send each field once.',
        ),
        (
            '["LED street lights"]',
            "The request for quote must be a JSON object with the fields product, quantity, "
            "target_market, buyer_contact, asaptic_id; got an array.",
        ),
    ],
)
def test_bodies_that_are_not_a_json_object(client, body, message):
    assert_error(post(client, body), 400, "invalid_body", message)
    assert Rfq.objects.count() == 0


def test_wrong_content_type_is_415(client):
    response = client.post("/rfq", data={"product": "LED"})  # a form post
    assert_error(
        response,
        415,
        "invalid_body",
        "Send the body as JSON with the header Content-Type: application/json (got multipart/form-data).",
    )
    assert_error(
        post(client, RFQ, content_type="text/plain"),
        415,
        "invalid_body",
        "Send the body as JSON with the header Content-Type: application/json (got text/plain).",
    )
    assert Rfq.objects.count() == 0


def test_a_body_over_the_size_limit_is_413(client, settings):
    settings.RFQ_MAX_BODY_BYTES = 200
    body = json.dumps({**RFQ, "product": "x" * 200})
    assert_error(
        post(client, body),
        413,
        "invalid_body",
        "The body is larger than 200 bytes. Send only the documented fields, within their maximum lengths.",
    )
    assert Rfq.objects.count() == 0


def test_an_idempotent_retry_gets_the_first_answer(client):
    first = post(client, RFQ, HTTP_IDEMPOTENCY_KEY="6f1c2b0e-8a4d-4c1e-9b7a-2d5f3e9c1a40")
    again = post(
        client,
        dict(reversed(RFQ.items())),
        HTTP_IDEMPOTENCY_KEY="6f1c2b0e-8a4d-4c1e-9b7a-2d5f3e9c1a40",
    )
    assert (again.status_code, again.json()) == (200, first.json())
    assert again["Idempotent-Replayed"] == "true"
    assert Rfq.objects.count() == 1
    assert Rfq.objects.get().idempotency_key == "6f1c2b0e-8a4d-4c1e-9b7a-2d5f3e9c1a40"
    assert_error(
        post(
            client,
            {**RFQ, "quantity": "5 units"},
            HTTP_IDEMPOTENCY_KEY="6f1c2b0e-8a4d-4c1e-9b7a-2d5f3e9c1a40",
        ),
        422,
        "idempotency_conflict",
        "This Idempotency-Key was already used for a different submission. Use a new key for a "
        "new submission, or send exactly the same content to retry.",
        "Idempotency-Key",
    )
    assert_error(
        post(client, RFQ, HTTP_IDEMPOTENCY_KEY="not a key"),
        400,
        "invalid_parameter",
        "Idempotency-Key must be 1 to 255 visible ASCII characters without spaces or quotes; a "
        "fresh UUID per submission is best, e.g. 6f1c2b0e-8a4d-4c1e-9b7a-2d5f3e9c1a40.",
        "Idempotency-Key",
    )
    assert Rfq.objects.count() == 1


def test_over_the_rate_limit_is_429_with_retry_after_and_stores_nothing(
    client, settings, monkeypatch
):
    settings.RFQ_RATE_LIMIT = "2/hour"
    monkeypatch.setattr(services, "clock", lambda: T)
    for _ in range(2):
        assert post(client, RFQ).status_code == 200
    monkeypatch.setattr(services, "clock", lambda: T + timedelta(minutes=39, seconds=30))
    response = post(client, RFQ)
    assert_error(
        response,
        429,
        "rate_limited",
        "Too many submissions from your network address: the limit is 2 per hour. Try again in 21 min.",
        retry_after=1230,
    )
    assert response["Retry-After"] == "1230"
    assert Rfq.objects.count() == 2


def test_the_limit_follows_the_forwarded_client_only_behind_a_trusted_proxy(client, settings):
    settings.RFQ_RATE_LIMIT = "1/hour"
    settings.TRUSTED_PROXY_COUNT = 1
    assert post(client, RFQ, HTTP_X_FORWARDED_FOR="203.0.113.1").status_code == 200
    assert post(client, RFQ, HTTP_X_FORWARDED_FOR="203.0.113.2").status_code == 200
    assert post(client, RFQ, HTTP_X_FORWARDED_FOR="203.0.113.1").status_code == 429
    assert sorted(Rfq.objects.values_list("client_ip", flat=True)) == ["203.0.113.1", "203.0.113.2"]
    settings.TRUSTED_PROXY_COUNT = 0
    # Without a trusted proxy the header is the client's own claim and changes nothing.
    assert post(client, RFQ, HTTP_X_FORWARDED_FOR="203.0.113.3").status_code == 200
    assert post(client, RFQ, HTTP_X_FORWARDED_FOR="203.0.113.4").status_code == 429


def test_other_methods_are_405_in_the_error_contract(client):
    for method in (client.get, client.put, client.delete):
        response = method("/rfq")
        assert_error(
            response, 405, "method_not_allowed", "Send a request for quote with POST, as JSON."
        )
        assert response["Allow"] == "POST, OPTIONS"


def test_no_csrf_token_is_needed_by_a_keyless_intake():
    client = Client(enforce_csrf_checks=True)
    response = post(client, RFQ)
    assert response.status_code == 200 and response.json()["received"] is True
    assert Rfq.objects.get().reference == response.json()["reference"]


def test_an_odd_accept_header_still_gets_json(client):
    response = post(client, {"product": "LED"}, HTTP_ACCEPT="text/html")
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "buyer_contact"


def test_the_openapi_description_of_submit_rfq(tmp_path):
    path = tmp_path / "openapi.json"
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--format",
        "openapi-json",
        "--file",
        str(path),
    )
    document = json.loads(path.read_text())
    operation = document["paths"]["/rfq"]["post"]
    assert operation["operationId"] == "submitRfq"
    assert [(p["in"], p["name"]) for p in operation["parameters"]] == [
        ("header", "Idempotency-Key")
    ]
    codes = ["200", "400", "411", "413", "415", "422", "429", "503"]
    assert sorted(operation["responses"]) == codes
    assert operation["responses"]["429"]["headers"]["Retry-After"]["schema"] == {"type": "integer"}
    assert operation["responses"]["200"]["headers"]["Idempotent-Replayed"]["schema"] == {
        "type": "string",
        "enum": ["true"],
    }
    schemas = document["components"]["schemas"]
    ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    request = schemas[ref.removeprefix("#/components/schemas/")]
    # The documented request is the validator's own field definitions, and it is strict.
    assert request == {
        **RFQ_FORM.json_schema(),
        "description": "A request for quote. Fields are trimmed; unknown fields are refused.",
    }
    assert (request["additionalProperties"], request["required"]) == (
        False,
        ["product", "buyer_contact"],
    )
    assert list(request["properties"]) == [
        "product",
        "quantity",
        "target_market",
        "buyer_contact",
        "asaptic_id",
    ]
    assert schemas["RfqReceipt"] == contract.embedded(contract.load(contract.RFQ_RECEIPT))
    for status in ("400", "413", "415", "422", "429", "503"):
        error = operation["responses"][status]["content"]["application/json"]["schema"]
        assert error == {"$ref": "#/components/schemas/Error"}
    examples_400 = operation["responses"]["400"]["content"]["application/json"]["examples"]
    assert examples_400["MissingRequiredField"]["value"] == {
        "error": {
            "code": "invalid_parameter",
            "message": 'product is required: say what you want to source, e.g. "LED street lights, 120 W, IP66".',
            "param": "product",
        }
    }


def test_the_documented_idempotency_key_agrees_with_the_validator(tmp_path):
    """The schema's length and pattern accept what the service accepts and refuse the rest (a
    bare key of 256 characters fit ``maxLength: 257`` and was refused)."""
    path = tmp_path / "openapi.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(path))
    (parameter,) = json.loads(path.read_text())["paths"]["/rfq"]["post"]["parameters"]
    schema = parameter["schema"]
    pattern = re.compile(schema["pattern"])
    for value in ["x" * 255, f'"{"x" * 255}"', "6f1c2b0e", '"k1"', "x" * 256, '"', '""', 'a"b']:
        documented = bool(pattern.search(value)) and len(value) <= schema["maxLength"]
        try:
            validation.clean_idempotency_key(value)
            served = True
        except ApiError:
            served = False
        assert documented == served, value

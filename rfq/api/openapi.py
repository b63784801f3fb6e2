"""OpenAPI description of ``POST /rfq``, generated from the code it describes.

The request schema is ``RFQ_FORM.json_schema()`` (the validator's own field definitions) and
every error example is produced by running the real validator, body reader or service helper,
so the description cannot drift from the behaviour.
"""

import json

from django.conf import settings
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import OpenApiExample, OpenApiParameter
from rest_framework import serializers

from core import jsonbody, ratelimit
from core.openapi import answer, error, example, raised
from rfq import services, validation

RFQ_EXAMPLE = {
    "product": "LED street lights, 120 W, IP66",
    "quantity": "2,000 units",
    "target_market": "HK",
    "buyer_contact": "buyer@example.com",
}


class Rfq(serializers.Serializer):
    """The request body's component (the contract's resource name, section 2.7): the
    validator's own field definitions, which no serializer states."""


class RfqExtension(OpenApiSerializerExtension):
    target_class = Rfq

    def map_serializer(self, auto_schema, direction):
        return {
            **validation.RFQ_FORM.json_schema(),
            "description": "A request for quote. Fields are trimmed; unknown fields are refused.",
        }


def _refused(name: str, call, *args, **kwargs) -> OpenApiExample:
    return example(name, raised(call, *args, **kwargs))


def _invalid(name: str, changes: dict) -> OpenApiExample:
    payload = {k: v for k, v in {**RFQ_EXAMPLE, **changes}.items() if v is not ...}
    return _refused(name, validation.RFQ_FORM.clean, payload)


def submit_rfq_schema() -> dict:
    """Keyword arguments for ``extend_schema`` on the view's ``post``."""
    rate = ratelimit.parse_rate(settings.RFQ_RATE_LIMIT) or ratelimit.Rate(10, 3600, "hour")
    example_body = json.dumps(RFQ_EXAMPLE)
    max_bytes = settings.RFQ_MAX_BODY_BYTES
    reference = "RFQ-7K3M9Q2X4B"
    next_text = services.RFQ.next_text(reference)
    return {
        "operation_id": "submitRfq",
        "summary": "Send a request for quote",
        "description": (
            "Stores a request for quote and answers with its reference. Our sourcing team "
            f"answers the buyer at `buyer_contact` within {settings.RFQ_REPLY_HOURS} hours. "
            "The record is committed before the answer is sent.\n\n"
            "**Idempotency.** Send an `Idempotency-Key` header (a fresh UUID per submission) "
            "and retry freely after a timeout: a retry with the same key and the same content "
            "returns the first answer (same reference, header `Idempotent-Replayed: true`) and "
            "stores nothing more. The same key with different content is refused with 422 "
            "`idempotency_conflict`. Keys are global and never expire.\n\n"
            f"**Rate limit.** {rate} per client address by default (a deployment setting). Only "
            "stored submissions count; validation errors and idempotent replays do not. Over "
            "the limit: 429 `rate_limited` with `Retry-After` (seconds).\n\n"
            '**Errors** use the body `{"error": {"code", "message", "param"}}`; '
            "`param` names the field or header at fault. Codes: `invalid_body` (400, 411, "
            "413, 415), `invalid_parameter` (400), "
            "`idempotency_conflict` (422), `rate_limited` (429), `service_unavailable` (503)."
        ),
        "tags": ["RFQ"],
        "request": {"application/json": Rfq},
        "parameters": [
            OpenApiParameter(
                "Idempotency-Key",
                {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 257,
                    # 255 without the quotes of the structured-field form: a bare key of 256
                    # is refused, which maxLength alone cannot say.
                    "pattern": '^(?:[!#-~]{1,255}|"[!#-~]{1,255}")$',
                },
                OpenApiParameter.HEADER,
                required=False,
                description="1 to 255 visible ASCII characters (bare, or quoted as a "
                "structured-field string); a fresh UUID per submission is best.",
            ),
            OpenApiParameter(
                "Idempotent-Replayed",
                str,
                OpenApiParameter.HEADER,
                response=[200],
                enum=["true"],
                description="Present when the answer is the replay of an earlier submission "
                "with the same Idempotency-Key.",
            ),
            OpenApiParameter(
                "Retry-After",
                int,
                OpenApiParameter.HEADER,
                response=[429, 503],
                description="Seconds to wait before sending again.",
            ),
        ],
        "examples": [
            OpenApiExample("A request for quote", value=RFQ_EXAMPLE, request_only=True),
            OpenApiExample(
                "Minimal, answered by phone",
                value={"product": "Hospital beds, electric", "buyer_contact": "+852 2123 4567"},
                request_only=True,
            ),
        ],
        "responses": {
            200: answer(
                "RfqReceipt",
                "Stored (or the replay of an earlier submission with the same Idempotency-Key).",
                example("Stored", services.Receipt(reference, next_text).as_dict()),
            ),
            400: error(
                "The body or a field is invalid (`param` names the field); nothing was stored.",
                _invalid("Missing required field", {"product": ...}),
                _invalid("Unknown field", {"buyer_contcat": "buyer@example.com"}),
                _invalid("Contact not usable", {"buyer_contact": "2123 4567"}),
                _invalid("Unknown market", {"target_market": "UK"}),
                _invalid("Too long", {"quantity": "x" * 101}),
                _invalid("Not a string", {"quantity": 2000}),
                _refused(
                    "Not JSON", jsonbody.parse_json, b'{"product": "LED"', example=example_body
                ),
                _refused("Not an object", validation.RFQ_FORM.clean, ["LED street lights"]),
                _refused("Bad idempotency key", validation.clean_idempotency_key, "two words"),
            ),
            411: error(
                "A chunked body that the server in front cannot read (gunicorn, as the run "
                "command serves, reads it); send Content-Length. Nothing was stored.",
                _refused("Chunked body", jsonbody.length_required),
            ),
            413: error(
                f"The body is larger than {max_bytes} bytes; nothing was stored.",
                _refused("Too large", jsonbody.check_length, 10**6, max_bytes),
            ),
            415: error(
                "The body is not sent as `application/json` (UTF-8); nothing was stored.",
                _refused(
                    "Form data", jsonbody.check_content_type, "application/x-www-form-urlencoded"
                ),
            ),
            422: error(
                "The Idempotency-Key was used before for different content; nothing was stored.",
                _refused("Key reused", services.idempotency_conflict),
            ),
            429: error(
                "Too many submissions from this client address; nothing was stored. Wait "
                "`Retry-After` seconds.",
                _refused("Rate limited", services.rate_limited, rate, 1260),
            ),
            503: error(
                "The submission could not be stored (database unreachable); nothing was "
                "stored. Send it again after `Retry-After` seconds.",
                _refused("Unavailable", services.unavailable, services.RFQ),
            ),
        },
    }

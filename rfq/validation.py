"""The one validator of both intakes (request for quote, access request): pure functions.

Every surface (``POST /rfq``, the ``submit_rfq`` and ``request_tender_access`` tools, tests)
hands the parsed arguments to ``RFQ_FORM.clean`` or ``ACCESS_REQUEST_FORM.clean`` through the
services, and the JSON Schema that documents the arguments (OpenAPI, tool ``inputSchema``) is
generated from the same field definitions, so rules, messages and documentation cannot drift.

Errors are ``ApiError(400, "invalid_parameter", message, param=<field>)`` (the contract's code for
an input at fault, used alike for query parameters, body fields, tool arguments and the
Idempotency-Key header), one at a time in a fixed order (unknown fields first, then the
fields in the order declared), with a message that says what to send instead. A payload that
is not an object is ``invalid_body``.
"""

import difflib
import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import phonenumbers
import pycountry
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator
from tenders_client.jsontypes import a_type

from config.errors import ApiError
from tenders.ids import LISTING_ID_RE
from tenders.markets import MARKET_CODES

# An e-mail address cannot be longer than this (RFC 5321 forward-path); a phone number is far
# shorter, so this is the contact fields' maximum.
CONTACT_MAX_LENGTH = 254
PHONE_EXAMPLE = "+852 2123 4567"
MARKETS_TEXT = ", ".join(MARKET_CODES)
# Line breaks and tabs are allowed in free text; every other control character (and the lone
# surrogates JSON can encode) is refused: PostgreSQL cannot store NUL, and the rest only hide
# text from the staff who read it.
MULTILINE_ALLOWED = frozenset("\n\t")


class FieldError(ValueError):
    """A field's value is wrong; the message is shown to the sender as it is."""


@dataclass(frozen=True)
class Field:
    name: str
    required: bool
    max_length: int
    description: str
    example: str
    required_message: str = ""
    multiline: bool = False
    # Checks the format and returns the stored form; raises FieldError.
    clean: Callable[[str], str] | None = None
    # Used instead of the generic "at most N characters" when the field is a code.
    format_message: str = ""
    schema: dict = field(default_factory=dict)

    def json_schema(self) -> dict:
        text = {
            "type": "string",
            **({"minLength": 1} if self.required else {}),
            "maxLength": self.max_length,
            **self.schema,
        }
        documented = {"description": self.description, "examples": [self.example]}
        if self.required:
            return {**documented, **text}
        # Optional: null or absent means not given (anyOf rather than a type array, which
        # some tool-schema dialects cannot read).
        return {**documented, "anyOf": [text, {"type": "null"}]}


@dataclass(frozen=True)
class Form:
    """The fields of one intake: ``clean`` validates, ``json_schema`` documents."""

    title: str
    fields: tuple[Field, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def clean(self, payload: object) -> dict[str, str]:
        if not isinstance(payload, Mapping):
            raise ApiError(
                400,
                "invalid_body",
                f"The {self.title} must be a JSON object with the fields "
                f"{', '.join(self.names)}; got {a_type(payload)}.",
            )
        unknown = sorted(str(k) for k in payload if k not in self.names)
        if unknown:
            raise _unknown_field(unknown[0], self.names)
        return {f.name: _clean_field(f, payload.get(f.name)) for f in self.fields}

    def json_schema(self) -> dict:
        return {
            "type": "object",
            "title": self.title,
            "properties": {f.name: f.json_schema() for f in self.fields},
            "required": [f.name for f in self.fields if f.required],
            "additionalProperties": False,
        }


def _clean_field(spec: Field, value: object) -> str:
    name = spec.name
    if value is None or (isinstance(value, str) and not value.strip()):
        if spec.required:
            raise ApiError(400, "invalid_parameter", spec.required_message, param=name)
        return ""
    if not isinstance(value, str):
        raise ApiError(
            400,
            "invalid_parameter",
            f"{name} must be a string (text in double quotes), e.g. {json.dumps(spec.example)}; "
            f"got {a_type(value)}.",
            param=name,
        )
    text = unicodedata.normalize("NFC", value.replace("\r\n", "\n").replace("\r", "\n").strip())
    bad = _forbidden_character(text, spec.multiline)
    if bad is not None:
        where = "" if spec.multiline else "line breaks, tabs or other "
        raise ApiError(
            400,
            "invalid_parameter",
            f"{name} must not contain {where}control characters (found {bad}).",
            param=name,
        )
    if len(text) > spec.max_length:
        message = spec.format_message or (
            f"{name} must be at most {spec.max_length} characters; it has {len(text)}."
        )
        raise ApiError(400, "invalid_parameter", message, param=name)
    if spec.clean is not None:
        try:
            text = spec.clean(text)
        except FieldError as error:
            raise ApiError(400, "invalid_parameter", str(error), param=name) from None
    return text


def _forbidden_character(text: str, multiline: bool) -> str | None:
    for ch in text:
        if multiline and ch in MULTILINE_ALLOWED:
            continue
        if unicodedata.category(ch) in ("Cc", "Cs"):
            return f"U+{ord(ch):04X}"
    return None


def printable(text: str, limit: int = 64) -> str:
    """The sender's text made safe to echo back: control characters and lone surrogates
    escaped (they could not even be encoded), shortened."""
    shown = "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )
    return shown[:limit]


def _unknown_field(name: str, allowed: tuple[str, ...]) -> ApiError:
    shown = printable(name)
    hint = difflib.get_close_matches(name, allowed, n=1)
    did_you_mean = f' (did you mean "{hint[0]}"?)' if hint else ""
    return ApiError(
        400,
        "invalid_parameter",
        f'Unknown field "{shown}"{did_you_mean}. Allowed fields: {", ".join(allowed)}.',
        param=shown,
    )


# --- formats --------------------------------------------------------------------------------

_email = EmailValidator(allowlist=[])


def contact_cleaner(name: str) -> Callable[[str], str]:
    """An e-mail address (domain lower-cased) or an international phone number (+ form)."""

    def clean(value: str) -> str:
        if "@" in value:
            try:
                _email(value)
            except ValidationError:
                raise FieldError(
                    f"{name} looks like an e-mail address but is not a valid one: check it "
                    f"(e.g. buyer@example.com), or give an international phone number starting "
                    f"with +, e.g. {PHONE_EXAMPLE}."
                ) from None
            local, _, domain = value.rpartition("@")
            return f"{local}@{domain.lower()}"
        if value.startswith("+"):
            try:
                number = phonenumbers.parse(value, None)
            except phonenumbers.NumberParseException:
                number = None
            if number is None or not phonenumbers.is_valid_number(number):
                raise FieldError(
                    f"{name} is not a valid international phone number: check the country code "
                    f"and the number, e.g. {PHONE_EXAMPLE}, or give an e-mail address."
                )
            return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
        if any(ch.isdigit() for ch in value):
            raise FieldError(
                f"{name} looks like a phone number without its country code: write it in "
                f"international form, starting with + and the country code, e.g. "
                f"{PHONE_EXAMPLE}, or give an e-mail address."
            )
        raise FieldError(
            f"{name} must be an e-mail address or an international phone number starting "
            f"with +, e.g. {PHONE_EXAMPLE}."
        )

    return clean


TARGET_MARKET_MESSAGE = (
    "target_market must be an ISO 3166 country code such as DE or DEU, or one of our market "
    f"codes {MARKETS_TEXT} (the United Kingdom is GB)."
)


def clean_target_market(value: str) -> str:
    """Our market codes, then ISO 3166-1 alpha-2 and alpha-3; stored as upper-case alpha-2
    (EU, which ISO only reserves, stays EU)."""
    code = value.upper()
    if code in MARKET_CODES:
        return code
    if re.fullmatch(r"[A-Z]{2}", code) and pycountry.countries.get(alpha_2=code):
        return code
    if re.fullmatch(r"[A-Z]{3}", code):
        country = pycountry.countries.get(alpha_3=code)
        if country is not None:
            return country.alpha_2
    raise FieldError(TARGET_MARKET_MESSAGE)


LISTING_ID_MESSAGE = (
    "at_id must be a listing id (the asaptic_id of a row in the feed): AT- and 10 characters "
    "from 0-9 and A-Z without I, L, O and U, e.g. AT-7K3M9Q2X4B."
)


def clean_listing_id(value: str) -> str:
    # Format only, on purpose: whether the id is in the current snapshot, was withheld or never
    # existed is never revealed here (the answer is the same for every well-formed id), and a
    # request about a listing that has since left the feed is still worth a staff reply.
    listing_id = value.upper()
    if not LISTING_ID_RE.fullmatch(listing_id):
        raise FieldError(LISTING_ID_MESSAGE)
    return listing_id


# --- the two intakes ------------------------------------------------------------------------

RFQ_FORM = Form(
    title="request for quote",
    fields=(
        Field(
            "product",
            required=True,
            max_length=500,
            multiline=True,
            description="What you want to source: a product, a specification or a sourcing lane.",
            example="LED street lights, 120 W, IP66",
            required_message='product is required: say what you want to source, e.g. "LED '
            'street lights, 120 W, IP66".',
        ),
        Field(
            "quantity",
            required=False,
            max_length=100,
            description="How many or how much, in your own words.",
            example="2,000 units",
        ),
        Field(
            "target_market",
            required=False,
            max_length=3,
            description="Where the goods are needed: an ISO 3166 country code (alpha-2 or "
            f"alpha-3, any case; stored as upper-case alpha-2) or a market code: {MARKETS_TEXT}.",
            example="HK",
            clean=clean_target_market,
            format_message=TARGET_MARKET_MESSAGE,
            schema={"pattern": "^([A-Za-z]{2,3})?$"},
        ),
        Field(
            "buyer_contact",
            required=True,
            max_length=CONTACT_MAX_LENGTH,
            description="Where we answer you: an e-mail address, or an international phone "
            f"number starting with + and the country code (e.g. {PHONE_EXAMPLE}). Seen only "
            "by our staff.",
            example="buyer@example.com",
            required_message="buyer_contact is required: give an e-mail address or an "
            f"international phone number starting with +, e.g. {PHONE_EXAMPLE}, so we can "
            "answer you.",
            clean=contact_cleaner("buyer_contact"),
        ),
    ),
)

ACCESS_REQUEST_FORM = Form(
    title="tender access request",
    fields=(
        Field(
            # Named like every other argument that carries a listing id (decisions.md: at_id).
            "at_id",
            required=False,
            max_length=18,
            description="The listing you want detail for, when there is one: the asaptic_id of "
            "its row in the feed.",
            example="AT-7K3M9Q2X4B",
            clean=clean_listing_id,
            format_message=LISTING_ID_MESSAGE,
            schema={
                "pattern": "^([Aa][Tt]-([Tt][Ee][Ss][Tt]-)?[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{10})?$"
            },
        ),
        Field(
            "organisation",
            required=True,
            max_length=200,
            description="The organisation asking for access.",
            example="Harbour Lighting Ltd",
            required_message="organisation is required: name the organisation asking for "
            'access, e.g. "Harbour Lighting Ltd".',
        ),
        Field(
            "contact",
            required=True,
            max_length=CONTACT_MAX_LENGTH,
            description="Where we answer you: an e-mail address, or an international phone "
            f"number starting with + and the country code (e.g. {PHONE_EXAMPLE}). Seen only "
            "by our staff.",
            example="bids@example.com",
            required_message="contact is required: give an e-mail address or an "
            f"international phone number starting with +, e.g. {PHONE_EXAMPLE}, so we can "
            "answer you.",
            clean=contact_cleaner("contact"),
        ),
        Field(
            "purpose",
            required=True,
            max_length=1000,
            multiline=True,
            description="Why you need the detail: what you supply and how you intend to bid.",
            example="We supply street lighting in Hong Kong and intend to bid.",
            required_message="purpose is required: say why you need the detail, e.g. what you "
            "supply and how you intend to bid.",
        ),
    ),
)


# --- idempotency ----------------------------------------------------------------------------

IDEMPOTENCY_KEY_MAX_LENGTH = 255
_IDEMPOTENCY_KEY_RE = re.compile(r"[\x21-\x7e]{1,255}")


def clean_idempotency_key(value: str | None) -> str | None:
    """None when no key was sent. A key may be sent bare or as a quoted structured-field
    string (``"..."``, as the IETF Idempotency-Key draft writes it); both mean the same key."""
    if value is None:
        return None
    key = value.strip()
    if len(key) >= 2 and key[0] == key[-1] == '"':
        key = key[1:-1]
    if not _IDEMPOTENCY_KEY_RE.fullmatch(key) or '"' in key:
        raise ApiError(
            400,
            "invalid_parameter",
            "Idempotency-Key must be 1 to 255 visible ASCII characters without spaces or "
            "quotes; a fresh UUID per submission is best, e.g. "
            "6f1c2b0e-8a4d-4c1e-9b7a-2d5f3e9c1a40.",
            param="Idempotency-Key",
        )
    return key


def fingerprint(data: Mapping[str, str]) -> str:
    """The identity of a cleaned submission: equal for retries of the same request even when
    the sender's JSON differs in key order, spacing or letter case of codes."""
    canonical = json.dumps(dict(data), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

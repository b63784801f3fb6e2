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

from core.errors import ApiError
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


# Messenger contacts, written ``<Kind>: <id>`` (decisions.md, "Requests for quote"). The kind
# is matched in any case, with an ASCII or a full-width colon; the stored form is canonical.
# Each id is checked against its own service's rules:
# - WeChat: the WeChat ID a user sets, 6 to 20 letters, digits, _ or -, starting with a letter.
# - WhatsApp: the account is a phone number, so an international number (+ and country code).
# - Line: a LINE ID, 1 to 20 letters, digits, ., _ or - (an official account's starts with @).
# - Telegram: a public username, @ then 5 to 32 letters, digits or _, starting with a letter.
MESSENGERS = ("WeChat", "WhatsApp", "Line", "Telegram")
MESSENGER_EXAMPLES = {
    "WeChat": "WeChat: harbour_lighting",
    "WhatsApp": "WhatsApp: +852 9123 4567",
    "Line": "Line: harbourlight",
    "Telegram": "Telegram: @harbour_lighting",
}
CONTACT_FORMS_TEXT = (
    f"an e-mail address, an international phone number starting with + (e.g. {PHONE_EXAMPLE}), "
    "or a messenger contact written as "
    + ", ".join(MESSENGER_EXAMPLES[k] for k in MESSENGERS[:-1])
    + f" or {MESSENGER_EXAMPLES['Telegram']}"
)
_MESSENGER_RE = re.compile(r"^\s*([^\s:：]+)\s*[:：]\s*(.*)$", re.DOTALL)
_MESSENGER_KINDS = {k.lower(): k for k in MESSENGERS} | {"微信": "WeChat"}
_WECHAT_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{5,19}")
_LINE_RE = re.compile(r"@?[a-z0-9._-]{1,20}")
_TELEGRAM_RE = re.compile(r"@[A-Za-z][A-Za-z0-9_]{4,31}")


def _phone(value: str) -> str | None:
    """The number in international form, or None when it is not a valid one."""
    try:
        number = phonenumbers.parse(value, None)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_valid_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.INTERNATIONAL)


def _is_email(value: str) -> bool:
    try:
        _email(value)
    except ValidationError:
        return False
    return True


def _messenger(name: str, kind: str, handle: str) -> str:
    example = MESSENGER_EXAMPLES[kind]
    if kind == "WeChat":
        if not _WECHAT_RE.fullmatch(handle):
            raise FieldError(
                f"{name} names WeChat but {printable(handle)!r} is not a WeChat ID: it has 6 to "
                f"20 letters, digits, _ or -, starting with a letter, e.g. {example}."
            )
        return f"WeChat: {handle}"
    if kind == "WhatsApp":
        number = _phone(handle) if handle.startswith("+") else None
        if number is None:
            raise FieldError(
                f"{name} names WhatsApp but {printable(handle)!r} is not an international phone "
                f"number: write + and the country code, e.g. {example}."
            )
        return f"WhatsApp: {number}"
    if kind == "Line":
        line_id = handle.lower()
        if not _LINE_RE.fullmatch(line_id):
            raise FieldError(
                f"{name} names Line but {printable(handle)!r} is not a LINE ID: it has 1 to 20 "
                f"letters, digits, ., _ or - (an official account's starts with @), e.g. "
                f"{example}."
            )
        return f"Line: {line_id}"
    if not _TELEGRAM_RE.fullmatch(handle):
        raise FieldError(
            f"{name} names Telegram but {printable(handle)!r} is not a Telegram username: write "
            f"@ and 5 to 32 letters, digits or _, starting with a letter, e.g. {example}."
        )
    return f"Telegram: {handle}"


def contact_cleaner(name: str) -> Callable[[str], str]:
    """The one contact validator (``buyer_contact``, an access request's ``contact``): an e-mail
    address (domain lower-cased), an international phone number (+ form), or a messenger
    contact ``WeChat: <id>``, ``WhatsApp: +<number>``, ``Line: <id>``, ``Telegram: @<name>``
    (stored in that canonical spelling)."""

    def clean(value: str) -> str:
        labelled = _MESSENGER_RE.match(value)
        if labelled and "@" not in labelled[1]:
            kind = _MESSENGER_KINDS.get(labelled[1].lower())
            if kind is None and not _is_email(value):
                raise FieldError(
                    f"{name} names a contact kind we do not answer on "
                    f"({printable(labelled[1])!r}); give {CONTACT_FORMS_TEXT}."
                )
            if kind is not None:
                return _messenger(name, kind, labelled[2].strip())
        if "@" in value:
            try:
                _email(value)
            except ValidationError:
                raise FieldError(
                    f"{name} looks like an e-mail address but is not a valid one: check it "
                    f"(e.g. buyer@example.com), or give {CONTACT_FORMS_TEXT}."
                ) from None
            local, _, domain = value.rpartition("@")
            return f"{local}@{domain.lower()}"
        if value.startswith("+"):
            number = _phone(value)
            if number is None:
                raise FieldError(
                    f"{name} is not a valid international phone number: check the country code "
                    f"and the number, e.g. {PHONE_EXAMPLE}, or give {CONTACT_FORMS_TEXT}."
                )
            return number
        if any(ch.isdigit() for ch in value) and not any(ch.isalpha() for ch in value):
            raise FieldError(
                f"{name} looks like a phone number without its country code: write it in "
                f"international form, starting with + and the country code, e.g. "
                f"{PHONE_EXAMPLE}, or give {CONTACT_FORMS_TEXT}."
            )
        raise FieldError(f"{name} must be {CONTACT_FORMS_TEXT}.")

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


def listing_id_message(name: str) -> str:
    return (
        f"{name} must be a listing id (the asaptic_id of a row in the feed): AT- and 10 "
        "characters from 0-9 and A-Z without I, L, O and U, e.g. AT-7K3M9Q2X4B."
    )


LISTING_ID_MESSAGE = listing_id_message("at_id")
LISTING_ID_PATTERN = "^([Aa][Tt]-([Tt][Ee][Ss][Tt]-)?[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{10})?$"


def listing_id_cleaner(name: str) -> Callable[[str], str]:
    def clean(value: str) -> str:
        # Format only: whether an access request's id is in the current snapshot, was withheld
        # or never existed is never revealed here (the answer is the same for every
        # well-formed id), and a request about a listing that has since left the feed is still
        # worth a staff reply. An RFQ's asaptic_id is checked against the current issue by the
        # service (``rfq.services``), which reads the database.
        listing_id = value.upper()
        if not LISTING_ID_RE.fullmatch(listing_id):
            raise FieldError(listing_id_message(name))
        return listing_id

    return clean


clean_listing_id = listing_id_cleaner("at_id")


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
            description=f"Where we answer you: {CONTACT_FORMS_TEXT}. Seen only by our staff.",
            example="buyer@example.com",
            required_message=f"buyer_contact is required: give {CONTACT_FORMS_TEXT}, so we can "
            "answer you.",
            clean=contact_cleaner("buyer_contact"),
        ),
        Field(
            # The contract's listing-id field name (decisions.md, "Requests for quote").
            "asaptic_id",
            required=False,
            max_length=18,
            description="The listing this request is about, when there is one: the asaptic_id "
            "of a row of the current issue.",
            example="AT-7K3M9Q2X4B",
            clean=listing_id_cleaner("asaptic_id"),
            format_message=listing_id_message("asaptic_id"),
            schema={"pattern": LISTING_ID_PATTERN},
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
            schema={"pattern": LISTING_ID_PATTERN},
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
            description=f"Where we answer you: {CONTACT_FORMS_TEXT}. Seen only by our staff.",
            example="bids@example.com",
            required_message=f"contact is required: give {CONTACT_FORMS_TEXT}, so we can "
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


LATER_FIELDS = ("asaptic_id",)


def fingerprint(data: Mapping[str, str]) -> str:
    """The identity of a cleaned submission: equal for retries of the same request even when
    the sender's JSON differs in key order, spacing or letter case of codes."""
    # A field added later counts only when given, so a retry of a request stored before it
    # existed still matches its first answer.
    data = {k: v for k, v in data.items() if v or k not in LATER_FIELDS}
    canonical = json.dumps(dict(data), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

"""Reading a JSON request body strictly: pure functions over the header values and bytes.

The REST intake reads the raw body itself (rather than through DRF's parser) so that every way
a body can be wrong gets the contract's error body and a message that says what to send:
wrong content type (415), too large (413), empty, not UTF-8, not JSON, NaN or Infinity,
repeated members, nesting too deep (400). All use the code ``invalid_body``; the status tells
generic HTTP clients which of the three kinds it is.
"""

import json

from django.utils.http import parse_header_parameters

from config.errors import ApiError
from rfq.validation import printable


class _BodyError(ValueError):
    pass


def check_content_type(header: str | None) -> None:
    media_type, params = parse_header_parameters(header or "")
    if media_type.lower() != "application/json":
        shown = media_type or "none"
        raise ApiError(
            415,
            "invalid_body",
            f"Send the body as JSON with the header Content-Type: application/json (got {shown}).",
        )
    charset = params.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        raise ApiError(415, "invalid_body", f"Send the JSON body in UTF-8, not {charset}.")


def check_length(declared: str | int | None, max_bytes: int) -> None:
    """Refuse an oversized body from its Content-Length, before reading it."""
    try:
        length = int(declared or 0)
    except ValueError:
        length = 0
    if length > max_bytes:
        raise too_large(max_bytes)


def too_large(max_bytes: int) -> ApiError:
    return ApiError(
        413,
        "invalid_body",
        f"The body is larger than {max_bytes} bytes. Send only the documented fields, "
        "within their maximum lengths.",
    )


def parse_json(raw: bytes, *, max_bytes: int, example: str) -> object:
    """The parsed JSON value of ``raw``. Whether it is an object is the validator's concern."""
    if len(raw) > max_bytes:
        raise too_large(max_bytes)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ApiError(
            400, "invalid_body", f"The body is not valid UTF-8 (byte {error.start})."
        ) from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise ApiError(
            400, "invalid_body", f"The body is empty. Send a JSON object, e.g. {example}"
        )
    try:
        return json.loads(text, object_pairs_hook=_object, parse_constant=_constant)
    except json.JSONDecodeError as error:
        message = (
            f"The body is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}."
        )
    except _BodyError as error:
        message = str(error)
    except RecursionError:
        message = "The body is nested too deeply. Send a flat JSON object of strings."
    raise ApiError(400, "invalid_body", message)


def _object(pairs: list[tuple[str, object]]) -> dict:
    result = {}
    for key, value in pairs:
        if key in result:
            raise _BodyError(
                f'The body repeats the member "{printable(key)}". Send each field once.'
            )
        result[key] = value
    return result


def _constant(name: str) -> object:
    raise _BodyError(f"The body is not valid JSON: {name} is not a JSON number.")

"""The one strict reader of JSON request bodies, for ``POST /rfq`` and ``POST /mcp``.

Both read the raw body themselves (rather than through a framework's parser) so that every
way a body can be wrong is refused the same way, with a message that says what to send: wrong
content type (415), a chunked body the server cannot read (411), too large (413), empty, not
UTF-8, not JSON, NaN or Infinity, a repeated member, nesting too deep (400). Each raises
``ApiError`` with the code ``invalid_body``; the intake answers it as is, the tool server in
its JSON-RPC shape (-32700 for what ``parse_json`` refuses).
"""

import json

from django.utils.http import parse_header_parameters

from core.errors import ApiError


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


def length_required() -> ApiError:
    return ApiError(
        411,
        "invalid_body",
        "Send the body with a Content-Length header: this server cannot read a chunked body.",
    )


def read_body(request, max_bytes: int) -> bytes:
    """The raw body of a Django request, at most ``max_bytes``.

    A chunked body has no Content-Length, which Django takes for an empty body. Servers that
    de-chunk it for us say so (``wsgi.input_terminated``, as gunicorn does): then it is read
    from the input stream up to the limit. Others get 411 rather than "the body is empty".
    """
    meta = request.META
    if "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower():
        if not meta.get("wsgi.input_terminated"):
            raise length_required()
        raw = meta["wsgi.input"].read(max_bytes + 1)
    else:
        check_length(meta.get("CONTENT_LENGTH"), max_bytes)
        raw = request.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise too_large(max_bytes)
    return raw


def parse_json(raw: bytes, *, example: str | None = None) -> object:
    """The parsed JSON value of ``raw``. Whether it is an object is the caller's concern."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ApiError(
            400, "invalid_body", f"The body is not valid UTF-8 (byte {error.start})."
        ) from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        hint = f", e.g. {example}" if example else "."
        raise ApiError(400, "invalid_body", f"The body is empty. Send a JSON object{hint}")
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
            raise _BodyError(f"The body repeats the member {_shown(key)}. Send each field once.")
        result[key] = value
    return result


def _constant(name: str) -> object:
    raise _BodyError(f"The body is not valid JSON: {name} is not a JSON number.")


def _shown(key: str) -> str:
    # Quoted as JSON writes it (control characters escaped); a lone surrogate, which no
    # response could encode, as its escape.
    quoted = json.dumps(key[:64], ensure_ascii=False)
    return quoted.encode("utf-8", "backslashreplace").decode("utf-8")

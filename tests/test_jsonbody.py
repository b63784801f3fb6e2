"""The one strict reader of JSON request bodies (``POST /rfq`` and ``POST /mcp``)."""

import io

import pytest
from django.test import RequestFactory

from core import jsonbody
from core.errors import ApiError


def error_of(call) -> dict:
    with pytest.raises(ApiError) as caught:
        call()
    return {"status": caught.value.status, **caught.value.body()}


def invalid_body(message: str, status: int = 400) -> dict:
    return {"status": status, "error": {"code": "invalid_body", "message": message}}


def body_error(raw: bytes) -> dict:
    return error_of(lambda: jsonbody.parse_json(raw, example="{}"))


def test_json_bodies_are_parsed_strictly():
    assert jsonbody.parse_json(b'\xef\xbb\xbf {"a": "b"} ') == {"a": "b"}
    assert body_error(b"") == invalid_body("The body is empty. Send a JSON object, e.g. {}")
    assert body_error(b" \n") == invalid_body("The body is empty. Send a JSON object, e.g. {}")
    assert error_of(lambda: jsonbody.parse_json(b"")) == invalid_body(
        "The body is empty. Send a JSON object."
    )
    assert body_error(b'{"a": "\xff"}') == invalid_body("The body is not valid UTF-8 (byte 7).")
    assert body_error(b'{"a": "b"') == invalid_body(
        "The body is not valid JSON: Expecting ',' delimiter at line 1 column 10."
    )
    assert body_error(b"product=LED") == invalid_body(
        "The body is not valid JSON: Expecting value at line 1 column 1."
    )
    assert body_error(b'{"a": NaN}') == invalid_body(
        "The body is not valid JSON: NaN is not a JSON number."
    )
    assert body_error(b'{"a": "b", "a": "c"}') == invalid_body(
        'The body repeats the member "a". Send each field once.'
    )
    # Nested objects too, and names shown escaped, never raw.
    assert body_error('{"p": {"产品\\n": 1, "产品\\n": 2}}'.encode()) == invalid_body(
        'The body repeats the member "产品\\n". Send each field once.'
    )
    assert body_error(b'{"\\ud800": 1, "\\ud800": 2}') == invalid_body(
        'The body repeats the member "\\ud800". Send each field once.'
    )


def test_deep_nesting_is_a_clear_error_not_a_crash():
    deep = b"[" * 100_000 + b"]" * 100_000
    assert error_of(lambda: jsonbody.parse_json(deep)) == invalid_body(
        "The body is nested too deeply. Send a flat JSON object of strings."
    )


@pytest.mark.parametrize(
    "header",
    ["application/json", "Application/JSON; charset=UTF-8", "application/json;charset=utf8"],
)
def test_json_content_types_accepted(header):
    assert jsonbody.check_content_type(header) is None


def test_other_content_types_refused():
    assert error_of(lambda: jsonbody.check_content_type("text/plain")) == invalid_body(
        "Send the body as JSON with the header Content-Type: application/json (got text/plain).",
        415,
    )
    assert error_of(lambda: jsonbody.check_content_type(None)) == invalid_body(
        "Send the body as JSON with the header Content-Type: application/json (got none).", 415
    )
    assert error_of(
        lambda: jsonbody.check_content_type("application/json; charset=latin-1")
    ) == invalid_body("Send the JSON body in UTF-8, not latin-1.", 415)


def test_declared_length_is_checked_before_reading():
    assert jsonbody.check_length("100", 100) is None
    assert jsonbody.check_length(None, 100) is None
    assert jsonbody.check_length("junk", 100) is None
    assert error_of(lambda: jsonbody.check_length("101", 100))["status"] == 413


TOO_LARGE = invalid_body(
    "The body is larger than 10 bytes. Send only the documented fields, within their maximum "
    "lengths.",
    413,
)


def post(data: bytes, **meta):
    return RequestFactory().generic("POST", "/rfq", data, "application/json", **meta)


def test_a_body_is_read_up_to_its_limit():
    assert jsonbody.read_body(post(b'{"a": "b"}'), 10) == b'{"a": "b"}'
    assert error_of(lambda: jsonbody.read_body(post(b'{"a": "bc"}'), 10)) == TOO_LARGE


def chunked(data: bytes, *, terminated: bool):
    """A chunked request as a WSGI server hands it over: no Content-Length; a server that
    de-chunks says so with wsgi.input_terminated and gives the decoded body as its input."""
    request = post(b"", HTTP_TRANSFER_ENCODING="chunked")
    request.META.pop("CONTENT_LENGTH", None)
    request.META["wsgi.input"] = io.BytesIO(data)
    if terminated:
        request.META["wsgi.input_terminated"] = True
    return request


def test_a_chunked_body_is_read_when_the_server_decodes_it():
    assert jsonbody.read_body(chunked(b'{"a": "b"}', terminated=True), 10) == b'{"a": "b"}'
    assert error_of(lambda: jsonbody.read_body(chunked(b"[" * 11, terminated=True), 10)) == (
        TOO_LARGE
    )


def test_a_chunked_body_the_server_cannot_decode_is_411_not_an_empty_body():
    assert error_of(lambda: jsonbody.read_body(chunked(b"{}", terminated=False), 10)) == (
        invalid_body(
            "Send the body with a Content-Length header: this server cannot read a chunked body.",
            411,
        )
    )

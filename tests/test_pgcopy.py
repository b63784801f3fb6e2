"""The binary COPY encoding of planned rows (tenders/publication/pgcopy.py): plain functions."""

import json
import struct

import pytest

from tenders.publication import pgcopy


@pytest.mark.parametrize(
    "value",
    [
        ["医", "疗", "设", "备"],
        [],
        ["a"],
        ['say "hi"', "x"],
        ["back\\slash"],
        ["line\nbreak", "tab\t"],
        ["", ""],
        ['"'],
        [1, "a"],
        {"k": ["v"]},
        ["\u2028", "\x7f", "\u00ad"],
    ],
)
def test_jsonb_values_are_json_text_of_the_same_value(value):
    (encoded,) = _fields(pgcopy.encode([(value,)], (pgcopy.JSONB,)))
    assert encoded[:1] == b"\x01"  # jsonb's version byte
    assert json.loads(encoded[1:].decode()) == value


def test_text_bool_int8_and_null():
    rows = [("é文", True, 7, None), ("", False, -1, None)]
    kinds = (pgcopy.TEXT, pgcopy.BOOL, pgcopy.INT8, pgcopy.TEXT)
    data = pgcopy.encode(rows, kinds)
    assert _fields(data) == ["é文".encode(), b"\x01", struct.pack("!q", 7), None]
    framed = pgcopy.framed(data)
    assert framed.startswith(pgcopy.SIGNATURE) and framed.endswith(pgcopy.TRAILER)


def _fields(tuple_data: bytes) -> list[bytes | None]:
    """The fields of the first tuple."""
    (count,) = struct.unpack_from("!h", tuple_data)
    at, fields = 2, []
    for _ in range(count):
        (length,) = struct.unpack_from("!i", tuple_data, at)
        at += 4
        fields.append(None if length < 0 else tuple_data[at : at + length])
        at += max(length, 0)
    return fields

"""PostgreSQL's binary COPY format, written by plain functions.

Planning worker processes encode the rows they plan here, without Django or a connection, so
the main process only passes bytes on to ``COPY ... FROM STDIN (FORMAT binary)``: no rows are
pickled back from the workers, and nothing is escaped or parsed as text on either side.
"""

import struct
from collections.abc import Iterable, Sequence

import orjson

# Column kinds.
TEXT = 0  # text and varchar: UTF-8 bytes
BOOL = 1
INT8 = 2
JSONB = 3  # a Python value, written as JSON text (orjson) after jsonb's version byte

SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
TRAILER = struct.pack("!h", -1)

_length = struct.Struct("!i").pack
_NULL = _length(-1)
_TRUE = _length(1) + b"\x01"
_FALSE = _length(1) + b"\x00"
_INT8 = struct.Struct("!iq").pack


def encode(rows: Iterable[Sequence], kinds: Sequence[int]) -> bytes:
    """The rows as COPY binary tuples (without the signature and trailer: see ``framed``)."""
    out = bytearray()
    count = struct.pack("!h", len(kinds))
    for row in rows:
        out += count
        for kind, value in zip(kinds, row, strict=True):
            if value is None:
                out += _NULL
            elif kind == TEXT:
                data = value.encode()
                out += _length(len(data))
                out += data
            elif kind == BOOL:
                out += _TRUE if value else _FALSE
            elif kind == INT8:
                out += _INT8(8, value)
            else:
                data = orjson.dumps(value)
                out += _length(len(data) + 1)
                out += b"\x01"
                out += data
    return bytes(out)


def framed(tuples: bytes) -> bytes:
    """A whole COPY stream: signature, the encoded tuples, trailer."""
    return SIGNATURE + tuples + TRAILER

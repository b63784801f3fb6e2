"""Pagination cursors: opaque tokens, signed, bound to one snapshot and one set of filters. Pure.

A cursor carries what the next page needs and nothing a client could usefully change: the
issue and snapshot etag it was made in, a fingerprint of the canonical filters of the first
page, the last ``sort_key`` served (the keyset position) and the total counted on the first
page (so later pages never count again). It is packed in binary, signed with an HMAC under
``SECRET_KEY`` and a salt of its own, and written in unpadded base64url: 147 characters
whatever the filters, so that a URL with every filter, a long Chinese ``q`` and a cursor stays
far below the request-line limits of front servers (see config/gunicorn.conf.py).

Any alteration, however small, fails: the signature covers every byte and the text must be the
one canonical encoding of those bytes (base64 decoders otherwise ignore stray characters and
unused bits). Deciding what a valid but stale or mismatched cursor means is the selector's job.
"""

import base64
import hashlib
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

SALT = "tenders.cursors.v1"  # a signing salt: unchanged since cursors were first issued
VERSION = 2
MAC_BYTES = 16
# version, issue pk, total, etag length; then etag, sort key (32 bytes), filters fingerprint.
_HEAD = struct.Struct(">BQIB")
_SORT_KEY_BYTES = 32
_FILTERS_BYTES = 16
_TOKEN = re.compile(r"^[A-Za-z0-9_-]+$")
# The longest token a 255-byte etag could make; anything longer is not a cursor.
MAX_TOKEN = 448


class CursorError(ValueError):
    """The token is not a cursor this service made (malformed, altered or foreign)."""


@dataclass(frozen=True)
class Cursor:
    issue_pk: int
    snapshot_etag: str
    filters: str  # fingerprint(filters_key) of the first page
    after: str
    total: int


def fingerprint(filters_key: str) -> str:
    """What a cursor keeps of its filters: enough to tell other filters apart (the token is
    signed, so nobody can aim at a collision), in 16 bytes whatever their length."""
    return hashlib.sha256(filters_key.encode("utf-8")).hexdigest()[: 2 * _FILTERS_BYTES]


def _mac(data: bytes, secret: str | bytes) -> bytes:
    return salted_hmac(SALT, data, secret=secret, algorithm="sha256").digest()[:MAC_BYTES]


def _secrets(secret: str | bytes | None) -> list[str | bytes]:
    if secret is not None:
        return [secret]
    return [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]


def encode(cursor: Cursor, *, secret: str | bytes | None = None) -> str:
    etag = cursor.snapshot_etag.encode("ascii")
    after = bytes.fromhex(cursor.after)
    filters = bytes.fromhex(cursor.filters)
    if len(after) != _SORT_KEY_BYTES or len(filters) != _FILTERS_BYTES:
        raise ValueError("a sort key is 64 hexadecimal characters, a fingerprint 32")
    payload = _HEAD.pack(VERSION, cursor.issue_pk, cursor.total, len(etag)) + etag + after + filters
    signed = payload + _mac(payload, _secrets(secret)[0])
    return base64.urlsafe_b64encode(signed).rstrip(b"=").decode("ascii")


def decode(token: str, *, secrets: Iterable[str | bytes] | None = None) -> Cursor:
    """The cursor in ``token``; raises ``CursorError`` for anything this service did not sign."""
    if not isinstance(token, str) or len(token) > MAX_TOKEN or not _TOKEN.fullmatch(token):
        raise CursorError("not a cursor token")
    try:
        signed = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except ValueError as exc:
        raise CursorError("not a cursor token") from exc
    if base64.urlsafe_b64encode(signed).rstrip(b"=").decode("ascii") != token:
        raise CursorError("not the canonical encoding")
    if len(signed) < _HEAD.size + _SORT_KEY_BYTES + MAC_BYTES:
        raise CursorError("too short")
    payload, mac = signed[:-MAC_BYTES], signed[-MAC_BYTES:]
    keys = list(secrets) if secrets is not None else _secrets(None)
    if not any(constant_time_compare(mac, _mac(payload, key)) for key in keys):
        raise CursorError("bad signature")
    version, issue_pk, total, etag_len = _HEAD.unpack_from(payload)
    if version != VERSION:
        raise CursorError("unknown cursor version")
    rest = payload[_HEAD.size :]
    if len(rest) != etag_len + _SORT_KEY_BYTES + _FILTERS_BYTES:
        raise CursorError("truncated")
    try:
        etag = rest[:etag_len].decode("ascii")
    except UnicodeDecodeError as exc:
        raise CursorError("undecodable") from exc
    after = rest[etag_len : etag_len + _SORT_KEY_BYTES].hex()
    filters = rest[etag_len + _SORT_KEY_BYTES :].hex()
    return Cursor(issue_pk=issue_pk, snapshot_etag=etag, filters=filters, after=after, total=total)

"""Public listing ids and sort keys: pure functions, no database.

A listing id is ``AT-`` + 10 Crockford base32 characters, random, assigned once when a source
record is created and never derived from any source field. Synthetic records (demo data,
fixtures, load tests) carry ``AT-TEST-`` so they can never be mistaken for real listings.

The sort key is the HMAC-SHA256 of the listing id under a server secret: stable across issues,
uniformly spread (so keyset pages are even), and it reveals nothing about the record.
"""

import hashlib
import hmac
import random
import re
import secrets

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ID_LENGTH = 10
LISTING_ID_RE = re.compile(r"^AT-(TEST-)?[0-9A-HJKMNP-TV-Z]{10}$")
REAL_PREFIX = "AT-"
TEST_PREFIX = "AT-TEST-"


def _suffix(rng: random.Random | None) -> str:
    if rng is None:
        return "".join(secrets.choice(CROCKFORD) for _ in range(ID_LENGTH))
    return "".join(rng.choice(CROCKFORD) for _ in range(ID_LENGTH))


def new_listing_id(*, synthetic: bool = False, rng: random.Random | None = None) -> str:
    """A fresh listing id. ``rng`` makes synthetic ids reproducible (demo data with a seed)."""
    if rng is not None and not synthetic:
        raise ValueError("Real listing ids come from the system's secure random source only.")
    return (TEST_PREFIX if synthetic else REAL_PREFIX) + _suffix(rng)


def is_listing_id(value: str) -> bool:
    return isinstance(value, str) and LISTING_ID_RE.fullmatch(value) is not None


def is_synthetic(listing_id: str) -> bool:
    return listing_id.startswith(TEST_PREFIX)


def sort_key(listing_id: str, secret: str | bytes) -> str:
    """Lowercase hex HMAC-SHA256 of the listing id: 64 characters."""
    key = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(key, listing_id.encode("ascii"), hashlib.sha256).hexdigest()

"""Public references of intake records: pure functions, no database.

A reference is a fixed prefix and 10 Crockford base32 characters from the system's secure
random source (about 50 bits), so it cannot be guessed from another one and says nothing about
volume or order. Uniqueness is guarded by a database constraint; the service draws again on
the astronomically rare collision.
"""

import re
import secrets

from tenders.ids import CROCKFORD

RFQ_PREFIX = "RFQ-"
ACCESS_REQUEST_PREFIX = "ACR-"
SUFFIX_LENGTH = 10
RFQ_REFERENCE_RE = re.compile(r"^RFQ-[0-9A-HJKMNP-TV-Z]{10}$")
ACCESS_REQUEST_REFERENCE_RE = re.compile(r"^ACR-[0-9A-HJKMNP-TV-Z]{10}$")


def new_reference(prefix: str) -> str:
    return prefix + "".join(secrets.choice(CROCKFORD) for _ in range(SUFFIX_LENGTH))

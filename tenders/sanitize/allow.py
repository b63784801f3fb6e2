"""Curators' allow-lists: findings staff marked as not a leak, for one record or everywhere.

An allowance is a kind and a phrase as written in a summary ("reference_like", "R410A";
"public_body", "HP LaserJet"). A finding is allowed when an occurrence of an allowance's phrase
of the same kind covers it, in any case. The gate learns nothing by itself: allowances exist
only because a curator added one (the admin logs who and when), and some kinds can never be
allowed (an e-mail address is never public), or never everywhere (a record's own buyer,
reference, deadline or amount only means something for that record).
"""

from collections.abc import Iterable
from dataclasses import dataclass

NEVER_ALLOWED = frozenset({"html", "control_character", "email", "url"})
RECORD_ONLY = frozenset(
    {"buyer_name", "reference", "source_host", "deadline_date", "amount", "contact_name"}
)
# A word added to the public vocabulary: for every record, by a second person (the permission
# *Can add vocabulary word*), never for one record by the curator who wrote it.
EVERYWHERE_ONLY = frozenset({"out_of_vocabulary"})
PHRASE_MAX = 200


@dataclass(frozen=True)
class Allowance:
    kind: str
    phrase: str


def allowance_problem(kind: str, phrase: str, *, everywhere: bool) -> str:
    """Why an allowance cannot be added (empty when it can), in words for staff."""
    if kind in NEVER_ALLOWED:
        return "An e-mail address, web address, markup or control character is never allowed."
    if everywhere and kind in RECORD_ONLY:
        return (
            "This finding is one of the record's own private facts: allow it for this record "
            "only, never everywhere."
        )
    if not everywhere and kind in EVERYWHERE_ONLY:
        return (
            "A word outside the public vocabulary is added to the vocabulary for every record "
            "(by a person with the *Can add vocabulary word* permission), or rewritten."
        )
    if not phrase.strip():
        return "Give the phrase to allow (the text of the finding, or a longer phrase around it)."
    if len(phrase) > PHRASE_MAX:
        return f"Keep the phrase under {PHRASE_MAX} characters."
    return ""


def _lower(text: str) -> str:
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text


def could_allow(text: str, phrase: str) -> bool:
    """Whether an allowance of ``phrase`` can allow anything in ``text`` (its phrase occurs
    there, in any case): ``is_allowed`` never holds for a text where this is false."""
    return bool(phrase) and _lower(phrase) in _lower(text)


def is_allowed(text: str, start: int, end: int, kind: str, allowances: Iterable[Allowance]) -> bool:
    """Whether text[start:end], a finding of ``kind``, lies in an allowed phrase of its kind."""
    if kind in NEVER_ALLOWED:
        return False
    lowered = None
    for allowance in allowances:
        if allowance.kind != kind or not allowance.phrase:
            continue
        if lowered is None:
            lowered = _lower(text)
        phrase = _lower(allowance.phrase)
        at = lowered.find(phrase, max(0, end - len(phrase)))
        while at != -1 and at <= start:
            if at + len(phrase) >= end:
                return True
            at = lowered.find(phrase, at + 1)
    return False

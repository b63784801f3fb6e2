"""The sanitization gate: find what must never reach a public summary. Pure functions.

``scan(summaries, secrets)`` returns findings; publication withholds any record with one, and
the admin shows them to staff. Two families of checks run on each of the three summaries:

- generic (``detectors``): HTML and control characters, e-mail addresses, URLs and bare
  domains, honorific person names, exact money amounts, exact dates (English and Chinese),
  reference-number-like tokens, phone numbers (phonenumbers, with the market's region first);
- the record's own secrets (``secrets``): buyer name with its case, punctuation, ``&``/``and``,
  abbreviation, acronym and Simplified/Traditional variants; reference number; source host and
  brand; deadline date in many spellings; amount; contact names from the private notice text.

Where findings overlap, the first in priority order is kept and findings inside it are dropped:
markup and addresses first, then the record's secrets (more telling for staff than "a date"),
then the other generic kinds. Findings are for staff only and never leave the admin.

``clean_text`` is the cleaner applied to staff input before it is stored. ``gate_fingerprint()``
changes whenever the gate could decide differently (rules or directory): publication reuses
planned rows only while it holds.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..markets import MARKETS
from .detectors import generic_spans, is_reference_like
from .fingerprint import GATE_VERSION, gate_fingerprint
from .secrets import Needles, RecordSecrets, contact_names_in, secret_needles, source_host
from .text import clean_text, excerpt, fold, fold_map

LANGS = ("en", "zh", "zht")

# What each kind means, in the words staff read in the admin.
KIND_LABELS = {
    "html": "HTML markup or entity",
    "control_character": "control or invisible character",
    "email": "e-mail address",
    "url": "web address",
    "domain": "domain name",
    "person_name": "person's name",
    "money": "exact money amount",
    "date": "exact date",
    "reference_like": "reference-number-like code",
    "phone": "phone number",
    "buyer_name": "the buyer's name (or its acronym)",
    "reference": "this notice's reference number",
    "source_host": "the source site",
    "deadline_date": "the exact deadline date",
    "amount": "the exact amount",
    "contact_name": "a contact person named in the notice",
}


@dataclass(frozen=True)
class Finding:
    kind: str
    lang: str
    start: int
    end: int
    excerpt: str

    def describe(self) -> str:
        return f"{self.kind} in summary_{self.lang}: {self.excerpt!r}"

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)

    @property
    def field(self) -> str:
        return f"summary_{self.lang}"


# Characters that folding changes beyond case and punctuation (accented Latin, superscripts,
# number forms, ligatures, CJK compatibility ideographs, full-width letters and digits).
_WIDE_RE = re.compile(
    "[\u00a0-\u02af\u1e00-\u1eff\u2150-\u218f\u2460-\u24ff\ufb00-\ufb06\uf900-\ufaff"
    "\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]"
)
_ASCII_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_ALNUM = _ASCII_ALNUM | frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _bounded(haystack: str, start: int, end: int, alphabet: frozenset) -> bool:
    before = haystack[start - 1] if start > 0 else " "
    after = haystack[end] if end < len(haystack) else " "
    return before not in alphabet and after not in alphabet


def _occurrences(haystack: str, needle: str):
    start = haystack.find(needle)
    while start != -1:
        yield start, start + len(needle)
        start = haystack.find(needle, start + 1)


def _secret_spans(text: str, needles: Needles):
    """Spans of the record's secrets in ``text``. Fast path: substring tests on the folded
    text; the position map is only built once something was seen."""
    for kind, needle in needles.exact:
        if needle in text:
            for start, end in _occurrences(text, needle):
                if _bounded(text, start, end, _ALNUM):
                    yield start, end, kind
    # Folding only changes punctuation and spacing unless the text has accented or full-width
    # letters, so a summary without any needle's key in its lower-case form has no match.
    if text.isascii() or not _WIDE_RE.search(text):
        lowered = text.casefold()
        for key in needles.keys:
            if key in lowered:
                break
        else:
            return
    folded = fold(text)
    compact = folded.replace(" ", "") if needles.compact else ""
    hits = [(k, n, w) for k, n, w in needles.all_folded() if n in folded]
    compact_hits = [(k, n) for k, n in needles.compact if n in compact]
    if not hits and not compact_hits:
        return
    mapped, where = fold_map(text)
    for kind, needle, whole in hits:
        for start, end in _occurrences(mapped, needle):
            if not whole or _bounded(mapped, start, end, _ASCII_ALNUM):
                yield where[start], where[end - 1] + 1, kind
    if compact_hits:
        kept = [i for i, c in enumerate(mapped) if c != " "]
        squeezed = "".join(mapped[i] for i in kept)
        for kind, needle in compact_hits:
            for start, end in _occurrences(squeezed, needle):
                yield where[kept[start]], where[kept[end - 1]] + 1, kind


def _longest_first(spans) -> list[tuple[int, int, str]]:
    spans = list(spans)
    if len(spans) > 1:
        spans.sort(key=lambda span: span[0] - span[1])
    return spans


def _keep(spans) -> list[tuple[int, int, str]]:
    """Drop empty spans and spans inside an earlier (higher-priority) one."""
    kept: list[tuple[int, int, str]] = []
    for start, end, kind in spans:
        if end <= start:
            continue
        if any(s <= start and end <= e for s, e, _ in kept):
            continue
        kept.append((start, end, kind))
    return kept


def scan_text(
    text: str, lang: str, secrets: RecordSecrets, needles: Needles | None = None
) -> list[Finding]:
    """Findings in one summary, ordered by position."""
    if needles is None:
        needles = secret_needles(secrets)
    return _scan_one(text, lang, _region(secrets.market), needles)


def _scan_one(text: str, lang: str, region: str | None, needles: Needles) -> list[Finding]:
    if not text:
        return []
    # Within each tier the longest span goes first: "RMS.17.0000302129.1667" is the reference,
    # not the buyer's acronym at its start.
    spans = [
        *_longest_first(generic_spans(text, region, high=True)),
        *_longest_first(_secret_spans(text, needles)),
        *_longest_first(generic_spans(text, region, high=False)),
    ]
    if not spans:
        return []
    findings = [Finding(kind, lang, s, e, excerpt(text, s, e)) for s, e, kind in _keep(spans)]
    findings.sort(key=lambda f: (f.start, f.kind))
    return findings


def scan(summaries: Mapping[str, str], secrets: RecordSecrets) -> list[Finding]:
    """Findings in the three public summaries (keys ``en``, ``zh``, ``zht``)."""
    needles = secret_needles(secrets)
    region = _region(secrets.market)
    findings = []
    for lang in LANGS:
        findings += _scan_one(summaries.get(lang) or "", lang, region, needles)
    return findings


def _region(market: str) -> str | None:
    found = MARKETS.get((market or "").upper())
    return found.phone_region if found else None


__all__ = [
    "GATE_VERSION",
    "KIND_LABELS",
    "LANGS",
    "Finding",
    "Needles",
    "RecordSecrets",
    "clean_text",
    "contact_names_in",
    "excerpt",
    "fold",
    "fold_map",
    "gate_fingerprint",
    "is_reference_like",
    "scan",
    "scan_text",
    "secret_needles",
    "source_host",
]

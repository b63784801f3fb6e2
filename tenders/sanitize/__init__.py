"""The sanitization gate: find what must never reach a public summary. Pure functions.

``Gate.scan(summaries, secrets)`` returns findings; publication withholds any record with one,
and the admin shows them to staff. Three families of checks run on each of the three
summaries:

- generic (``detectors``, ``numbers``, ``people``): HTML and control characters, e-mail
  addresses (also spelled out or full-width), URLs and bare domains, people's names, money
  amounts (in figures, words or Chinese numerals), dates (with or without a year, in words),
  reference-number-like codes (also after a bare label: "tender 124/2026"), phone numbers;
- the record's own secrets (``secrets``): buyer name with its case, punctuation, ``&``/``and``,
  abbreviation, acronym, part and Simplified/Traditional variants; reference number; source
  host and brand; deadline date in many spellings; amount; bodies and contact names from the
  private notice text;
- the directory (``names``): every name of every public body, contact person and tender portal
  the feed knows, in every language, whoever the record's buyer is.

Where findings overlap, the first in priority order is kept and findings inside it are dropped:
markup and addresses first, then the record's secrets (more telling for staff than "a date"),
then the directory, then the other generic kinds. Each finding says what it found and why, for
staff only: nothing public says why a row is absent. Curators' allowances (``allow``) remove
findings they marked as not a leak, for one record or everywhere.

A ``Gate`` is plain values (directory patterns, allowances), so publication hands it to its
worker processes; each builds its matcher once. ``loading.current_gate()`` builds the gate the
database describes; ``loading.gate_fingerprint()`` changes whenever the gate could decide
differently (rules, directory, allow-lists), so the cached gate is rebuilt. Publication is finer:
a rule change plans every row again, a change of the data only the rows it can affect
(``publication.sources``).
"""

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass

from ..markets import MARKETS
from ..vocabulary.coverage import vocabulary as public_vocabulary
from .allow import Allowance, allowance_problem, is_allowed
from .detectors import high_spans, low_spans
from .fingerprint import GATE_VERSION
from .names import NameEntry, NameMatcher, Pattern, compile_patterns, stands_as_name
from .numbers import is_reference_like
from .secrets import Needles, RecordSecrets, contact_names_in, secret_needles, source_host
from .text import clean_text, excerpt, fold, fold_map
from .view import View

LANGS = ("en", "zh", "zht")

# What each kind means, in the words staff read in the admin.
KIND_LABELS = {
    "html": "HTML markup or entity",
    "control_character": "control or invisible character",
    "email": "e-mail address",
    "url": "web address",
    "domain": "domain name",
    "person_name": "person's name",
    "body_like": "a public body's name (by its shape)",
    "money": "money amount",
    "date": "exact date",
    "reference_like": "reference-number-like code",
    "phone": "phone number",
    "buyer_name": "the buyer's name (or its acronym)",
    "reference": "this notice's reference number",
    "source_host": "the source site",
    "deadline_date": "the exact deadline date",
    "amount": "the exact amount",
    "contact_name": "a contact person named in the notice",
    "public_body": "a public body's name",
    "contact_person": "a contact person's name",
    "source_name": "a tender portal or source",
    "out_of_vocabulary": "a word not in the public vocabulary",
}


@dataclass(frozen=True)
class Finding:
    kind: str
    lang: str
    start: int
    end: int
    excerpt: str
    why: str = ""

    def describe(self) -> str:
        found = f"{self.kind} in summary_{self.lang}: {self.excerpt!r}"
        return f"{found} ({self.why})" if self.why else found

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)

    @property
    def field(self) -> str:
        return f"summary_{self.lang}"


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


def _secret_spans(view: View, needles: Needles, keyed: bool) -> list:
    """Spans of the record's secrets in a summary (none without an acronym of the record's or a
    key of its needles: the usual case)."""
    if not needles.exact and not keyed:
        return []
    return list(_secret_spans_in(view, needles, keyed))


def _secret_spans_in(view: View, needles: Needles, keyed: bool):
    """Fast path: substring tests on the folded text; the position map is only built once
    something was seen."""
    text, narrowed = view.text, view.narrowed
    if needles.exact:
        for kind, needle, weak in needles.exact:
            if needle in narrowed:
                for start, end in _occurrences(narrowed, needle):
                    if _bounded(narrowed, start, end, _ALNUM) and (
                        not weak or stands_as_name(narrowed, start, end, needle)
                    ):
                        yield start, end, kind, ""
    # Every needle has one of the keys in its folded form: a summary without any has no match.
    if not keyed:
        return
    folded = view.folded
    compact = folded.replace(" ", "") if needles.compact else ""
    hits = [(k, n, w) for k, n, w in needles.all_folded() if n in folded]
    compact_hits = [(k, n) for k, n in needles.compact if n in compact]
    if not hits and not compact_hits:
        return
    mapped, where = fold_map(text)
    for kind, needle, whole in hits:
        for start, end in _occurrences(mapped, needle):
            if not whole or _bounded(mapped, start, end, _ASCII_ALNUM):
                yield where[start], where[end - 1] + 1, kind, ""
    if compact_hits:
        kept = [i for i, c in enumerate(mapped) if c != " "]
        squeezed = "".join(mapped[i] for i in kept)
        for kind, needle in compact_hits:
            for start, end in _occurrences(squeezed, needle):
                yield where[kept[start]], where[kept[end - 1]] + 1, kind, ""


def _longest_first(spans) -> list:
    spans = list(spans)
    if len(spans) > 1:
        spans.sort(key=lambda span: span[0] - span[1])
    return spans


def _keep(spans) -> list:
    """Drop empty spans and spans inside an earlier (higher-priority) one."""
    kept: list = []
    for span in spans:
        start, end = span[0], span[1]
        if end <= start:
            continue
        if any(k[0] <= start and end <= k[1] for k in kept):
            continue
        kept.append(span)
    return kept


class Gate:
    """The gate's rules with one directory and one set of allowances (plain values).

    ``patterns``: the directory's compiled names (``names.compile_patterns``); ``allowances``:
    the global allow-list; ``record_allowances``: each record's own, by its key (the pk).
    The matcher is built on first use and never pickled (workers rebuild it).
    """

    def __init__(
        self,
        patterns: Iterable[Pattern] = (),
        allowances: Iterable[Allowance] = (),
        record_allowances: Mapping[Hashable, Iterable[Allowance]] | None = None,
        version: str = "",
    ):
        self.patterns = tuple(patterns)
        self.allowances = tuple(allowances)
        self.record_allowances = {k: tuple(v) for k, v in (record_allowances or {}).items()}
        self.version = version
        self._matcher: NameMatcher | None = None

    @classmethod
    def of_names(cls, entries: Iterable[NameEntry], **kwargs) -> "Gate":
        return cls(compile_patterns(entries), **kwargs)

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_matcher": None}

    @property
    def matcher(self) -> NameMatcher:
        if self._matcher is None:
            self._matcher = NameMatcher(self.patterns)
        return self._matcher

    def scan_text(
        self,
        text: str,
        lang: str,
        secrets: RecordSecrets,
        *,
        record: Hashable = None,
        needles: Needles | None = None,
    ) -> list[Finding]:
        """Findings in one summary, ordered by position."""
        if not text:
            return []
        if needles is None:
            needles = secret_needles(secrets)
        view = View(text)
        keyed = _keyed(needles, [view])
        return self._scan(view, lang, needles, _region(secrets.market), keyed, record)

    def scan(
        self,
        summaries: Mapping[str, str],
        secrets: RecordSecrets,
        *,
        record: Hashable = None,
        coverage: bool = False,
    ) -> list[Finding]:
        """Findings in the three public summaries (keys ``en``, ``zh``, ``zht``); with
        ``coverage``, also every word that is not in the public vocabulary."""
        needles = secret_needles(secrets)
        region = _region(secrets.market)
        views = [(lang, View(text)) for lang in LANGS if (text := summaries.get(lang))]
        keyed = _keyed(needles, [view for _, view in views])
        findings = []
        for lang, view in views:
            findings += self._scan(view, lang, needles, region, keyed, record)
        if coverage:
            findings += self._uncovered(views, findings, record)
        return findings

    def _uncovered(self, views, findings: list[Finding], record: Hashable) -> list[Finding]:
        """Words outside the public vocabulary, where no other finding already covers them;
        an allowance of kind ``out_of_vocabulary`` (a word added to the vocabulary) lifts one."""
        vocabulary = public_vocabulary()
        allowed = self.allowances + self.record_allowances.get(record, ())
        found = []
        for lang, view in views:
            text = view.text
            taken = [(f.start, f.end) for f in findings if f.lang == lang]
            for word in vocabulary.unknown(text, lang):
                for start, end in _occurrences(text, word):
                    if any(s < end and start < e for s, e in taken):
                        continue
                    if allowed and is_allowed(text, start, end, "out_of_vocabulary", allowed):
                        continue
                    why = "pick concepts, rewrite it, or ask for the word to be added"
                    found.append(Finding("out_of_vocabulary", lang, start, end, word, why))
                    break
        return found

    def scan_record(self, record, summaries: Mapping[str, str] | None = None) -> list[Finding]:
        """Findings in a source record's summaries (or in ``summaries`` about to replace them),
        with its own secrets and allowances: the one check approval, publication and
        ``check_gate`` make. ``record`` is anything with SourceTender's fields."""
        if summaries is None:
            summaries = {
                "en": record.summary_en,
                "zh": record.summary_zh,
                "zht": record.summary_zht,
            }
        return self.scan(summaries, RecordSecrets.of(record), record=record.pk, coverage=True)

    def _scan(
        self,
        view: View,
        lang: str,
        needles: Needles,
        region: str | None,
        keyed: bool,
        record: Hashable,
    ) -> list[Finding]:
        text = view.text
        # The directory's pass runs first: it also finds the hints the generic checks read.
        directory = _longest_first(self.matcher.spans(view)) if self.patterns else []
        # Within each tier the longest span goes first: "RMS.17.0000302129.1667" is the
        # reference, not the buyer's acronym at its start.
        spans = _longest_first(high_spans(view))
        spans += _longest_first(_secret_spans(view, needles, keyed))
        spans += directory
        spans += _longest_first(low_spans(view, region))
        if not spans:
            return []
        allowed = self.allowances + self.record_allowances.get(record, ())
        if allowed:
            spans = [s for s in spans if not is_allowed(text, s[0], s[1], s[2], allowed)]
        findings = [
            Finding(kind, lang, s, e, excerpt(text, s, e), why) for s, e, kind, why in _keep(spans)
        ]
        findings.sort(key=lambda f: (f.start, f.kind))
        return findings


def _keyed(needles: Needles, views: list[View]) -> bool:
    """Whether any of the summaries holds a key of the record's folded needles (one test on
    the three folded texts together)."""
    if not needles.keys:
        return False
    folded = "".join(view.folded for view in views)
    return any(map(folded.__contains__, needles.keys))


NO_DIRECTORY = Gate()


def scan(
    summaries: Mapping[str, str], secrets: RecordSecrets, gate: Gate | None = None
) -> list[Finding]:
    """Findings in the three summaries, with ``gate``'s directory (none by default)."""
    return (gate or NO_DIRECTORY).scan(summaries, secrets)


def scan_text(
    text: str, lang: str, secrets: RecordSecrets, needles: Needles | None = None
) -> list[Finding]:
    """Findings in one summary, without a directory."""
    return NO_DIRECTORY.scan_text(text, lang, secrets, needles=needles)


def _region(market: str) -> str | None:
    found = MARKETS.get((market or "").upper())
    return found.phone_region if found else None


__all__ = [
    "GATE_VERSION",
    "KIND_LABELS",
    "LANGS",
    "NO_DIRECTORY",
    "Allowance",
    "Finding",
    "Gate",
    "NameEntry",
    "Needles",
    "RecordSecrets",
    "allowance_problem",
    "clean_text",
    "contact_names_in",
    "excerpt",
    "fold",
    "fold_map",
    "is_reference_like",
    "scan",
    "scan_text",
    "secret_needles",
    "source_host",
]

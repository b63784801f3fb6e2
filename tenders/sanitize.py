"""The sanitization gate: find what must never reach a public summary. Pure functions.

``scan(summaries, secrets)`` returns findings; publication withholds any record with one.
This first version looks for e-mail addresses, URLs, and the record's own secrets (buyer name,
reference number, source host, exact deadline date, exact amount) in every language. The
curation work deepens it (phone numbers, reference-like tokens, dates and amounts in general).
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from urllib.parse import urlsplit

LANGS = ("en", "zh", "zht")

EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE)
URL_RE = re.compile(r"(?:https?://|ftp://|www\.)[^\s<>\"'，。）)]+", re.IGNORECASE)

MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


@dataclass(frozen=True)
class RecordSecrets:
    """The private fields of one record that its public text must not reveal."""

    buyer_name: str = ""
    reference: str = ""
    source_url: str = ""
    deadline: datetime | date | None = None
    amount: Decimal | None = None
    currency: str = ""
    market: str = ""


@dataclass(frozen=True)
class Finding:
    kind: str
    lang: str
    start: int
    end: int
    excerpt: str

    def describe(self) -> str:
        return f"{self.kind} in summary_{self.lang}: {self.excerpt!r}"


def _excerpt(text: str, start: int, end: int, margin: int = 20) -> str:
    left = max(0, start - margin)
    right = min(len(text), end + margin)
    return ("…" if left else "") + text[left:right] + ("…" if right < len(text) else "")


def _finditer_folded(folded: str, target: str):
    start = folded.find(target)
    while start != -1:
        yield start, start + len(target)
        start = folded.find(target, start + 1)


def source_host(url: str) -> str:
    if not url:
        return ""
    host = urlsplit(url if "://" in url else f"//{url}").hostname or ""
    return host.removeprefix("www.")


def date_variants(value: datetime | date | None) -> list[str]:
    if value is None:
        return []
    day = value.date() if isinstance(value, datetime) else value
    month = MONTHS[day.month - 1]
    return [
        f"{day.day} {month} {day.year}",
        f"{month} {day.day}, {day.year}",
        f"{month} {day.day} {day.year}",
        f"{day:%Y-%m-%d}",
        f"{day:%d/%m/%Y}",
        f"{day.day}/{day.month}/{day.year}",
        f"{day.year}年{day.month}月{day.day}日",
    ]


def amount_variants(amount: Decimal | None) -> list[str]:
    if amount is None:
        return []
    whole = int(amount)
    if whole < 1000:
        return []
    variants = [f"{whole:,}", str(whole)]
    if amount != whole:
        variants += [f"{amount:,.2f}", f"{amount:.2f}"]
    return variants


def secret_needles(secrets: RecordSecrets) -> list[tuple[str, str]]:
    """(kind, case-folded literal) pairs of the record's own secrets."""
    needles = []
    if len(secrets.buyer_name.strip()) >= 3:
        needles.append(("buyer_name", secrets.buyer_name.strip()))
    if len(secrets.reference.strip()) >= 3:
        needles.append(("reference", secrets.reference.strip()))
    host = source_host(secrets.source_url)
    if host:
        needles.append(("source_host", host))
    needles += [("deadline_date", v) for v in date_variants(secrets.deadline)]
    needles += [("amount", v) for v in amount_variants(secrets.amount)]
    return [(kind, needle.casefold()) for kind, needle in needles]


def scan_text(
    text: str, lang: str, secrets: RecordSecrets, needles: list[tuple[str, str]] | None = None
) -> list[Finding]:
    if needles is None:
        needles = secret_needles(secrets)
    findings = []
    for kind, pattern in (("email", EMAIL_RE), ("url", URL_RE)):
        for match in pattern.finditer(text):
            findings.append(
                Finding(kind, lang, match.start(), match.end(), _excerpt(text, *match.span()))
            )
    folded = text.casefold()
    if len(folded) != len(text):  # a few characters grow when folded; keep spans honest
        folded = "".join(c if len(c.casefold()) != 1 else c.casefold() for c in text)
    for kind, needle in needles:
        for start, end in _finditer_folded(folded, needle):
            findings.append(Finding(kind, lang, start, end, _excerpt(text, start, end)))
    findings.sort(key=lambda f: (f.start, f.kind))
    return findings


def scan(summaries: Mapping[str, str], secrets: RecordSecrets) -> list[Finding]:
    """Findings in the three public summaries (keys ``en``, ``zh``, ``zht``)."""
    needles = secret_needles(secrets)
    findings = []
    for lang in LANGS:
        findings += scan_text(summaries.get(lang) or "", lang, secrets, needles)
    return findings

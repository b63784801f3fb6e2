"""The directory of public bodies: how names get in, and how the gate reads them.

``remember_bodies`` is the one way importers (and the seed migration) add names: in bulk, a few
queries per call whatever the number of entries, idempotent (a name already known for a body
adds nothing). A new entry joins an existing body of the same market when any of its names
is already known there, so a notice that spells the buyer in English and Chinese, and a later
one that gives only the Chinese name, end up as one body with both names.

``directory_names`` streams every known spelling for the gate, in the order names were added
(their pk); ``names_fingerprint`` digests any run of them, ``directory_fingerprint`` all of them:
it changes whenever the directory does. Publication records the highest pk and the fingerprint
of the names its gate read, so the next one tells names *added* since (imports add names every
week; they can only make the gate stricter where they occur) from names edited or removed.
"""

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.dispatch import Signal

from .models import PublicBody, PublicBodyName
from .models.directory import NAME_MAX, name_key

# Sent after ``remember_bodies`` added names (a bulk insert sends no ``post_save``); the gate's
# cache listens (``tenders.apps``).
names_added = Signal()


@dataclass(frozen=True)
class BodyName:
    name: str
    lang: str = ""
    form: str = PublicBodyName.Form.FULL


@dataclass(frozen=True)
class BodyEntry:
    """One body as a notice (or a seed list) names it."""

    market: str
    names: Sequence[BodyName]
    kind: str = PublicBody.Kind.BODY
    origin: str = PublicBody.Origin.IMPORT
    notes: str = field(default="", compare=False)


def _clean(names: Iterable[BodyName]) -> list[BodyName]:
    seen, kept = set(), []
    for item in names:
        text = " ".join((item.name or "").split())[:NAME_MAX]
        key = name_key(text)
        if len(key) < 2 or key in seen:
            continue
        seen.add(key)
        kept.append(BodyName(text, item.lang, item.form))
    return kept


@transaction.atomic
def remember_bodies(entries: Iterable[BodyEntry]) -> int:
    """Add the bodies and names not yet known; returns how many names were added."""
    entries = [(e, _clean(e.names)) for e in entries]
    entries = [(e, names) for e, names in entries if names]
    if not entries:
        return 0
    keys = {name_key(n.name) for _, names in entries for n in names}
    known: dict[tuple[str, str, str], int] = {}
    for body_id, market, kind, key in PublicBodyName.objects.filter(key__in=keys).values_list(
        "body_id", "body__market", "body__kind", "key"
    ):
        known.setdefault((market, kind, key), body_id)
    added = 0
    new_names: list[PublicBodyName] = []
    for entry, names in entries:
        body_id = next(
            (
                known[(entry.market, entry.kind, name_key(n.name))]
                for n in names
                if (entry.market, entry.kind, name_key(n.name)) in known
            ),
            None,
        )
        if body_id is None:
            body = PublicBody.objects.create(
                market=entry.market,
                kind=entry.kind,
                origin=entry.origin,
                name=names[0].name,
                notes=entry.notes,
            )
            body_id = body.pk
        for n in names:
            slot = (entry.market, entry.kind, name_key(n.name))
            if known.get(slot) == body_id:
                continue
            known.setdefault(slot, body_id)
            new_names.append(
                PublicBodyName(
                    body_id=body_id, name=n.name, key=name_key(n.name), lang=n.lang, form=n.form
                )
            )
    if new_names:
        created = PublicBodyName.objects.bulk_create(new_names, ignore_conflicts=True)
        added = len(created)
        names_added.send(sender=PublicBodyName, count=added)
    return added


@dataclass(frozen=True)
class DirectoryName:
    """One spelling as the gate reads it."""

    name: str
    market: str
    kind: str
    form: str
    lang: str
    body_id: int
    body_name: str = ""
    origin: str = PublicBody.Origin.STAFF
    pk: int = 0


def directory_names() -> Iterator[DirectoryName]:
    """Every spelling, in the order they were added (pk)."""
    rows = PublicBodyName.objects.order_by("pk").values_list(
        "name",
        "body__market",
        "body__kind",
        "form",
        "lang",
        "body_id",
        "body__name",
        "body__origin",
        "pk",
    )
    for row in rows.iterator(chunk_size=5000):
        yield DirectoryName(*row)


def names_fingerprint(names: Iterable[DirectoryName]) -> str:
    """A digest of spellings as the gate reads them: it changes when one is added, edited or
    removed, or its body changes market, kind, origin or main name."""
    digest = hashlib.sha256()
    for n in names:
        row = (n.pk, n.name, n.form, n.lang, n.market, n.kind, n.origin, n.body_id, n.body_name)
        digest.update("\x1f".join(map(str, row)).encode() + b"\x1e")
    return digest.hexdigest()[:16]


def directory_fingerprint() -> str:
    """``names_fingerprint`` of the whole directory (gate results that depended on it can be
    reused only while it holds)."""
    return names_fingerprint(directory_names())

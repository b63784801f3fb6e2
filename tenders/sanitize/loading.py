"""The gate as the database describes it: the directory of public bodies and the allow-lists.

The one module of the package that reads the database; the pure modules never import it
(planning workers receive a built ``Gate``). ``current_gate()`` is cached per process: a new
directory name or allowance saved in this process is seen at once (signals drop the cache),
one saved by another process within ``CACHE_SECONDS``; ``fresh=True`` always compares the
fingerprint (``gate_fingerprint``). Publication asks for ``gate_and_data()``: the
gate with the data it was built from, read together, so what it records about its plan is
exactly what its gate read.
"""

import hashlib
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from ..directory import DirectoryName, directory_fingerprint, directory_names, names_fingerprint
from ..models import GateAllowance, PublicBody
from . import Gate
from .allow import Allowance
from .fingerprint import fingerprint_of
from .names import NameEntry, compile_patterns

CACHE_SECONDS = 5.0
_TRUSTED = {PublicBody.Origin.SEED, PublicBody.Origin.STAFF}
_cache: dict = {"gate": None, "checked": 0.0}

# One allowance as publication records it: (pk, record pk or None for everywhere, kind, phrase).
AllowanceRow = tuple[int, int | None, str, str]


def _allowance_rows() -> tuple[AllowanceRow, ...]:
    rows = GateAllowance.objects.order_by("pk").values_list("pk", "tender_id", "kind", "phrase")
    return tuple(rows.iterator(chunk_size=5000))


def allowances_digest(rows: Iterable[AllowanceRow]) -> str:
    digest = hashlib.sha256()
    for row in rows:
        digest.update("\x1f".join(map(str, row)).encode() + b"\x1e")
    return digest.hexdigest()[:16]


def allowances_fingerprint() -> str:
    return allowances_digest(_allowance_rows())


def gate_fingerprint() -> str:
    """The fingerprint of the gate the database describes: its rules, directory and allow-lists
    (``fingerprint.fingerprint_of``)."""
    return fingerprint_of(directory_fingerprint(), allowances_fingerprint())


def name_entry(name: DirectoryName) -> NameEntry:
    """A directory spelling as the gate's patterns are compiled from it."""
    return NameEntry(
        name.name, name.market, name.kind, name.form, name.body_name, name.origin in _TRUSTED
    )


@dataclass(frozen=True)
class GateData:
    """What a gate is built from: every directory spelling (in pk order) and every allowance."""

    names: tuple[DirectoryName, ...]
    allowances: tuple[AllowanceRow, ...]

    @classmethod
    def read(cls) -> "GateData":
        return cls(tuple(directory_names()), _allowance_rows())

    @cached_property
    def version(self) -> str:
        """``gate_fingerprint()`` as of this data."""
        return fingerprint_of(names_fingerprint(self.names), allowances_digest(self.allowances))

    def gate(self) -> Gate:
        everywhere, by_record = [], {}
        for _pk, tender_id, kind, phrase in self.allowances:
            allowance = Allowance(kind, phrase)
            if tender_id is None:
                everywhere.append(allowance)
            else:
                by_record.setdefault(tender_id, []).append(allowance)
        patterns = compile_patterns(map(name_entry, self.names))
        return Gate(patterns, everywhere, by_record, version=self.version)


def _cached(data: GateData) -> Gate:
    gate = _cache["gate"]
    if gate is None or gate.version != data.version:
        gate = data.gate()
    _cache.update(gate=gate, checked=time.monotonic())
    return gate


def current_gate(*, fresh: bool = False) -> Gate:
    """The gate with today's directory and allow-lists (built again only when they changed)."""
    gate, now = _cache["gate"], time.monotonic()
    if gate is not None and not fresh and now - _cache["checked"] < CACHE_SECONDS:
        return gate
    if gate is not None and gate.version == gate_fingerprint():
        _cache["checked"] = now
        return gate
    return _cached(GateData.read())


def gate_and_data() -> tuple[Gate, GateData]:
    """Today's gate and the data it was built from, read together."""
    data = GateData.read()
    return _cached(data), data


def forget_gate(**_kwargs) -> None:
    """Drop the cached gate (connected to saves and deletes of the directory and allowances)."""
    _cache["checked"] = 0.0

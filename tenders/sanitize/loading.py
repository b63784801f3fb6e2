"""The gate as the database describes it: the directory of public bodies and the allow-lists.

The one module of the package that reads the database; the pure modules never import it
(planning workers receive a built ``Gate``). ``current_gate()`` is cached per process: a new
directory name or allowance saved in this process is seen at once (signals drop the cache),
one saved by another process within ``CACHE_SECONDS``. Publication asks for ``fresh=True``,
which always compares the fingerprint (``fingerprint.gate_fingerprint``).
"""

import hashlib
import time

from ..directory import directory_names
from ..models import GateAllowance, PublicBody
from . import Gate
from .allow import Allowance
from .fingerprint import gate_fingerprint
from .names import NameEntry, compile_patterns

CACHE_SECONDS = 5.0
_TRUSTED = {PublicBody.Origin.SEED, PublicBody.Origin.STAFF}
_cache: dict = {"gate": None, "checked": 0.0}


def allowances_fingerprint() -> str:
    digest = hashlib.sha256()
    rows = GateAllowance.objects.order_by("pk").values_list("pk", "tender_id", "kind", "phrase")
    for row in rows.iterator(chunk_size=5000):
        digest.update("\x1f".join(map(str, row)).encode() + b"\x1e")
    return digest.hexdigest()[:16]


def build_gate(version: str = "") -> Gate:
    entries = (
        NameEntry(n.name, n.market, n.kind, n.form, n.body_name, n.origin in _TRUSTED)
        for n in directory_names()
    )
    everywhere, by_record = [], {}
    for tender_id, kind, phrase in GateAllowance.objects.values_list("tender_id", "kind", "phrase"):
        allowance = Allowance(kind, phrase)
        if tender_id is None:
            everywhere.append(allowance)
        else:
            by_record.setdefault(tender_id, []).append(allowance)
    return Gate(compile_patterns(entries), everywhere, by_record, version=version)


def current_gate(*, fresh: bool = False) -> Gate:
    """The gate with today's directory and allow-lists (built again only when they changed)."""
    gate, now = _cache["gate"], time.monotonic()
    if gate is not None and not fresh and now - _cache["checked"] < CACHE_SECONDS:
        return gate
    version = gate_fingerprint()
    if gate is None or gate.version != version:
        gate = build_gate(version)
    _cache.update(gate=gate, checked=now)
    return gate


def forget_gate(**_kwargs) -> None:
    """Drop the cached gate (connected to saves and deletes of the directory and allowances)."""
    _cache["checked"] = 0.0

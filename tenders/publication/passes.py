"""Passes of the sanitization gate kept with each approved record.

Approval (``curation.tenders_approve``) runs the whole gate on every record and refuses any
with a finding; publication used to run the same gate on the same records again each week,
most of its planning time. So a record that passes keeps its pass:

- ``SourceTender.gate_passed``: its ``plan_digest`` at that moment (the stored digest of every
  field planning, and so the gate, reads: summaries, buyer, reference, dates, amount...);
- ``SourceTender.gate_check``: a ``GateCheck``, the gate it passed: its code (``gate_code``:
  ``GATE_VERSION`` and the source of the ``sanitize`` package) and its data (the directory and
  allow-lists, as an issue records them: ``sources.plan_gate``).

Publication plans such a record in full but without asking the gate while all of these hold:
its digest is the same; the check's code is today's; and no change of the gate's data since
the check can affect it (``pass_changes``: the same ``GateChange`` test a reused row passes:
a new name matching its summaries, a removed allowance of its own or one whose phrase they
hold, or any edited or removed directory name send it through the gate again). Findings are
never stored, so a pass can only spare the gate a record; it never withholds one.

``check_approved`` (``manage.py check_gate``) checks approved records that hold no pass, as
approval does, and records passes: for records approved without curation (the demo, data
loads) and after a change of the gate's rules, off the Monday path. The admin's check of
selected records (``curation.tender_check``) records them too.
"""

import hashlib
import json
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import cache

from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from .. import chinese, markets, sanitize, vocabulary
from ..models import GateCheck, SourceTender
from ..sanitize import fingerprint
from ..sanitize.loading import GateData, gate_and_data
from . import sources
from .change import GateChange
from .planning import batched

CHECK_BATCH = 2000


@cache
def _gate_source() -> str:
    return sources.source_digest([sanitize, markets, vocabulary, chinese])


def gate_code() -> str:
    """The gate's rules: a pass made under other rules is not trusted."""
    rules = f"gate-{fingerprint.GATE_VERSION}:{_gate_source()}"
    return hashlib.sha256(rules.encode()).hexdigest()


def check_of(data: GateData) -> GateCheck:
    """The check (made once, then shared) of today's rules with the gate's ``data``."""
    code, recorded = gate_code(), sources.plan_gate(data)
    key = hashlib.sha256(json.dumps([code, recorded], sort_keys=True).encode()).hexdigest()
    check, _ = GateCheck.objects.get_or_create(key=key, defaults={"code": code, "data": recorded})
    return check


def record_passes(pks: Iterable[int], data: GateData) -> int:
    """Record that the records ``pks``, as they are now, passed the gate built from ``data``
    (one UPDATE). Call it in the transaction that checked them, with the records locked."""
    pks = list(pks)
    if not pks:
        return 0
    check = check_of(data)
    return SourceTender.objects.filter(pk__in=pks).update(
        gate_passed=F("plan_digest"), gate_check=check
    )


def pass_changes(eligible: QuerySet, data: GateData) -> dict[int, GateChange]:
    """How the gate's data changed since each check with today's rules that some of the
    ``eligible`` records hold a current pass of, by the check's pk."""
    held = eligible.filter(gate_passed=F("plan_digest")).values("gate_check_id")
    checks = GateCheck.objects.filter(code=gate_code(), pk__in=held)
    return {check.pk: sources.gate_change(check.data, data) for check in checks}


def unchecked(now: datetime) -> QuerySet:
    """Approved records publication would see that hold no pass under today's rules (records
    whose pass a change of the gate's data affects are checked by publication itself)."""
    current = GateCheck.objects.filter(code=gate_code()).values("pk")
    return _approved(now).exclude(gate_passed=F("plan_digest"), gate_check__in=current)


def _approved(now: datetime) -> QuerySet:
    return sources.eligible_tenders(now).filter(status=SourceTender.Status.APPROVED)


def check_approved(
    *,
    everything: bool = False,
    progress: Callable[[int, int], None] | None = None,
    now: datetime | None = None,
) -> tuple[int, list[str]]:
    """Run the gate on the approved records that hold no pass (``everything``: on all of them)
    and record passes for those it finds nothing in. Returns the number checked and the
    listing ids of those with findings (publication withholds them; the admin's check says
    why). Locks one batch of records at a time, while it checks them. ``now``: the clock
    that says which records publication would see (records long closed are left alone)."""
    now = now or timezone.now()
    records = _approved(now) if everything else unchecked(now)
    # The records to check, read once: one query, not a scan for each batch.
    pks = list(records.order_by("pk").values_list("pk", flat=True))
    gate, data = gate_and_data()
    done, checked, found = 0, 0, []
    for chunk in batched(pks, CHECK_BATCH):
        with transaction.atomic():
            batch = SourceTender.objects.filter(pk__in=chunk, status=SourceTender.Status.APPROVED)
            clean = []
            for record in batch.select_for_update().order_by("pk"):
                checked += 1
                if gate.scan_record(record):
                    found.append(record.listing_id)
                else:
                    clean.append(record.pk)
            record_passes(clean, data)
        done += len(chunk)
        if progress:
            progress(done, len(pks))
    return checked, found

"""The gate's findings of each record, counted and kept for the admin's "has findings" filter.

A count is kept with the record's ``plan_digest`` and a key of the gate's rules and data
(``findings_key``) when it was made, and trusted only while both hold: an edit of the text or a
change of the directory or allow-lists makes it stale, and the next use scans the record again.
Imports keep the counts of the records they touch (in the worker, ``tasks._scan_imported``), so
the filter reads them. A cache for the admin only: approval and publication always run the gate
themselves.
"""

import hashlib
from collections.abc import Callable

from django.db.models import F, QuerySet

from .curation import tender_findings
from .models import SourceTender
from .publication.passes import gate_code
from .sanitize import Gate
from .sanitize.loading import current_gate

FINDINGS_BATCH = 1000


def findings_key(gate: Gate) -> str:
    """The gate's rules and data as one key: a count of findings made under another is stale."""
    return hashlib.sha256(f"{gate_code()}:{gate.version}".encode()).hexdigest()


def findings_fresh(queryset: QuerySet, key: str) -> QuerySet:
    """The records of ``queryset`` whose kept count of findings still holds."""
    return queryset.filter(
        findings__isnull=False, findings_digest=F("plan_digest"), findings_gate=key
    )


def findings_refresh(
    queryset: QuerySet,
    *,
    gate: Gate | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Scan the records of ``queryset`` whose kept count of findings is stale (their text or
    the gate changed since), keep the new counts; return how many were scanned. A cache for
    the admin's filter: publication and approval always run the gate themselves."""
    gate = gate or current_gate()
    key = findings_key(gate)
    stale = queryset.exclude(pk__in=findings_fresh(queryset, key).values("pk"))
    pks = list(stale.order_by().values_list("pk", flat=True))
    for start in range(0, len(pks), FINDINGS_BATCH):
        records = list(
            SourceTender.objects.select_related("category").filter(
                pk__in=pks[start : start + FINDINGS_BATCH]
            )
        )
        for record in records:
            record.findings = len(tender_findings(record, gate=gate))
            record.findings_digest, record.findings_gate = record.plan_digest, key
        SourceTender.objects.bulk_update(records, ["findings", "findings_digest", "findings_gate"])
        if progress:
            progress(min(start + FINDINGS_BATCH, len(pks)), len(pks))
    return len(pks)


def with_findings(queryset: QuerySet, has: bool, *, gate: Gate | None = None) -> QuerySet:
    """The records of ``queryset`` the gate finds something in (``has``), or nothing in."""
    gate = gate or current_gate()
    findings_refresh(queryset, gate=gate)
    fresh = findings_fresh(queryset, findings_key(gate))
    return fresh.filter(findings__gt=0) if has else fresh.filter(findings=0)

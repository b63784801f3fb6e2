"""What a publication reads: the eligible source records, and which of them to plan again.

Every eligible record is read with its ``digest``: an MD5, computed by the database, over
the planning context (``context_key``) and every field planning reads (``CANDIDATE_FIELDS``).
Each published row keeps the digest it was planned from (``PlanDigest``). The next publication
reuses a row (copies it from that issue, recomputing only its weekly parts) when its record's
digest is the same, so a row is planned again when any of these changed:

- the record's fields that planning reads (summaries, the private facts the gate looks for,
  market, category, deadline, amount, status...);
- the gate: ``sanitize.gate_fingerprint()`` (its rules, the directory of public bodies, the
  allow-lists);
- the code that computes the reused parts (the gate, search columns, sort key: the source of
  the modules in ``PLANNING_CODE``), so an edit there can never leave stale rows behind;
- the category names and the sort-key secret.

Rates, buckets and ``new_this_issue`` are recomputed for every row every week, reused or not.
"""

import hashlib
import hmac
import json
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from django.conf import settings
from django.db.models import (
    CharField,
    Exists,
    F,
    FilteredRelation,
    Func,
    OuterRef,
    Q,
    QuerySet,
    TextField,
    Value,
)
from django.db.models.functions import MD5, Cast, Coalesce, Length

from .. import ids, sanitize, search
from ..models import Issue, PlanDigest, SnapshotRow, SourceTender
from . import planning
from .planning import CANDIDATE_FIELDS, ISSUE_FIELDS, PLAN_FIELDS, WEEKLY_FIELDS, CategoryNames

# Modules whose code decides the parts of a row that are reused (the gate is a package).
PLANNING_CODE = (planning, search, ids)


@cache
def code_fingerprint() -> str:
    digest = hashlib.sha256()
    files = [Path(m.__file__) for m in PLANNING_CODE] + sorted(
        Path(sanitize.__file__).parent.rglob("*.py")
    )
    for path in files:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def context_key(categories: dict[int, CategoryNames], gate_version: str) -> str:
    """Everything a planned row depends on besides its record (see the module docstring);
    ``gate_version`` is the gate's fingerprint (``sanitize.gate_fingerprint()``)."""
    parts = [
        gate_version,
        code_fingerprint(),
        json.dumps(sorted(categories.items()), ensure_ascii=False),
        # Keyed by the secret, so a changed secret changes it without revealing anything.
        hmac.new(settings.TENDERS_SORT_KEY_SECRET.encode(), b"plan", "sha256").hexdigest(),
    ]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


class _Joined(Func):
    """Texts joined with ``||``: one flat expression however many parts there are."""

    arg_joiner = " || "
    template = "(%(expressions)s)"
    output_field = TextField()


def _digest(key: str) -> MD5:
    """The record digest, computed by the database. Each field is length-prefixed, so no two
    different records spell the same text; the key comes first and holds a secret, so nobody
    can shape a record to collide with another (MD5 is every database's built-in digest)."""
    parts = [Value(key)]
    for name in CANDIDATE_FIELDS[1:]:
        text = Coalesce(Cast(name, TextField()), Value("-"))
        parts += [Cast(Length(text), TextField()), Value(":"), text, Value(";")]
    return MD5(_Joined(*parts))


# How the database reads the candidates (where it takes hints): along the primary key, each
# record joined to its last digest by the digests' index, streaming. Whatever the statistics
# say (a source table just imported has none), never a hash of a million wide rows and a sort
# of them on disk; no JIT compilation of the digest expression either (seconds, for nothing).
READ_HINTS = {"enable_hashjoin": "off", "enable_sort": "off", "jit": "off"}


def eligible_tenders(generated: datetime) -> QuerySet:
    """Approved and staff-withheld records whose deadline is not long past, in a stable order.
    (A record closed at source, or a draft, leaves the feed.)"""
    cutoff = generated - timedelta(days=settings.TENDERS_PASSED_GRACE_DAYS)
    return SourceTender.objects.filter(
        status__in=[SourceTender.Status.APPROVED, SourceTender.Status.WITHHELD],
        deadline__gte=cutoff,
    ).order_by("pk")


def candidates(
    generated: datetime, previous: Issue | None, last: Issue | None, key: str
) -> QuerySet:
    """The eligible records as ``Candidate`` values (``CANDIDATE_FIELDS`` by kind, then
    ``in_previous``, ``digest`` and the digest the record's row had in ``last``, if any)."""
    qs = eligible_tenders(generated).annotate(digest=_digest(key))
    if last is None:
        qs = qs.annotate(last_digest=Value(None, output_field=CharField()))
    else:
        qs = qs.annotate(
            last_plan=FilteredRelation("plans", condition=Q(plans__issue=last)),
            last_digest=F("last_plan__digest"),
        )
    if previous is None or previous.rows_pruned:
        qs = qs.annotate(in_previous=Value(False))
    elif previous == last and PlanDigest.objects.filter(issue=last).exists():
        # Every published row of an issue has its digest (issues from before digests have
        # none): the join above already tells, without a lookup in the snapshot per record.
        qs = qs.annotate(in_previous=Q(last_digest__isnull=False))
    else:
        earlier = SnapshotRow.objects.filter(issue=previous, asaptic_id=OuterRef("listing_id"))
        qs = qs.annotate(in_previous=Exists(earlier))
    # Plain tuples, not model instances: planning a million records skips a million __init__s.
    return qs.values_list(*WEEKLY_FIELDS, *ISSUE_FIELDS, *PLAN_FIELDS)

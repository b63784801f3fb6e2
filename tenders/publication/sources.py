"""What a publication reads: the eligible source records, and which of them to plan again.

Every eligible record is read with its ``digest``: an MD5, computed by the database, of the
strict planning context (``context_key``) and the digest of every field planning reads
(``CANDIDATE_FIELDS``) that the database keeps with the record (``SourceTender.plan_digest``,
a generated column: current after any write, however made). Each published row keeps the
digest it was planned from (``PlanDigest``), and each issue what its gate's data was
(``Issue.plan_gate``: the highest directory name and a fingerprint of the names up to it, and
the allowances). The next publication reuses a row (copies it from that issue, recomputing
only its weekly parts) when its record's digest is the same and no change of the gate's data
can affect it.

A row is planned again when any of these changed:

- the record's fields that planning reads (summaries, the private facts the gate looks for,
  market, category, deadline, amount, status...);
- the strict context, which plans every row again: the gate's rules (``GATE_VERSION``), the
  code that computes the reused parts (the gate, search columns, sort key: the source of the
  modules in ``PLANNING_CODE``, so an edit there can never leave stale rows behind), the
  category names and the sort-key secret;
- the gate's data, as far as it can make the gate stricter for the record (``gate_change``,
  ``change.GateChange``): a directory name added since (imports add names every week) only
  for the records whose public texts it matches; an allowance removed (or edited) only for
  its record, or, for one of the global list, the records whose texts hold its phrase;
  allowances added never (they only let more through; withheld records are planned every
  week anyway); a directory name edited or removed, or a body's market, kind, origin or main
  name changed (rare staff actions), every record.

Rates, buckets and ``new_this_issue`` are recomputed for every row every week, reused or not.
"""

import hashlib
import hmac
import json
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from types import ModuleType

from django.conf import settings
from django.db.models import (
    Case,
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
    When,
)
from django.db.models.functions import MD5

from tenders.read import search

from .. import chinese, ids, sanitize, vocabulary
from ..directory import names_fingerprint
from ..models import Issue, PlanDigest, SnapshotRow, SourceTender
from ..models.digest import PLANNING_INPUTS
from ..sanitize import fingerprint
from ..sanitize.loading import GateData, name_entry
from ..sanitize.names import compile_patterns
from . import planning
from .change import GateChange
from .planning import (
    CANDIDATE_FIELDS,
    ISSUE_FIELDS,
    PASS_FIELD,
    PLAN_FIELDS,
    WEEKLY_FIELDS,
    CategoryNames,
)

# The record's digest covers exactly the fields planning reads.
assert tuple(CANDIDATE_FIELDS[1:]) == PLANNING_INPUTS, "SourceTender.plan_digest is stale"

# Modules whose code decides the parts of a row that are reused (the gate is a package).
PLANNING_CODE = (planning, search, ids)


def source_digest(modules: Iterable[ModuleType]) -> str:
    """SHA-256 of the source of ``modules`` (a package: every module and data file in it), in
    order."""
    digest = hashlib.sha256()
    for module in modules:
        path = Path(module.__file__)
        if path.name == "__init__.py":
            files = sorted([*path.parent.rglob("*.py"), *path.parent.rglob("*.tsv")])
        else:
            files = [path]
        for file in files:
            digest.update(file.read_bytes())
    return digest.hexdigest()


@cache
def code_fingerprint() -> str:
    return source_digest([*PLANNING_CODE, sanitize, vocabulary, chinese])


def context_key(categories: dict[int, CategoryNames]) -> str:
    """The strict context every planned row depends on besides its record (see the module
    docstring): a change plans every row again."""
    parts = [
        f"gate-{fingerprint.GATE_VERSION}",
        code_fingerprint(),
        json.dumps(sorted(categories.items()), ensure_ascii=False),
        # Keyed by the secret, so a changed secret changes it without revealing anything.
        hmac.new(settings.TENDERS_SORT_KEY_SECRET.encode(), b"plan", "sha256").hexdigest(),
    ]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def plan_gate(data: GateData) -> dict:
    """What a plan made with a gate built from ``data`` records on its issue (``plan_gate``)."""
    return {
        "directory_mark": data.names[-1].pk if data.names else 0,
        "directory": names_fingerprint(data.names),
        "allowances": [list(row) for row in data.allowances],
    }


def gate_change(recorded: dict, data: GateData) -> GateChange:
    """How the gate's data (``data``, today's) changed since a plan that recorded ``recorded``
    (``plan_gate``; empty for an issue from before it was recorded): see ``GateChange``."""
    if not recorded:
        return GateChange(everything=True)
    mark = recorded["directory_mark"]
    # Names are read in pk order. A name committed late with a pk below the mark (two imports
    # at once) changes the fingerprint of the names up to it: everything, safely.
    kept = [n for n in data.names if n.pk <= mark]
    if names_fingerprint(kept) != recorded["directory"]:
        return GateChange(everything=True)
    added = [name_entry(n) for n in data.names[len(kept) :]]
    now = set(data.allowances)
    removed = [row for row in map(tuple, recorded["allowances"]) if row not in now]
    return GateChange(
        patterns=compile_patterns(added),
        phrases=tuple(phrase for _pk, tender, _kind, phrase in removed if tender is None),
        records=frozenset(tender for _pk, tender, _kind, _phrase in removed if tender is not None),
    )


class _Joined(Func):
    """Texts joined with ``||``: one flat expression however many parts there are."""

    arg_joiner = " || "
    template = "(%(expressions)s)"
    output_field = TextField()


def _digest(key: str) -> MD5:
    """The digest a record's row is planned from: its planning inputs' digest, which the
    database keeps with the record (``SourceTender.plan_digest``, over every field planning
    reads), under the strict context ``key``. Hashing 64 hex digits per record, not its texts."""
    return MD5(_Joined(Value(key), F("plan_digest")))


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
    ``in_previous``, ``digest`` and the digest the record's row had in ``last``, if any, then
    ``PASS_FIELD``: the check the record holds a current pass of, if any)."""
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
    # The check of the record's pass of the gate, while the record is as it passed.
    qs = qs.annotate(
        passed=Case(When(gate_passed=F("plan_digest"), then=F("gate_check_id")), default=None)
    )
    # Plain tuples, not model instances: planning a million records skips a million __init__s.
    return qs.values_list(*WEEKLY_FIELDS, *ISSUE_FIELDS, *PLAN_FIELDS, PASS_FIELD)

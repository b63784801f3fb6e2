"""Publication of the feed: the weekly issue, emergency withdrawal, and where snapshots live.

Guarantees of ``publish_issue``:
- Only approved records whose deadline is not long past are published; every row passes the
  sanitization gate or is withheld (and counted, with its reasons kept for staff).
- Buckets are computed against ``generated``; ``new_this_issue`` against the previous issue.
- The switch to the new snapshot is one short transaction at the very end: readers see the old
  snapshot or the new one, and any failure before it leaves the old one current.
- Linear and memory-bounded: source records are streamed in batches, rows are bulk-loaded,
  counts are accumulated per filter combination, and the flat file is streamed to storage.
  No per-row queries.

``withdraw_row`` takes one row out of the current snapshot at once (a new snapshot of the same
issue without it).

Modules: ``planning`` (pure per-record decisions, in worker processes for large feeds),
``publish`` and ``withdraw`` (the two services), ``sources`` (what a publication reads, and
which rows it can reuse), ``passes`` (the gate's passes kept with approved records, so that
publication need not run the gate on them again), ``snapshots`` (what both services share:
lock, facets, flat file, switch, pruning), ``storage`` (the one storage interface: nothing
outside it asks which database it is on).
"""

import importlib

# Loaded on first use, not on import: planning worker processes import ``planning`` from this
# package and must not load Django.
_EXPORTS = {
    "PLAN_PHASE": "publish",
    "Progress": "publish",
    "PublicationSummary": "publish",
    "publish_issue": "publish",
    "PublicationError": "snapshots",
    "check_approved": "passes",
    "record_passes": "passes",
    "discard_abandoned_builds": "snapshots",
    "snapshot_store": "storage",
    "withdraw_row": "withdraw",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)

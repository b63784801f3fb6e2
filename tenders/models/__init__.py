"""The models of the feed, one module per area; import them from here.

- ``feed``: the two worlds of the feed (private source records, public snapshots and counts).
- ``directory``: the private directory of public bodies the sanitization gate checks against.
- ``gate``: curators' allow-lists of the sanitization gate.
- ``imports``: configured import sources, recorded import runs, each record's imported notice.
- ``jobs``: long work queued for a worker (publication, imports), with progress and outcome.
- ``publication``: what each published row was planned from (for reusing it next week), and
  the gate checks records passed (so publication need not run the gate on them again).
- ``postings``: the search postings of a snapshot (exact counts of ``q``).
- ``subscriptions``: saved searches mailed as a weekly digest, and each digest sent.
- ``cache``: the tables of the database caches, so that ``migrate`` makes them.
- ``files``: files kept in the database (flat files, pending uploads).
"""

from .cache import AnswerCacheEntry, SharedCacheEntry
from .directory import PublicBody, PublicBodyName
from .feed import (
    CATEGORY_CELL,
    MARKET_CELL,
    Category,
    CurrencyRate,
    Issue,
    IssueCount,
    SnapshotRow,
    SourceTender,
    WithheldRecord,
    new_real_listing_id,
)
from .files import StoredFile, StoredFileChunk
from .gate import GateAllowance
from .imports import ImportedNotice, ImportFormat, ImportRun, ImportSource
from .jobs import Job, JobWorker
from .postings import SearchPosting, SearchPostings
from .publication import GateCheck, PlanDigest
from .subscriptions import DigestDelivery, Subscription

__all__ = [
    "CATEGORY_CELL",
    "MARKET_CELL",
    "AnswerCacheEntry",
    "Category",
    "CurrencyRate",
    "DigestDelivery",
    "GateAllowance",
    "GateCheck",
    "ImportFormat",
    "ImportRun",
    "ImportSource",
    "ImportedNotice",
    "Issue",
    "IssueCount",
    "Job",
    "JobWorker",
    "PlanDigest",
    "PublicBody",
    "PublicBodyName",
    "SearchPosting",
    "SearchPostings",
    "SharedCacheEntry",
    "SnapshotRow",
    "SourceTender",
    "StoredFile",
    "StoredFileChunk",
    "Subscription",
    "WithheldRecord",
    "new_real_listing_id",
]

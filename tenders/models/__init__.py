"""The models of the feed, one module per area; import them from here.

- ``feed``: the two worlds of the feed (private source records, public snapshots and counts).
- ``directory``: the private directory of public bodies the sanitization gate checks against.
- ``imports``: configured import sources, recorded import runs, each record's imported notice.
- ``jobs``: long work queued for a worker (publication, imports), with progress and outcome.
"""

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
from .imports import ImportedNotice, ImportFormat, ImportRun, ImportSource
from .jobs import Job

__all__ = [
    "CATEGORY_CELL",
    "MARKET_CELL",
    "Category",
    "CurrencyRate",
    "ImportFormat",
    "ImportRun",
    "ImportSource",
    "ImportedNotice",
    "Issue",
    "IssueCount",
    "Job",
    "PublicBody",
    "PublicBodyName",
    "SnapshotRow",
    "SourceTender",
    "WithheldRecord",
    "new_real_listing_id",
]

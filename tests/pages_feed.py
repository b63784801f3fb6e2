"""A small published feed for the people's pages and Atom feeds.

45 records: 12 published a week before ``t0`` and 33 more at ``t0`` (so ``new_this_issue``
takes both values). Every third summary is about medical equipment, written in Simplified
Chinese with 医疗 and converted to Traditional (醫療), in categories whose names never say
"medical", so a search for 医疗 can only match through the summaries. Markets, closing windows
(one in five has passed), amounts and lead_ok cycle with different periods.
"""

from datetime import timedelta
from decimal import Decimal

from tenders import services
from tenders.chinese import to_traditional
from tenders.markets import MARKET_CODES
from tenders.models import Issue, SnapshotRow
from tenders.read.rows import ROW_COLUMNS, row_from_values
from tests.factories import SourceTenderFactory, category

MEDICAL = (
    "Maintenance of medical imaging equipment for public clinics.",
    "公共诊所医疗影像设备维修。",
)
OTHER = ("Cleaning services for public office buildings.", "公共办公楼清洁服务。")
CATEGORIES = ("it-hardware", "cleaning-hygiene", "construction-works")
DEADLINES = (
    timedelta(days=5),
    timedelta(days=20),
    timedelta(days=40),
    timedelta(days=9),
    -timedelta(days=3),
)
AMOUNTS = (None, Decimal("100000"), Decimal("3000000"))
PREVIOUS, ADDED = 12, 33


def _records(t0, start: int, count: int) -> None:
    for i in range(start, start + count):
        en, zh = MEDICAL if i % 3 == 0 else OTHER
        amount = AMOUNTS[i % len(AMOUNTS)]
        SourceTenderFactory(
            listing_id=f"AT-TEST-PG{i:08d}",
            market=MARKET_CODES[i % len(MARKET_CODES)],
            category=category(CATEGORIES[i % len(CATEGORIES)]),
            deadline=t0 + DEADLINES[i % len(DEADLINES)],
            amount=amount,
            currency="USD" if amount is not None else "",
            summary_en=en,
            summary_zh=zh,
            summary_zht=to_traditional(zh),
            lead_ok=i % 4 != 0,
        )


def publish_pages_feed(t0) -> Issue:
    _records(t0, 0, PREVIOUS)
    services.publish_issue(now=t0 - timedelta(days=7))
    _records(t0, PREVIOUS, ADDED)
    return services.publish_issue(now=t0).issue


def snapshot(issue: Issue) -> list[dict]:
    """Every public row of the issue in sort_key order (read here, not through the selectors)."""
    values = SnapshotRow.objects.filter(issue=issue).order_by("sort_key").values_list(*ROW_COLUMNS)
    return [row_from_values(v) for v in values]


def is_open(row: dict) -> bool:
    return row["closing_bucket"] != "deadline_passed"

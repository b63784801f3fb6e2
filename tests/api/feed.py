"""A small published feed with every filter value represented, for the REST contract tests.

``publish_feed`` publishes a previous week and the current week (so ``new_this_issue`` takes
both values) from records whose market, category, closing bucket, value band and lead_ok
cycle with different periods, so the filters cut the set in many different ways. Expected
results in the tests come from plain Python over the snapshot rows, not from the selectors.
"""

from datetime import timedelta
from decimal import Decimal

import opencc

from tenders import publication
from tenders.markets import MARKET_CODES
from tenders.models import Issue, SnapshotRow, SourceTender
from tenders.read.rows import ROW_COLUMNS, row_from_values
from tests.factories import SourceTenderFactory, category

TO_ZHT = opencc.OpenCC("s2t").convert
CATEGORIES = ["medical-supplies", "it-hardware", "pharmaceuticals", "construction-works"]
SUMMARIES = {
    "medical-supplies": (
        "Supply of patient monitors for public hospitals.",
        "供应医院病人监护仪。",
    ),
    "it-hardware": ("Network switches and wireless access points.", "网络交换器及无线接入点。"),
    "pharmaceuticals": ("Supply of influenza vaccines.", "供应流感疫苗。"),
    "construction-works": (
        "Interior refurbishment of a public library.",
        "公共图书馆室内翻新工程。",
    ),
}
DEADLINES = [timedelta(days=-2), timedelta(days=3), timedelta(days=20), timedelta(days=45)]
AMOUNTS = [None, Decimal("100000"), Decimal("1000000"), Decimal("5000000"), Decimal("20000000")]
WEEK = timedelta(days=7)


def make_records(t0, count: int, start: int = 0) -> list[SourceTender]:
    records = []
    for i in range(start, start + count):
        slug = CATEGORIES[(i // 7) % len(CATEGORIES)]
        en, zh = SUMMARIES[slug]
        amount = AMOUNTS[i % len(AMOUNTS)]
        records.append(
            SourceTenderFactory(
                listing_id=f"AT-TEST-{i:010d}",
                market=MARKET_CODES[i % len(MARKET_CODES)],
                category=category(slug),
                deadline=t0 + DEADLINES[i % len(DEADLINES)],
                amount=amount,
                currency="USD" if amount is not None else "",
                summary_en=en,
                summary_zh=zh,
                summary_zht=TO_ZHT(zh),
                lead_ok=i % 3 != 0,
            )
        )
    return records


def publish_feed(t0, *, previous: int = 40, added: int = 44) -> Issue:
    """Publish ``previous`` records a week before t0, then ``added`` more at t0."""
    make_records(t0, previous)
    publication.publish_issue(now=t0 - WEEK)
    make_records(t0, added, start=previous)
    return publication.publish_issue(now=t0).issue


def snapshot_rows(issue: Issue) -> list[dict]:
    """Every row of a snapshot with its filter columns, ordered by sort_key."""
    rows = []
    for values in (
        SnapshotRow.objects.filter(issue=issue)
        .order_by("sort_key")
        .values_list(*ROW_COLUMNS, "category_slug")
    ):
        row = row_from_values(values[:-1])
        row["_category_slug"] = values[-1]
        rows.append(row)
    return rows


def public(row: dict) -> dict:
    return {k: v for k, v in row.items() if not k.startswith("_")}

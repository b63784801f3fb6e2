"""Helpers for the tests of the consumer tooling: running the ``tenders`` command in process,
and a small feed whose every row is known."""

import io
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from tenders_client import cli

from tenders import publication
from tenders.models import Issue, SnapshotRow
from tests.factories import SourceTenderFactory, category


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


class Terminal(io.StringIO):
    """A standard error that says it is a terminal (the progress bar draws only there)."""

    def isatty(self) -> bool:
        return True


def tenders(*argv: str, stderr: io.StringIO | None = None) -> Run:
    out, err = io.StringIO(), stderr if stderr is not None else io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err)
    return Run(code, out.getvalue(), err.getvalue())


# Four records, one per closing bucket, in three markets; the row texts are spelled out in the
# tests. Summaries are short enough for a 140-column table.
SMALL = [
    dict(
        listing_id="AT-TEST-0000000001",
        market="HK",
        slug="medical-supplies",
        days=3,
        amount=Decimal("1000000"),
        lead_ok=True,
        en="Supply of patient monitors for public hospitals.",
        zh="供应医院病人监护仪。",
        zht="供應醫院病人監護儀。",
    ),
    dict(
        listing_id="AT-TEST-0000000002",
        market="SG",
        slug="it-hardware",
        days=20,
        amount=None,
        lead_ok=False,
        en="Network switches and wireless access points.",
        zh="网络交换器及无线接入点。",
        zht="網絡交換器及無線接入點。",
    ),
    dict(
        listing_id="AT-TEST-0000000003",
        market="GB",
        slug="pharmaceuticals",
        days=45,
        amount=Decimal("20000000"),
        lead_ok=True,
        en="Supply of influenza vaccines.",
        zh="供应流感疫苗。",
        zht="供應流感疫苗。",
    ),
    dict(
        listing_id="AT-TEST-0000000004",
        market="HK",
        slug="construction-works",
        days=-2,
        amount=Decimal("100000"),
        lead_ok=False,
        en="Interior refurbishment of a public library.",
        zh="公共图书馆室内翻新工程。",
        zht="公共圖書館室內翻新工程。",
    ),
]


def publish_small(now, *, days_from=None) -> Issue:
    """Publish the four SMALL records at ``now`` (deadlines counted from ``days_from``)."""
    start = days_from or now
    for spec in SMALL:
        SourceTenderFactory(
            listing_id=spec["listing_id"],
            market=spec["market"],
            category=category(spec["slug"]),
            deadline=start + timedelta(days=spec["days"]),
            amount=spec["amount"],
            currency="USD" if spec["amount"] is not None else "",
            summary_en=spec["en"],
            summary_zh=spec["zh"],
            summary_zht=spec["zht"],
            lead_ok=spec["lead_ok"],
        )
    return publication.publish_issue(now=now).issue


def ordered_ids(issue: Issue, ids=None) -> list[str]:
    """Listing ids of the issue in sort_key order (the secret, hence the order, is per run)."""
    rows = SnapshotRow.objects.filter(issue=issue)
    if ids is not None:
        rows = rows.filter(asaptic_id__in=ids)
    return list(rows.order_by("sort_key").values_list("asaptic_id", flat=True))

"""The OpenAPI examples of the feed: the selectors' own answers on a small fixture.

The fixture is an issue that is never saved (its stored facets as publication writes them)
and the column values of two snapshot rows. Rows come from the one serializer
(``rows.row_from_values``, ``rows.collapse``), meta and facets from the selectors, every error
from the code that raises it (the parameter parser, the cursor checks, the gated selector), so
no example restates a message or a shape by hand. Nothing here touches the database; cursor
tokens shown are signed with a fixed example secret, so the document is the same everywhere.
"""

from datetime import UTC, datetime

from core.openapi import raised
from tenders import ids
from tenders.models import Issue
from tenders.read import cursors, selectors
from tenders.read.rows import collapse, row_from_values

BASE_URL = "https://feed.example.com"
GENERATED = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)
EXAMPLE_SECRET = "example"
ROW_IDS = ("AT-7K2M9Q4XZC", "AT-3N8P5R1TWD")
NAMES = {
    "HK": ("Hong Kong", "香港", "香港"),
    "SG": ("Singapore", "新加坡", "新加坡"),
}
CATEGORY = (
    "medical-supplies",
    "Medical supplies and equipment",
    "医疗用品及设备",
    "醫療用品及設備",
)

ISSUE = Issue(
    pk=48,
    issue_id="2026-W48",
    generated=GENERATED,
    snapshot_etag="3f1c9a7e52b04d6e8a1f0c2b9d7e6a54",
    is_current=True,
    rows_total=1342,
    withheld=3,
    facets={
        "markets": [
            {"code": code, "name_en": en, "name_zh": zh, "name_zht": zht, "count": count}
            for (code, (en, zh, zht)), count in zip(NAMES.items(), (412, 188), strict=True)
        ],
        "categories": [
            {
                "slug": CATEGORY[0],
                "name_en": CATEGORY[1],
                "name_zh": CATEGORY[2],
                "name_zht": CATEGORY[3],
                "count": 97,
            }
        ],
        "closing_buckets": [{"value": "le_2w", "count": 310}],
        "value_bands": [{"value": "unspecified", "count": 402}],
    },
)


def _values(at_id: str, market: str, band: str | None, bucket: str, new: bool) -> tuple:
    return (
        at_id,
        market,
        *CATEGORY[1:],
        "Supply of patient monitors. Open tender. Includes a warranty and maintenance period. "
        "Contract term about 36 months.",
        "供应病人监察仪。公开招标。包括保用及维修保养期。合约期约36个月。",
        "供應病人監察儀。公開招標。包括保用及維修保養期。合約期約36個月。",
        band,
        bucket,
        True,
        new,
        ids.sort_key(at_id, EXAMPLE_SECRET),
    )


ROWS = sorted(
    (
        row_from_values(_values(ROW_IDS[0], "HK", "500k_2m", "2_4w", True)),
        row_from_values(_values(ROW_IDS[1], "SG", None, "le_2w", False)),
    ),
    key=lambda row: row["sort_key"],
)
ROW = ROWS[0]
META = selectors.snapshot_meta(ISSUE)


def _cursor(params: dict, issue: Issue, *, secret: str | None = None) -> str:
    query = selectors.plan_list(params, issue).query
    filters = cursors.fingerprint(query.filters_key())
    made = cursors.Cursor(issue.pk, issue.snapshot_etag, filters, ROW["sort_key"], 2)
    return cursors.encode(made, secret=secret)


def page(lang: str | None = None) -> dict:
    params = {"lang": lang} if lang else {}
    data = [collapse(row, lang) for row in ROWS] if lang else ROWS
    meta = {
        "total": ISSUE.rows_total,
        "returned": len(data),
        "next_cursor": _cursor(params, ISSUE, secret=EXAMPLE_SECRET),
        **META,
    }
    return {"data": data, "meta": {**meta, "lang": lang} if lang else meta}


def one(lang: str | None = None) -> dict:
    if lang:
        return {"data": collapse(ROW, lang), "meta": {**META, "lang": lang}}
    return {"data": ROW, "meta": META}


def facets() -> dict:
    return selectors.facets_body(ISSUE, GENERATED)


def health(*, published: bool = True) -> dict:
    return selectors.health_record(ISSUE if published else None, GENERATED)


def flat_file() -> dict:
    return {
        "generated": META["generated"],
        "issue_id": META["issue_id"],
        "total": len(ROWS),
        "withheld": ISSUE.withheld,
        "rows": ROWS,
    }


def bad_parameter() -> dict:
    return raised(selectors.plan_list, {"market": "XX"}, ISSUE)


def cursor_of_other_filters() -> dict:
    # Signed with the server's secret, as a real cursor is; the body does not show it.
    cursor = _cursor({"market": "HK"}, ISSUE)
    return raised(selectors.plan_list, {"market": "SG", "cursor": cursor}, ISSUE)


def snapshot_changed() -> dict:
    older = Issue(pk=47, issue_id="2026-W47", snapshot_etag="0b9e4c1d7a2f58e6c3d0a9b8e7f6d5c4")
    return raised(selectors.plan_list, {"cursor": _cursor({}, older)}, ISSUE)


def bad_lang() -> dict:
    return raised(selectors.get_tender, ROW["asaptic_id"], {"lang": "fr"}, issue=ISSUE)


def not_found() -> dict:
    return selectors.row_not_found(ROW["asaptic_id"]).body()


def gated() -> dict:
    return raised(selectors.spec_coded, ROW["asaptic_id"], base_url=BASE_URL)


def unavailable() -> dict:
    return selectors.nothing_published().body()

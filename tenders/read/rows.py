"""The public row contract ``service.tender.v1``: the one serializer of snapshot rows.

Every surface (REST, the flat file, the tool server) turns snapshot rows into public rows here
and nowhere else. It reads only ``SnapshotRow`` columns, which hold only public values.
"""

from collections.abc import Sequence

SCHEMA_NAME = "service.tender.v1"
LANGS = ("en", "zh", "zht")

# The eleven public fields, in the order they are served.
ROW_FIELDS = (
    "asaptic_id",
    "market",
    "category",
    "summary_en",
    "summary_zh",
    "summary_zht",
    "value_band",
    "closing_bucket",
    "lead_ok",
    "new_this_issue",
    "sort_key",
)

# The snapshot columns a row is built from, in the order ``row_from_values`` expects.
ROW_COLUMNS = (
    "asaptic_id",
    "market",
    "category_name_en",
    "category_name_zh",
    "category_name_zht",
    "summary_en",
    "summary_zh",
    "summary_zht",
    "value_band",
    "closing_bucket",
    "lead_ok",
    "new_this_issue",
    "sort_key",
)


def row_from_values(values: Sequence) -> dict:
    """A public row from a tuple of ``ROW_COLUMNS`` values."""
    (aid, market, cat_en, cat_zh, cat_zht, s_en, s_zh, s_zht, band, bucket, lead, new, key) = values
    return {
        "asaptic_id": aid,
        "market": market,
        "category": {"name_en": cat_en, "name_zh": cat_zh, "name_zht": cat_zht},
        "summary_en": s_en,
        "summary_zh": s_zh,
        "summary_zht": s_zht,
        "value_band": band,
        "closing_bucket": bucket,
        "lead_ok": lead,
        "new_this_issue": new,
        "sort_key": key,
    }


def collapse(row: dict, lang: str) -> dict:
    """The row in one language (the ``lang`` parameter): ``category: {name}`` and ``summary``."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}")
    return {
        "asaptic_id": row["asaptic_id"],
        "market": row["market"],
        "category": {"name": row["category"][f"name_{lang}"]},
        "summary": row[f"summary_{lang}"],
        "value_band": row["value_band"],
        "closing_bucket": row["closing_bucket"],
        "lead_ok": row["lead_ok"],
        "new_this_issue": row["new_this_issue"],
        "sort_key": row["sort_key"],
    }

"""Rows for the client's tests, in the published shapes (the server's serializer is tested
against the same schemas in the service's own suite)."""

from collections.abc import Sequence


def row_from_values(values: Sequence) -> dict:
    """A full row from the values of its fields, category names flattened in."""
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
    """The row as ``lang`` serves it: ``category: {name}`` and one ``summary``."""
    one = {k: v for k, v in row.items() if k != "category" and not k.startswith("summary_")}
    one["category"] = {"name": row["category"][f"name_{lang}"]}
    one["summary"] = row[f"summary_{lang}"]
    order = ("asaptic_id", "market", "category", "summary", "value_band", "closing_bucket")
    return {**{k: one[k] for k in order}, **one}

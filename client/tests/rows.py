"""Rows in the published shapes for the client's tests (the server's serializer is tested
against the same schemas in the service's own suite)."""


def make_row(i: int) -> dict:
    """Row ``i`` in the published shape; ids and sort keys ascend with ``i``."""
    return {
        "asaptic_id": f"AT-TEST-{i:010d}",
        "market": ("HK", "SG", "GB")[i % 3],
        "category": {
            "name_en": "Medical supplies and equipment",
            "name_zh": "医疗用品及设备",
            "name_zht": "醫療用品及設備",
        },
        "summary_en": f"Supply of patient monitors, lot {i}.",
        "summary_zh": f"供应病人监察仪，第{i}批。",
        "summary_zht": f"供應病人監察儀，第{i}批。",
        "value_band": (None, "lt_500k", "gt_10m")[i % 3],
        "closing_bucket": ("le_2w", "2_4w", "gt_4w", "deadline_passed")[i % 4],
        "lead_ok": i % 2 == 0,
        "new_this_issue": i % 3 == 0,
        "sort_key": f"{i * 7919:064x}",
    }


def collapse(row: dict, lang: str) -> dict:
    """``category: {name}`` and one ``summary`` in place of the three of each."""
    one = {"asaptic_id": row["asaptic_id"], "market": row["market"]}
    one["category"] = {"name": row["category"][f"name_{lang}"]}
    one["summary"] = row[f"summary_{lang}"]
    rest = ("value_band", "closing_bucket", "lead_ok", "new_this_issue", "sort_key")
    return {**one, **{name: row[name] for name in rest}}

"""The client's pure parts: terminal widths of trilingual text, cells and tables, query strings
and base URLs. No server."""

import io

import pytest
from tenders_client.console import cell, clean, cut, fit_widths, render, text_width
from tenders_client.http import check_base_url, query_string


@pytest.mark.parametrize(
    "text,width",
    [
        ("Supply of monitors", 18),
        ("医疗用品及设备", 14),
        ("醫療用品及設備 (HK)", 19),
        ("ＡＢＣ", 6),  # full-width Latin letters
        ("e\u0301te\u0301", 3),  # combining accents take no column
        ("a\u200bb", 2),  # a zero-width space neither
        ("", 0),
    ],
)
def test_text_width_counts_terminal_columns(text, width):
    assert text_width(text) == width


def test_cut_never_splits_a_wide_character_and_marks_the_cut():
    assert cut("供应医院病人监察仪。", 20) == "供应医院病人监察仪。"
    assert cut("供应医院病人监察仪。", 10) == "供应医..."  # 9 columns: no half character
    assert cut("供应医院病人监察仪。", 11) == "供应医院..."
    assert cut("Supply of patient monitors", 12) == "Supply of..."
    assert cut("abcdef", 3) == "..."
    assert cut("abcdef", 2) == ".."


def test_cells_pad_to_the_column_whatever_the_script():
    assert cell("藥品", 6) == "藥品  "
    assert cell("Pharmaceuticals", 6) == "Pha..."
    assert cell("12", 5, right=True) == "   12"
    assert {text_width(cell(t, 9)) for t in ("藥品", "a", "醫療用品及設備", "x" * 20)} == {9}


def test_clean_keeps_text_on_one_line_and_drops_terminal_controls():
    assert clean("one\ntwo\tthree\x1b[2Jfour\u2028five") == "one two three [2Jfour five"
    assert clean("供應醫院") == "供應醫院"


def test_a_table_of_mixed_scripts_lines_up():
    header = ("ID", "CATEGORY", "N")
    rows = [("A1", "醫療用品及設備", "3"), ("B22", "IT hardware", "12")]
    widths = fit_widths(header, rows, (None, 10, None))
    assert widths == [3, 10, 2]
    assert render(header, rows, widths, right=(False, False, True)) == [
        "ID   CATEGORY     N",
        "A1   醫療用...    3",
        "B22  IT hard...  12",
    ]


def test_query_strings_are_spelled_as_the_api_reads_them():
    assert query_string({"market": "HK,SG", "new": True, "lead_ok": False, "cursor": None}) == (
        "market=HK%2CSG&new=true&lead_ok=false"
    )
    assert query_string({"q": "醫療", "limit": 5}) == "q=%E9%86%AB%E7%99%82&limit=5"


def test_base_urls_are_checked():
    assert check_base_url("http://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    assert check_base_url("https://feed.example.com/api") == "https://feed.example.com/api"
    for wrong in ("127.0.0.1:8000", "ftp://example.com", "http://", "http://x/?a=1"):
        with pytest.raises(ValueError):
            check_base_url(wrong)


def test_the_common_start_ends_at_a_boundary_and_never_takes_a_whole_text():
    from tenders_client.console import CommonStart, after_start

    def start(*texts):
        common = CommonStart()
        for text in texts:
            common.add(text)
        return common.value()

    zh = (
        "采购内容：建筑物施工工程。新加坡公法机构采购工程。",
        "采购内容：抗肿瘤药。新加坡公共机构采购货物。",
    )
    assert start(*zh) == "采购内容："
    assert after_start(zh[1], "采购内容：") == "抗肿瘤药。新加坡公共机构采购货物。"
    assert start("Supply of monitors.", "Supply of masks.") == "Supply of "  # a word boundary
    assert start("Supplies for a", "Supplier lists") == ""  # no boundary inside "Suppl"
    assert start("Same text.", "Same text.") == "Same "  # never the whole of a text
    assert start("Only one: alone.") == ""  # one row: nothing is shared
    assert after_start("Other text", "采购内容：") == "Other text"


CHINESE_ROWS = [
    {
        "asaptic_id": f"AT-TEST-000000000{i}",
        "market": "SG",
        "category": {"name": name},
        "summary": f"采购内容：{what}。新加坡公共机构采购货物。分2个标段。期限约2年。公开招标，合格供应商均可投标。",
        "value_band": "lt_500k",
        "closing_bucket": "gt_4w",
        "lead_ok": True,
        "new_this_issue": True,
    }
    for i, (name, what) in enumerate(
        [("建筑工程", "建筑物施工工程"), ("药品", "抗肿瘤药"), ("实验室及科学仪器", "分析仪")], 1
    )
]


def table(rows: list[dict], columns: int, monkeypatch) -> tuple[list[str], str]:
    import argparse

    from tenders_client import cli

    monkeypatch.setenv("COLUMNS", str(columns))
    out, err = io.StringIO(), io.StringIO()
    ctx = cli.Context(argparse.Namespace(json=False), out, err)
    cli.print_table(ctx, lambda: iter(rows))
    return out.getvalue().splitlines(), err.getvalue()


def test_an_80_column_table_shows_what_tells_each_summary_apart(monkeypatch):
    lines, err = table(CHINESE_ROWS, 80, monkeypatch)
    assert max(text_width(line) for line in lines) <= 80
    assert not any("采购内容" in line for line in lines)  # the shared start is left out
    assert [line.split()[-1] for line in lines[1:]] == [
        "建筑物施工...",
        "抗肿瘤药。...",
        "分析仪。新...",
    ]
    assert err == 'summaries shortened: each starts with "采购内容：", left out above\n'
    # Wide enough for every summary: nothing left out, nothing said.
    lines, err = table(CHINESE_ROWS, 200, monkeypatch)
    assert lines[1].endswith(CHINESE_ROWS[0]["summary"]) and err == ""

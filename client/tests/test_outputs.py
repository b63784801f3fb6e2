"""What the client writes, ``tenders validate`` accepts: every format of ``tenders export`` and
``tenders list --json``, written by the client's own writers, round-trips with exit 0; a row
broken before it is written is reported with its row, and in a file of lines with its line.
Pure: no server."""

import io

import pytest
from rows import collapse, make_row
from tenders_client import cli, csvrows

ISSUE = {
    "issue_id": "2026-W48",
    "generated": "2026-11-23T06:00:00Z",
    "snapshot_etag": "3f1c9a7e52b04d6e8a1f0c2b9d7e6a54",
    "access": "public",
}


def pages_of(data: list[dict], lang: str | None, size: int = 3) -> list[dict]:
    """The pages a crawl reads (``meta`` as the API writes it)."""
    if lang:
        data = [collapse(row, lang) for row in data]
    pages = []
    for start in range(0, len(data), size):
        part = data[start : start + size]
        more = start + size < len(data)
        meta = {"total": len(data), "returned": len(part), "next_cursor": "c" if more else None}
        meta.update(ISSUE)
        if lang:
            meta["lang"] = lang
        pages.append({"data": part, "meta": meta})
    return pages


def written(writer: cli.Writer, pages: list[dict], target) -> str:
    """What ``writer`` leaves in ``target`` after a crawl of ``pages``."""
    spool = cli.Spool(str(target))
    writer.start(spool)
    for page in pages:
        writer.page(spool, page)
    spool.commit(io.StringIO())
    return target.read_text(encoding="utf-8")


# format: (how it is made, the kind validate names, the line of row 4 when the file has lines)
FORMATS = {
    "list --json": (lambda pages, path: cli.dumps(pages[0]) + "\n", "API page", None),
    "list --all --json": (lambda pages, path: written(cli.PagesWriter(), pages, path), None, 2),
    "export --format jsonl": (lambda pages, path: written(cli.RowsWriter(), pages, path), None, 4),
    "export --format csv": (
        lambda pages, path: written(cli.CsvWriter("lang" in pages[0]["meta"]), pages, path),
        "CSV of rows",
        5,
    ),
}


def validate(path) -> tuple[int, list[str]]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["validate", str(path)], stdout=out, stderr=err)
    assert err.getvalue() == ""
    return code, out.getvalue().splitlines()


@pytest.mark.parametrize("lang", [None, "en", "zht"])
@pytest.mark.parametrize("name", list(FORMATS))
def test_every_format_the_client_writes_validates(tmp_path, name, lang):
    make, kind, _ = FORMATS[name]
    path = tmp_path / "out"
    text = make(pages_of([make_row(i) for i in range(1, 8)], lang), path)
    path.write_text(text, encoding="utf-8")
    code, report = validate(path)
    rows = 3 if name == "list --json" else 7
    assert code == 0, report
    assert report[0].startswith("valid: ") and f"{rows} rows" in report[0]
    if kind:
        assert report[0].startswith(f"valid: {kind}")


@pytest.mark.parametrize("lang", [None, "zh"])
@pytest.mark.parametrize("name", list(FORMATS))
def test_a_broken_row_is_reported_with_its_row_and_line(tmp_path, name, lang):
    make, _, line = FORMATS[name]
    data = [make_row(i) for i in range(1, 8)]
    data[3]["market"] = "XX"
    if name == "list --json":
        data[0], data[3] = data[3], data[0]  # the broken row on the page written
        data[0]["sort_key"], data[3]["sort_key"] = data[3]["sort_key"], data[0]["sort_key"]
    path = tmp_path / "out"
    path.write_text(make(pages_of(data, lang), path), encoding="utf-8")
    code, report = validate(path)
    where = "row 1 (AT-TEST-0000000004)" if name == "list --json" else "row 4 (AT-TEST-0000000004)"
    if line is not None:
        where += f", line {line}"
    assert code == 1
    assert report[0] == f'{where}: market: "XX" is not one of HK, MO, SG, GB, EU, AU, CA (enum)'
    assert report[1].startswith("invalid: 1 problem; ")


def test_csv_lines_follow_quoted_line_breaks_and_every_cell_is_read_back(tmp_path):
    data = [make_row(i) for i in range(1, 6)]
    data[1]["summary_en"] = 'Two lines,\nand a "quote".'
    data[3]["lead_ok"] = "yes"
    data[4]["value_band"] = ""  # written as null's empty cell, so read back as null: valid
    path = tmp_path / "rows.csv"
    path.write_text(written(cli.CsvWriter(False), pages_of(data, None), path), encoding="utf-8")
    assert validate(path) == (
        1,
        [
            'row 4 (AT-TEST-0000000004), line 6: lead_ok: "yes" is not true or false (type)',
            "invalid: 1 problem; CSV of rows, 5 rows",
        ],
    )
    # Read back, a written line is the row it was written from.
    for row in data[:3]:
        cells = csvrows.cells(row, False)
        assert csvrows.row(csvrows.header(False), cells, False) == row


def test_what_is_not_a_row_export_in_csv(tmp_path):
    path = tmp_path / "rows.csv"
    good = written(cli.CsvWriter(True), pages_of([make_row(1), make_row(2)], "en"), path)
    lines = good.splitlines()
    path.write_text("\r\n".join([lines[0], lines[1] + ",extra", lines[2]]) + "\r\n")
    assert validate(path) == (
        1,
        [
            "row 1, line 2: has 10 fields, the header 9 (csv)",
            "invalid: 1 problem; CSV of rows, 2 rows",
        ],
    )
    path.write_text(lines[0].replace("summary", "title") + "\r\n" + lines[1] + "\r\n")
    code, report = validate(path)
    assert code == 1 and report[0] == (
        "line 1: is not the header of a row export (asaptic_id,market,category_name_en,... or "
        "asaptic_id,market,category_name,...) (csv)"
    )
    path.write_text(lines[0] + "\r\n" + lines[1] + ',"unclosed\r\n')
    code, report = validate(path)
    assert code == 1 and report[0].startswith("file: not valid CSV: ")

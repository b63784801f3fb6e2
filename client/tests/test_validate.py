"""The validator on files made here: every rule caught with its exact report line, valid files
passing, at any buffer size. Pure: no database, no server."""

import gzip
import io
import json
import subprocess
import sys

import jsonschema
import pytest
from rows import collapse, make_row
from tenders_client import contract, validate
from tenders_client.fastcheck import compile_schema
from tenders_client.jsonstream import JsonReader, JsonSyntaxError
from tenders_client.validate import IdSet, Report, id_number, validate_stream

ID_PATTERN = "^AT-(TEST-)?[0-9A-HJKMNP-TV-Z]{10}$"


def rows(n: int = 5) -> list[dict]:
    return [make_row(i) for i in range(1, n + 1)]


def flat_text(data: list, **header) -> str:
    """A flat file as the service writes it: one line, rows last."""
    head = {"generated": "2026-11-23T06:00:00Z", "issue_id": "2026-W48", "total": len(data)}
    head.update(withheld=0, **header)
    document = json.dumps({**head, "rows": data}, ensure_ascii=False)
    return document


def page_body(data: list, **meta) -> dict:
    values = {
        "total": len(data),
        "returned": len(data),
        "next_cursor": None,
        "issue_id": "2026-W48",
        "generated": "2026-11-23T06:00:00Z",
        "snapshot_etag": "3f1c9a7e52b04d6e8a1f0c2b9d7e6a54",
        "access": "public",
    }
    values.update(meta)
    return {"data": data, "meta": values}


def jsonl(values: list) -> str:
    return "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values)


def check(text: str | bytes, *, chunk: int = validate.CHUNK, limit: int = 100) -> tuple:
    """(exit code, report lines) of the validator on ``text``."""
    out = io.StringIO()
    report = Report(out=out, limit=limit)
    data = text.encode() if isinstance(text, str) else text
    summary = validate_stream(io.BytesIO(data), report, chunk=chunk)
    print(validate.summary_line(summary, report), file=out)
    return (0 if summary.valid else 1), out.getvalue().splitlines()


CHUNKS = [validate.CHUNK, 7]  # the default, and one that cuts every value somewhere


# --- valid files ---------------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", CHUNKS)
def test_valid_files_of_every_kind_pass(chunk):
    data = rows(6)
    assert check(flat_text(data), chunk=chunk) == (0, ["valid: flat file, 6 rows, issue 2026-W48"])
    pretty = json.dumps(json.loads(flat_text(data)), indent=2, ensure_ascii=False)
    assert check(pretty, chunk=chunk)[0] == 0
    assert check(json.dumps(page_body(data)), chunk=chunk) == (
        0,
        ["valid: API page, 6 rows, issue 2026-W48"],
    )
    one = [collapse(r, "zht") for r in data]
    assert check(json.dumps(page_body(one, lang="zht")), chunk=chunk)[0] == 0
    assert check(jsonl(data), chunk=chunk) == (0, ["valid: JSON Lines of rows, 6 rows"])
    assert check(jsonl(one), chunk=chunk) == (0, ["valid: JSON Lines of rows, 6 rows"])
    pages = [
        page_body(data[:4], total=6, returned=4, next_cursor="abc"),
        page_body(data[4:], total=6, returned=2),
    ]
    assert check(jsonl(pages), chunk=chunk) == (
        0,
        ["valid: JSON Lines of 2 pages, 6 rows, issue 2026-W48"],
    )
    assert check(flat_text([]), chunk=chunk) == (0, ["valid: flat file, 0 rows, issue 2026-W48"])


# --- each rule, on a deliberately broken file ------------------------------------------------------


def broken(change) -> str:
    data = rows(5)
    change(data)
    return flat_text(data, total=5)


CASES = {
    "wrong type": (
        lambda d: d[1].update(lead_ok="yes"),
        ['row 2 (AT-TEST-0000000002): lead_ok: "yes" is not true or false (type)'],
    ),
    "wrong type of a nullable field": (
        lambda d: d[1].update(value_band=5),
        ["row 2 (AT-TEST-0000000002): value_band: 5 is not a string or null (type)"],
    ),
    "extra field": (
        lambda d: d[2].update(buyer_name="Harbour District Works Office"),
        [
            "row 3 (AT-TEST-0000000003): buyer_name: not a field of service.tender.v1 "
            "(additionalProperties)"
        ],
    ),
    "extra field in the category": (
        lambda d: d[2]["category"].update(slug="medical-supplies"),
        [
            "row 3 (AT-TEST-0000000003): category.slug: not a field of category "
            "(additionalProperties)"
        ],
    ),
    "missing field": (
        lambda d: d[0].pop("category"),
        ["row 1 (AT-TEST-0000000001): category: missing (required)"],
    ),
    "two missing fields": (
        lambda d: [d[0].pop("summary_zh"), d[0].pop("summary_zht")],
        [
            "row 1 (AT-TEST-0000000001): summary_zh: missing (required)",
            "row 1 (AT-TEST-0000000001): summary_zht: missing (required)",
        ],
    ),
    "bad id pattern": (
        lambda d: d[3].update(asaptic_id="AT-12345"),
        [f'row 4 (AT-12345): asaptic_id: "AT-12345" does not match {ID_PATTERN} (pattern)'],
    ),
    "id with a letter Crockford leaves out": (
        lambda d: d[3].update(asaptic_id="AT-TEST-000000000U"),
        [
            'row 4 (AT-TEST-000000000U): asaptic_id: "AT-TEST-000000000U" does not match '
            f"{ID_PATTERN} (pattern)"
        ],
    ),
    "id with a line break after it": (
        lambda d: d[3].update(asaptic_id="AT-TEST-0000000004\n"),
        [
            'row 4 (AT-TEST-0000000004\\n): asaptic_id: "AT-TEST-0000000004\\n" does not match '
            f"{ID_PATTERN} (pattern)"
        ],
    ),
    "value outside the domain": (
        lambda d: d[0].update(market="XX"),
        [
            'row 1 (AT-TEST-0000000001): market: "XX" is not one of HK, MO, SG, GB, EU, AU, CA (enum)'
        ],
    ),
    "empty summary": (
        lambda d: d[4].update(summary_en=""),
        ["row 5 (AT-TEST-0000000005): summary_en: is empty (minLength)"],
    ),
    "upper-case sort key": (
        lambda d: d[4].update(sort_key=d[4]["sort_key"].upper()),
        None,  # the message quotes the key; checked below
    ),
    "duplicate id": (
        lambda d: d[4].update(asaptic_id="AT-TEST-0000000001"),
        ["row 5 (AT-TEST-0000000001): asaptic_id: also on row 1 (unique-id)"],
    ),
    "duplicate sort_key": (
        lambda d: d[2].update(sort_key=d[1]["sort_key"]),
        ["row 3 (AT-TEST-0000000003): sort_key: the same as row 2's (unique-sort-key)"],
    ),
    "misordered rows": (
        lambda d: d.insert(1, d.pop(2)),
        ["row 3 (AT-TEST-0000000002): sort_key: not after the previous row's, row 2 (ordering)"],
    ),
    "a row that is not an object": (
        lambda d: d.__setitem__(1, "AT-TEST-0000000002"),
        ["row 2: is a string, not an object (type)"],
    ),
    "a one-language row in the flat file": (
        lambda d: d.__setitem__(1, collapse(d[1], "en")),
        [
            "row 2 (AT-TEST-0000000002): a one-language row: the flat file has full rows only (shape)"
        ],
    ),
}


@pytest.mark.parametrize("chunk", CHUNKS)
@pytest.mark.parametrize("case", list(CASES))
def test_each_rule_is_caught_with_row_field_and_rule(case, chunk):
    change, lines = CASES[case]
    code, report = check(broken(change), chunk=chunk)
    assert code == 1
    if lines is None:
        assert report[0].startswith("row 5 (AT-TEST-0000000005): sort_key: ")
        assert report[0].endswith(" does not match ^[0-9a-f]{64}$ (pattern)")
        lines = report[:1]
    problems = "problem" if len(lines) == 1 else "problems"
    assert report == [
        *lines,
        f"invalid: {len(lines)} {problems}; flat file, 5 rows, issue 2026-W48",
    ]


def test_total_that_is_not_the_row_count():
    assert check(flat_text(rows(5), total=6)) == (
        1,
        [
            "file: total: says 6, the file has 5 rows (count)",
            "invalid: 1 problem; flat file, 5 rows, issue 2026-W48",
        ],
    )


def test_flat_file_header_against_its_schema():
    text = flat_text(rows(2), total="2", issue_id="2026-48", surprise=True)
    assert check(text) == (
        1,
        [
            "file: surprise: not a field of service.tender.v1 flat file (additionalProperties)",
            'file: issue_id: "2026-48" does not match ^[0-9]{4}-W[0-9]{2}$ (pattern)',
            'file: total: "2" is not an integer (type)',
            "invalid: 3 problems; flat file, 2 rows, issue 2026-48",
        ],
    )
    assert check(flat_text(rows(1)).replace('"withheld": 0, ', "")) == (
        1,
        [
            "file: withheld: missing (required)",
            "invalid: 1 problem; flat file, 1 row, issue 2026-W48",
        ],
    )


def test_two_issue_ids_in_one_flat_file():
    text = flat_text(rows(3)).replace(
        '"issue_id": "2026-W48"', '"issue_id": "2026-W48", "issue_id": "2026-W47"'
    )
    assert check(text) == (
        1,
        [
            'file: issue_id: a second issue_id "2026-W47" after "2026-W48" (one-issue)',
            "invalid: 1 problem; flat file, 3 rows, issue 2026-W47",
        ],
    )


def test_two_issue_ids_in_one_crawl_of_pages():
    data = rows(4)
    pages = [
        page_body(data[:2], total=4, returned=2, next_cursor="abc"),
        page_body(data[2:], total=4, returned=2, issue_id="2026-W47", snapshot_etag="0a0b"),
    ]
    assert check(jsonl(pages)) == (
        1,
        [
            'page 2: meta.issue_id: "2026-W47" differs from page 1\'s "2026-W48" (one-issue)',
            'page 2: meta.snapshot_etag: "0a0b" differs from page 1\'s '
            '"3f1c9a7e52b04d6e8a1f0c2b9d7e6a54" (one-issue)',
            "invalid: 2 problems; JSON Lines of 2 pages, 4 rows, issue 2026-W48",
        ],
    )


def test_a_crawl_that_stops_early_or_repeats_rows():
    data = rows(4)
    first = page_body(data[:2], total=4, returned=2, next_cursor="abc")
    second = page_body(data[2:3], total=4, returned=1, next_cursor="def")
    assert check(jsonl([first, second])) == (
        1,
        [
            "file: meta.total: the pages say 4, they hold 3 rows (the last page has a "
            "next_cursor: pages are missing) (count)",
            "invalid: 1 problem; JSON Lines of 2 pages, 3 rows, issue 2026-W48",
        ],
    )
    again = page_body(data[1:3], total=4, returned=2)
    code, report = check(jsonl([first, again]))
    assert code == 1
    assert report == [
        "row 3 (AT-TEST-0000000002), line 2: asaptic_id: also on row 2 (unique-id)",
        "row 3 (AT-TEST-0000000002), line 2: sort_key: the same as row 2's (unique-sort-key)",
        "invalid: 2 problems; JSON Lines of 2 pages, 4 rows, issue 2026-W48",
    ]


def test_page_meta_against_the_rows():
    data = rows(3)
    assert check(json.dumps(page_body(data, returned=2, total=1, lang="en"))) == (
        1,
        [
            "page: meta.returned: says 2, data has 3 rows (count)",
            "page: meta.total: 1 is less than the 2 rows returned (count)",
            'page: meta.lang: is "en" but the rows are full rows (shape)',
            "invalid: 3 problems; API page, 3 rows, issue 2026-W48",
        ],
    )
    body = page_body([collapse(r, "zh") for r in data])
    body["meta"].pop("next_cursor")
    assert check(json.dumps(body)) == (
        1,
        [
            "page: meta.next_cursor: missing (required)",
            "page: meta.lang: is missing but the rows are one-language rows (shape)",
            "invalid: 2 problems; API page, 3 rows, issue 2026-W48",
        ],
    )


def test_json_lines_rules():
    data = rows(3)
    mixed = jsonl([data[0], collapse(data[1], "en"), data[2]])
    assert check(mixed) == (
        1,
        [
            "row 2 (AT-TEST-0000000002), line 2: a one-language row among full rows (shape)",
            "invalid: 1 problem; JSON Lines of rows, 3 rows",
        ],
    )
    two_on_a_line = jsonl(data).replace("}\n{", "} {", 1)
    column = two_on_a_line.index("} {") + 3
    assert check(two_on_a_line) == (
        1,
        [
            f"file: two records on one line (line 1, column {column}) (json)",
            "invalid: 1 problem; JSON Lines of rows, 3 rows",
        ],
    )


def test_repeated_members_inside_a_row():
    text = flat_text(rows(2)).replace('"market": "SG"', '"market": "SG", "market": "HK"')
    assert check(text) == (
        1,
        [
            "row 1 (AT-TEST-0000000001): market: given twice in one object (duplicate-member)",
            "invalid: 1 problem; flat file, 2 rows, issue 2026-W48",
        ],
    )


# --- not JSON ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", CHUNKS)
def test_truncated_and_invalid_json(chunk):
    text = flat_text(rows(3))
    cut = text[: text.index('"AT-TEST-0000000003"') + 15]
    assert check(cut, chunk=chunk) == (
        1,
        [
            f"file: not valid JSON: the text ends early (truncated) inside a value (line 1, "
            f"column {len(cut) + 1}, after row 2) (json)",
            "invalid: 1 problem; flat file, 2 rows",
        ],
    )
    ended = text[:-2]  # the rows' closing bracket and the document's brace
    assert check(ended, chunk=chunk)[1][0] == (
        "file: not valid JSON: the text ends early (truncated): expected ',' or ']' after "
        f"element 3 of rows (line 1, column {len(ended) + 1}, after row 3) (json)"
    )
    missing_comma = text.replace('"lead_ok": true, ', '"lead_ok": true ', 1)
    position = missing_comma.index('"lead_ok": true ') + len('"lead_ok": true ') + 1
    assert check(missing_comma, chunk=chunk) == (
        1,
        [
            f"file: not valid JSON: Expecting ',' delimiter (line 1, column {position}, after row "
            "1) (json)",
            "invalid: 1 problem; flat file, 1 row",
        ],
    )


def test_what_is_not_json_at_all():
    assert check("") == (
        1,
        ["file: is empty (json)", "invalid: 1 problem; unreadable file, 0 rows"],
    )
    assert check(json.dumps(rows(2)))[1][0] == (
        "file: is an array: expected a flat file {…, rows}, an API page {data, meta} or JSON "
        "Lines of rows or pages (shape)"
    )
    nan = flat_text(rows(1)).replace('"total": 1', '"total": NaN')
    column = nan.index("NaN") + 1
    assert (
        check(nan)[1][0]
        == f"file: not valid JSON: NaN is not JSON (line 1, column {column}) (json)"
    )
    latin1 = flat_text(rows(1)).encode("utf-8").replace("医".encode(), b"\xe9")
    assert check(latin1)[1][0].startswith("file: not valid JSON: the text is not UTF-8 (")
    trailing = flat_text(rows(1)) + " {}"
    assert check(trailing)[1][0] == "file: more text after the end of the flat file (json)"


def test_the_report_is_capped_but_every_problem_counted():
    data = rows(5)
    for row in data:
        row["lead_ok"] = "no"
    code, report = check(flat_text(data), limit=2)
    assert code == 1
    assert report == [
        'row 1 (AT-TEST-0000000001): lead_ok: "no" is not true or false (type)',
        'row 2 (AT-TEST-0000000002): lead_ok: "no" is not true or false (type)',
        "invalid: 5 problems (first 2 shown); flat file, 5 rows, issue 2026-W48",
    ]


# --- the command ---------------------------------------------------------------------------------------


def run_main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = validate.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_main_reads_files_gzip_and_reports_as_json(tmp_path):
    good = tmp_path / "rows.json.gz"
    good.write_bytes(gzip.compress(flat_text(rows(3)).encode()))
    assert run_main(str(good)) == (0, "valid: flat file, 3 rows, issue 2026-W48\n", "")

    bad = tmp_path / "bad.json"
    bad.write_text(broken(lambda d: d[1].update(lead_ok="yes")), encoding="utf-8")
    code, out, err = run_main("--json", str(bad))
    assert (code, err) == (1, "")
    assert json.loads(out) == {
        "valid": False,
        "kind": "flat file",
        "rows": 5,
        "pages": 0,
        "issue_id": "2026-W48",
        "problem_count": 1,
        "problems": [
            {
                "where": "row 2 (AT-TEST-0000000002)",
                "field": "lead_ok",
                "message": '"yes" is not true or false',
                "rule": "type",
                "row": 2,
                "asaptic_id": "AT-TEST-0000000002",
                "line": None,
            }
        ],
    }
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(gzip.compress(flat_text(rows(3)).encode())[:-30])
    code, out, _ = run_main(str(cut))
    assert code == 1 and out.startswith("file: not valid JSON: ")


def test_one_document_against_any_published_schema(tmp_path):
    health = tmp_path / "health.json"
    record = {
        "status": "ok",
        "rows_total": 5,
        "issue_id": "2026-W48",
        "generated": "2026-11-23T06:00:00Z",
        "feed_fresh": True,
        "schema": "service.tender.v1",
    }
    health.write_text(json.dumps(record), encoding="utf-8")
    assert run_main(str(health), "--schema", "service.health.v1.json") == (
        0,
        "valid: one document of service.health.v1.json\n",
        "",
    )
    error = tmp_path / "error.json"
    error.write_text('{"error": {"code": "not_found"}, "detail": 1}', encoding="utf-8")
    assert run_main(str(error), "--schema", "service.error.v1.json") == (
        1,
        "document: detail: not a field of Error (additionalProperties)\n"
        "document: error.message: missing (required)\n"
        "invalid: 2 problems; one document of service.error.v1.json\n",
        "",
    )
    assert run_main(str(health), "--schema", "service.error.v1.json")[0] == 1
    assert run_main(str(health), "--schema", "service.nothing.json") == (
        2,
        "",
        "error: no published schema 'service.nothing.json'; known: "
        + ", ".join(contract.PUBLISHED)
        + "\n",
    )


def test_usage_errors_exit_2(tmp_path):
    assert run_main(str(tmp_path / "none.json")) == (
        2,
        "",
        f"error: cannot read {tmp_path / 'none.json'}: No such file or directory\n",
    )
    code, out, err = run_main("--max-problems", "-1", "x")
    assert (code, out, err) == (2, "", "error: --max-problems must be 0 or more\n")


def test_standard_input_and_the_module_entry_point(tmp_path):
    text = jsonl(rows(3))
    result = subprocess.run(
        [sys.executable, "-m", "tenders_client.validate", "-"],
        input=text.encode(),
        capture_output=True,
        timeout=60,
    )
    assert (result.returncode, result.stdout) == (0, b"valid: JSON Lines of rows, 3 rows\n")


def test_the_client_package_runs_without_any_server_code():
    probe = (
        "import sys, tenders_client.cli, tenders_client.validate\n"
        "server = {'django', 'rest_framework', 'tenders', 'config', 'rfq', 'mcp_server'}\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in server]\n"
        "print(loaded)\n"
    )
    env = {"PATH": "/usr/bin:/bin"}  # no DJANGO_SETTINGS_MODULE
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "[]\n", "")


# --- the parts ------------------------------------------------------------------------------------------


def test_id_numbers_are_exact_and_refuse_what_is_not_an_id():
    assert id_number("AT-0000000000") == 0
    assert id_number("AT-TEST-0000000000") == 1
    assert id_number("AT-ZZZZZZZZZZ") == (2**50 - 1) << 1
    assert id_number("AT-0000000001") != id_number("AT-TEST-0000000001")
    for wrong in ("AT-000000000U", "AT-000000000", "at-0000000000", "AT-TEST-00000000000", ""):
        assert id_number(wrong) is None


def test_the_id_table_finds_every_repeat_across_growth():
    seen = IdSet(capacity=4)
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    ids = [f"AT-{alphabet[i % 32]}{i:09d}" for i in range(5000)]
    assert all(seen.add(at_id, row) is None for row, at_id in enumerate(ids, 1))
    assert len(seen) == 5000
    assert seen.add(ids[0], 6001) == 1
    assert seen.add(ids[4999], 6002) == 5000
    assert seen.add("AT-oops", 6003) is None and seen.add("AT-oops", 6004) == 6003
    assert seen.nbytes() == 16384 * 12  # at most half full: 2**14 slots of 8 + 4 bytes


def test_the_quick_check_never_passes_what_jsonschema_refuses():
    schema = contract.row_schema()
    quick = compile_schema(schema)
    checker = jsonschema.Draft202012Validator(schema)
    good = make_row(1)
    variants = [good, collapse(good, "en")]
    for name, change in [
        ("lead_ok", 1),
        ("lead_ok", None),
        ("value_band", False),
        ("value_band", "unspecified"),
        ("market", "hk"),
        ("summary_en", ""),
        ("summary_en", ["text"]),
        ("category", {"name_en": "x", "name_zh": "y"}),
        ("category", "Medical"),
        ("sort_key", "A" * 64),
        ("asaptic_id", 7),
        ("extra", 1),
    ]:
        variants.append({**good, name: change})
    variants.append({k: v for k, v in good.items() if k != "new_this_issue"})
    for row in variants:
        assert quick(row) == checker.is_valid(row), row
    assert not quick({**good, "sort_key": good["sort_key"] + "\n"})
    assert compile_schema({"type": "object", "oneOf": [{}]}) is None
    assert compile_schema({"type": "number"}) is None


def test_the_reader_keeps_numbers_and_strings_whole_across_chunks():
    text = '{"total": 1234567, "s": "\\u4e2d\\u6587 and 中文", "rows": [1, 22, 333]}'
    seen = []
    for chunk in (1, 2, 3, 5, 64):
        reader = JsonReader(io.BytesIO(text.encode()), chunk=chunk)
        elements: list = []
        members, repeated = reader.document(
            frozenset({"rows"}), lambda name, i, v, rep, into=elements: into.append(v)
        )
        seen.append((members["total"], members["s"], members["rows"].count, elements, repeated))
    assert set(map(repr, seen)) == {repr((1234567, "中文 and 中文", 3, [1, 22, 333], []))}


def test_the_reader_bounds_a_single_value():
    reader = JsonReader(io.BytesIO(b'["' + b"x" * 5000 + b'"]'), chunk=64, max_value=1000)
    with pytest.raises(JsonSyntaxError) as caught:
        reader.value()
    assert str(caught.value) == "a single value is longer than 1,000 characters at line 1, column 1"

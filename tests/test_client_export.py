"""``tenders export`` and ``list --all`` against a live server: a full export equals the flat
file row for row, and a publication in the middle of a run makes it start again cleanly."""

import gzip
import json
import os
import urllib.request
from datetime import timedelta

import pytest
from tenders_client.http import Api

from tenders import publication
from tenders.models import Issue
from tests.api.feed import make_records, publish_feed
from tests.client_support import Run, ordered_ids, publish_small, tenders

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
def base(live_server, monkeypatch):
    monkeypatch.setenv("TENDERS_BASE_URL", live_server.url)
    return live_server.url


@pytest.fixture
def feed(base, t0):
    """84 rows (tests.api.feed), a quarter of them past their deadline."""
    return publish_feed(t0)


def flat_file(base: str) -> dict:
    """The served flat file, as a client downloads it (gzip)."""
    request = urllib.request.Request(
        base + "/tender/rows.json", headers={"Accept-Encoding": "gzip"}
    )
    with urllib.request.urlopen(request) as answer:
        assert answer.headers["Content-Encoding"] == "gzip"
        return json.loads(gzip.decompress(answer.read()))


def as_lines(rows: list[dict]) -> list[str]:
    return [json.dumps(row, ensure_ascii=False) for row in rows]


def test_a_full_export_is_the_flat_file_row_for_row(feed, base, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "all.jsonl"
    run = tenders("export", "--closing-bucket", "all", "--limit", "9", "-o", str(target))
    assert (run.code, run.out) == (0, "")
    assert run.err == f"84 rows in 10 pages, issue 2026-W48, written to {target}\n"

    flat = flat_file(base)
    assert flat["total"] == 84
    # The same text as the flat file's rows, not only the same values.
    assert target.read_text(encoding="utf-8").splitlines() == as_lines(flat["rows"])
    assert os.listdir(folder) == ["all.jsonl"]  # the spool file was moved, nothing left over
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_an_export_to_standard_output_is_the_same(feed, base):
    run = tenders("export", "--closing-bucket", "all")
    assert run.code == 0
    assert run.out.splitlines() == as_lines(flat_file(base)["rows"])
    assert run.err == "84 rows in 1 page, issue 2026-W48\n"


def test_an_export_takes_the_listing_filters(feed, base):
    run = tenders("export", "--market", "hk,gb", "--lang", "zht", "--limit", "5")
    with urllib.request.urlopen(base + "/api/v1/tenders?market=hk,gb&lang=zht&limit=200") as a:
        page = json.loads(a.read())
    total = page["meta"]["total"]
    assert page["meta"]["next_cursor"] is None and total == 18
    assert run.out.splitlines() == as_lines(page["data"])
    assert run.err == "18 rows in 4 pages, issue 2026-W48\n"


def test_a_csv_export_has_one_column_per_field_and_language(base, t0):
    issue = publish_small(t0)
    keys = dict(issue.rows.values_list("asaptic_id", "sort_key"))
    run = tenders("export", "--format", "csv", "--closing-bucket", "all")
    lines = {
        "AT-TEST-0000000001": "AT-TEST-0000000001,HK,Medical supplies and equipment,医疗用品及设备,"
        "醫療用品及設備,Supply of patient monitors for public hospitals.,供应医院病人监护仪。,"
        "供應醫院病人監護儀。,500k_2m,le_2w,true,true,",
        "AT-TEST-0000000002": "AT-TEST-0000000002,SG,IT hardware and equipment,信息技术硬件及设备,"
        "資訊科技硬件及設備,Network switches and wireless access points.,网络交换器及无线接入点。,"
        "網絡交換器及無線接入點。,,2_4w,false,true,",
        "AT-TEST-0000000003": "AT-TEST-0000000003,GB,Pharmaceuticals,药品,藥品,"
        "Supply of influenza vaccines.,供应流感疫苗。,供應流感疫苗。,gt_10m,"
        "gt_4w,true,true,",
        "AT-TEST-0000000004": "AT-TEST-0000000004,HK,Construction works,建筑工程,建築工程,"
        "Interior refurbishment of a public library.,公共图书馆室内翻新工程。,公共圖書館室內翻新工程。,"
        "lt_500k,deadline_passed,false,true,",
    }
    header = (
        "asaptic_id,market,category_name_en,category_name_zh,category_name_zht,summary_en,"
        "summary_zh,summary_zht,value_band,closing_bucket,lead_ok,new_this_issue,sort_key"
    )
    expected = [header, *(lines[i] + keys[i] for i in ordered_ids(issue))]
    assert run.out == "\r\n".join(expected) + "\r\n"  # RFC 4180 line ends

    one = tenders("export", "--format", "csv", "--lang", "zh", "--market", "SG")
    assert one.out == (
        "asaptic_id,market,category_name,summary,value_band,closing_bucket,lead_ok,"
        "new_this_issue,sort_key\r\n"
        "AT-TEST-0000000002,SG,信息技术硬件及设备,网络交换器及无线接入点。,,2_4w,false,true,"
        f"{keys['AT-TEST-0000000002']}\r\n"
    )


# --- publications during a run ------------------------------------------------------------------


def publish_after_pages(monkeypatch, t0, pages: set[int]):
    """Publish the feed again (6 more records, same week) right after the listed page reads."""
    real = Api.list_page
    served = []

    def list_page(self, params):
        body = real(self, params)
        served.append(len(body["data"]))
        if len(served) in pages:
            make_records(t0, 6, start=500 + 10 * len(served))
            publication.publish_issue(now=t0 + timedelta(minutes=len(served)))
        return body

    monkeypatch.setattr(Api, "list_page", list_page)
    return served


RESTART = (
    "the feed was republished while reading (snapshot_changed): starting again from the first "
    "page (restart 1 of at most 3)\n"
)


@pytest.mark.parametrize("to_file", [True, False])
def test_a_publication_mid_export_restarts_from_the_first_page(
    feed, base, t0, tmp_path, monkeypatch, to_file
):
    served = publish_after_pages(monkeypatch, t0, {2})
    target = tmp_path / "all.jsonl"
    output = ["-o", str(target)] if to_file else []
    run = tenders("export", "--closing-bucket", "all", "--limit", "20", *output)

    # Pages 1 and 2 of the old snapshot; page 3 answered 409; then 90 rows in 5 pages.
    assert served == [20, 20, 20, 20, 20, 20, 10]
    assert run.code == 0
    written = f", written to {target}" if to_file else ""
    assert run.err == RESTART + f"90 rows in 5 pages, issue 2026-W48{written}\n"
    lines = target.read_text(encoding="utf-8").splitlines() if to_file else run.out.splitlines()
    assert lines == as_lines(flat_file(base)["rows"])
    assert len(set(lines)) == len(lines) == 90
    assert Issue.objects.get(is_current=True).rows_total == 90


def test_list_all_restarts_too_and_its_pages_are_one_crawl(feed, base, t0, monkeypatch, tmp_path):
    publish_after_pages(monkeypatch, t0, {1})
    run = tenders("list", "--all", "--json", "--limit", "30", "--closing-bucket", "all")
    assert run.code == 0
    assert run.err == RESTART + "90 rows in 3 pages, issue 2026-W48\n"
    pages = [json.loads(line) for line in run.out.splitlines()]
    assert [row for page in pages for row in page["data"]] == flat_file(base)["rows"]
    assert len({page["meta"]["snapshot_etag"] for page in pages}) == 1

    crawl = tmp_path / "pages.jsonl"
    crawl.write_text(run.out, encoding="utf-8")
    checked = tenders("validate", str(crawl))
    assert (checked.code, checked.out) == (
        0,
        "valid: JSON Lines of 3 pages, 90 rows, issue 2026-W48\n",
    )


def test_too_many_publications_exit_4_and_write_nothing(feed, base, t0, monkeypatch, tmp_path):
    publish_after_pages(monkeypatch, t0, {1, 2, 3, 4})
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "all.jsonl"
    run = tenders(
        "export",
        "--closing-bucket",
        "all",
        "--limit",
        "50",
        "--max-restarts",
        "1",
        "-o",
        str(target),
    )
    assert run == Run(
        4,
        "",
        "the feed was republished while reading (snapshot_changed): starting again from the "
        "first page (restart 1 of at most 1)\n"
        "error: the feed was republished 2 times while reading; nothing was written. Try again "
        "later, or allow more with --max-restarts.\n",
    )
    assert os.listdir(folder) == []


# --- validating what the service serves -----------------------------------------------------------


def test_the_served_flat_file_and_a_page_validate(feed, base, tmp_path):
    run = tenders("validate", f"{base}/tender/rows.json")  # gzip, recognised by its bytes
    assert (run.code, run.out) == (0, "valid: flat file, 84 rows, issue 2026-W48\n")
    run = tenders("validate", f"{base}/api/v1/tenders?lang=zh&limit=7")
    assert (run.code, run.out) == (0, "valid: API page, 7 rows, issue 2026-W48\n")
    exported = tmp_path / "rows.jsonl"
    tenders("export", "--lang", "en", "-o", str(exported))
    run = tenders("validate", str(exported))
    assert (run.code, run.out) == (0, "valid: JSON Lines of rows, 63 rows\n")


def test_every_format_the_client_writes_from_the_service_validates(feed, base, tmp_path):
    """``tenders export`` (JSON Lines and CSV, full and one language) and ``tenders list
    --json`` (one page, and every page) read back by ``tenders validate`` with exit 0."""
    made = {
        "rows.csv": ("export", "--format", "csv", "--closing-bucket", "all"),
        "zh.csv": ("export", "--format", "csv", "--lang", "zh"),
        "rows.jsonl": ("export", "--closing-bucket", "all"),
        "page.json": ("--json", "list", "--lang", "zht", "--limit", "7"),
        "pages.jsonl": ("--json", "list", "--all", "--limit", "20"),
    }
    kinds = {
        "rows.csv": "CSV of rows, 84 rows",
        "zh.csv": "CSV of rows, 63 rows",
        "rows.jsonl": "JSON Lines of rows, 84 rows",
        "page.json": "API page, 7 rows, issue 2026-W48",
        "pages.jsonl": "JSON Lines of 4 pages, 63 rows, issue 2026-W48",
    }
    for name, argv in made.items():
        run = tenders(*argv)
        assert run.code == 0, run.err
        (tmp_path / name).write_text(run.out, encoding="utf-8")
        checked = tenders("validate", str(tmp_path / name))
        assert (checked.code, checked.out) == (0, f"valid: {kinds[name]}\n"), name

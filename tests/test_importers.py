"""The importers' pure parts: readers, quirks, classification and HTTP (no database).

HTTP runs against a real local server on 127.0.0.1 that serves OCDS pages with ``links.next``,
answers 429 with ``Retry-After``, 503, and an HTML rate-limit page; waits are recorded, not
slept.
"""

import gzip
import io
import json
import re
import threading
from datetime import UTC, datetime
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tenders.importers import classify, csvfile, eforms, gld, ocds
from tenders.importers.http import HttpPolicy, open_url, retry_after
from tenders.importers.notice import (
    Failure,
    Piece,
    ReadError,
    Skip,
    amount,
    lang_code,
    need_phrase,
    parse_deadline,
)
from tenders.importers.sources import Utf8Repair, group_pieces

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
EFORMS = DATA / "eforms"
HK_FIXTURE = Path(__file__).resolve().parent / "data" / "gld"


def release(ocid="ocds-x-1", rid="r1", date="2026-11-01T00:00:00Z", **tender):
    return {"ocid": ocid, "id": rid, "date": date, "tag": ["tender"], "tender": tender}


def read(data: bytes, name="f.json"):
    return list(ocds.read_stream(io.BufferedReader(Utf8Repair(io.BytesIO(data))), name))


# --- shared parsers ------------------------------------------------------------------------


def test_deadlines_in_every_spelling_publishers_use():
    assert parse_deadline("2014-04-15 14:00 Eastern Daylight Time (EDT)", "CA") == datetime(
        2014, 4, 15, 18, 0, tzinfo=UTC
    )
    assert parse_deadline("2014-01-10 11:00 Newfoundland Standard Time (NST)", "CA") == datetime(
        2014, 1, 10, 14, 30, tzinfo=UTC
    )
    assert parse_deadline("2018-01-22T23:30:00Z", "AU") == datetime(2018, 1, 22, 23, 30, tzinfo=UTC)
    assert parse_deadline("2020-02-04 10:00:00+02:00", "EU") == datetime(
        2020, 2, 4, 8, 0, tzinfo=UTC
    )
    # Local time of the market when no zone is given; a date alone is the end of that day.
    assert parse_deadline("2026-12-11T12:00:00", "HK") == datetime(2026, 12, 11, 4, 0, tzinfo=UTC)
    assert parse_deadline("15/01/2027 12:00", "HK") == datetime(2027, 1, 15, 4, 0, tzinfo=UTC)
    assert parse_deadline("2026-12-01", "SG") == datetime(2026, 12, 1, 15, 59, 59, tzinfo=UTC)
    assert parse_deadline("next Tuesday", "GB") is None
    assert parse_deadline("2026-02-30", "GB") is None
    assert parse_deadline(None, "GB") is None


def test_amounts_json_cannot_hold_are_left_out():
    assert amount(Decimal("1E+9999")) is None
    assert amount(float("inf")) is None
    assert amount("1e9999") is None
    assert amount(-5) is None
    assert amount("1,250,000.5") == Decimal("1250000.50")
    assert amount(464500) == Decimal("464500.00")
    assert amount(True) is None


def test_languages_titles_and_need_phrases():
    assert [lang_code(v) for v in ("en-GB", "EN", "English", "ENG", "FRA", "BUL", "")] == [
        "en", "en", "en", "en", "fr", "bul", "",
    ]  # fmt: skip
    assert need_phrase("  STANDING LIST OF CONSTRUCTION CONTRACTORS.  ") == (
        "Standing list of construction contractors"
    )
    assert need_phrase("<p>Lismore TAFE&nbsp;Flood Works</p>") == "Lismore TAFE Flood Works"


# --- OCDS ----------------------------------------------------------------------------------


def test_a_package_with_quirks_is_read_release_by_release():
    package = (
        b'{"uri": "x", "extensions": [null, "https://example.org/ext.json"], "releases": ['
        + json.dumps(release(title=" Caf\u00e9 fit-out ", value={"amount": 1}))
        .encode()
        .replace(b"Caf\\u00e9", b"Caf\xe9")  # Latin-1 bytes in a file said to be UTF-8
        .replace(b'"amount": 1', b'"amount": 1e9999')
        + b"], "
        + b'"links": {"next": "https://example.org/page/2"}}'
    )
    items = read(package)
    assert [type(i).__name__ for i in items] == ["Piece", "str"]
    piece = items[0]
    assert (piece.notice_id, piece.item_id, piece.place) == ("ocds-x-1", "r1", "f.json #1")
    assert piece.payload["tender"]["title"] == " Caf\u00e9 fit-out "
    assert piece.payload["tender"]["value"]["amount"] == Decimal("1E+9999")
    assert items[1] == "https://example.org/page/2"
    notice = ocds.build("ocds-x-1", [piece.payload], market="GB")
    assert notice.title == "Caf\u00e9 fit-out"
    assert notice.amount is None
    assert notice.notes == ["amount '1E+9999' is not a usable number: left out"]


def test_json_lines_records_arrays_and_single_releases():
    lines = b"\n".join(
        json.dumps(r).encode()
        for r in (release(rid="a"), {"releases": [release(ocid="ocds-x-2", rid="b")]})
    )
    assert [(p.notice_id, p.item_id) for p in read(lines, "f.jsonl")] == [
        ("ocds-x-1", "a"),
        ("ocds-x-2", "b"),
    ]
    record_package = {
        "records": [
            {"ocid": "ocds-x-3", "compiledRelease": release(ocid="ocds-x-3", title="T")},
            {"ocid": "ocds-x-4", "releases": [{"url": "https://example.org/r.json"}]},
        ]
    }
    items = read(json.dumps(record_package).encode())
    assert [(type(i).__name__, getattr(i, "item_id", None)) for i in items] == [
        ("Piece", "compiled"),
        ("Failure", None),
    ]
    assert items[1].notice_id == "ocds-x-4"
    top_array = json.dumps([release(rid="c"), {"no": "ocid"}]).encode()
    items = read(top_array)
    assert isinstance(items[0], Piece) and items[0].item_id == "c"
    assert items[1] == Failure(
        "f.json #2", "", "not an OCDS release (no ocid); check the file's format"
    )


def test_a_truncated_file_keeps_what_came_before_and_says_where_it_broke():
    data = json.dumps({"releases": [release(rid="a"), release(rid="b")]}).encode()[:-30]
    items = read(data)
    assert isinstance(items[0], Piece)
    assert isinstance(items[-1], Failure)
    assert items[-1].place == "f.json after item 1"
    assert "not valid JSON from here on" in items[-1].message


def test_releases_merge_into_the_current_state_with_the_amended_deadline():
    path = DATA / "ocds" / "fictional-example-1.1" / "ocds-213czf-000-00001.json"
    payloads = [p.payload for p in ocds.pieces(str(path))]
    assert len(payloads) == 6
    notice = ocds.build("ocds-213czf-000-00001", payloads, market="GB")
    assert notice.deadline == datetime(2010, 4, 8, 18, 0, tzinfo=UTC)
    assert (notice.state, notice.closed_reason) == (
        "awarded",
        "awarded (1 award(s), 1 contract(s))",
    )
    assert (notice.amount, notice.currency, notice.procedure) == (
        Decimal("1100000.00"),
        "GBP",
        "open",
    )
    assert notice.buyer_name == "London Borough of Barnet"
    # The first three releases alone: still open, the deadline not yet amended.
    early = ocds.build("ocds-213czf-000-00001", payloads[:2], market="GB")
    assert (early.state, early.deadline) == ("active", datetime(2010, 4, 1, 18, 0, tzinfo=UTC))


def test_nsw_open_tenders_marked_complete_stay_open_and_html_is_stripped():
    payloads = [p.payload for p in ocds.pieces(str(DATA / "ocds" / "au-nsw-etendering" / "0.json"))]
    notice = ocds.build(payloads[0]["ocid"], payloads, market="AU")
    assert notice.state == "active"
    assert notice.description.startswith(
        "The extent of works for this contract includes but is not limited to : Principal"
    )
    assert "<" not in notice.description and "&nbsp;" not in notice.description
    assert notice.classifications == (("UNSPSC", "81101508", "Architectural engineering"),)


def test_contract_only_releases_are_skipped():
    folder = DATA / "ocds" / "ca-buyandsell-contracts-bilingual"
    payloads = [p.payload for p in ocds.pieces(str(folder)) if p.notice_id.endswith("001/USW")]
    assert len(payloads) == 2
    assert ocds.build("x", payloads, market="CA") == Skip("award or contract only (no tender)")


# --- eForms and GLD ------------------------------------------------------------------------


def eforms_payloads(*names):
    return [p.payload for name in names for p in eforms.pieces(str(EFORMS / name))]


def test_eforms_change_notices_update_and_cancel_the_procedure():
    opened = eforms.build("31f258b6", eforms_payloads("cn_24_open.xml"))
    changed = eforms.build(
        "31f258b6", eforms_payloads("change-cn_24_open_dates.xml", "cn_24_open.xml")
    )
    assert opened.deadline == datetime(2020, 4, 3, 11, 0, tzinfo=UTC)
    assert changed.deadline == datetime(2020, 6, 12, 11, 0, tzinfo=UTC)
    assert (changed.amount, changed.currency) == (Decimal("500000.00"), "EUR")
    cancelled = eforms.build(
        "4805c409", eforms_payloads("cn_24_minimal.xml", "change-cn_24_void.xml")
    )
    assert (cancelled.state, cancelled.closed_reason) == (
        "cancelled",
        "cancelled by the buyer (change notice with reason cancel)",
    )
    assert eforms.build("022d0ef9", eforms_payloads("can_24_minimal.xml")) == Skip(
        "award notice (not an opportunity)"
    )


def test_eforms_picks_english_and_never_drafts_from_other_languages():
    multilingual = eforms.build("46c9ce89", eforms_payloads("cn_24_multilingual.xml"))
    assert multilingual.title.startswith("Provision of IT Services Related to OP IT Systems")
    assert ("Úřad pro publikace Evropské unie", "ces") in {
        (n.name, n.lang) for n in multilingual.names
    }
    french = eforms.build("e3cdabf1", eforms_payloads("cn_24_FRA_comments.xml"))
    assert french.notes == ["no English text: the private title is in another language"]
    german = eforms.build("c2a0dcd1", eforms_payloads("pin-cfc_25.xml"))
    assert german.deadline == datetime(2020, 5, 18, 22, 59, 59, tzinfo=UTC)


def test_eforms_rejects_entities_and_broken_files(tmp_path):
    (tmp_path / "bomb.xml").write_text(
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
        "<ContractNotice><x>&e;</x></ContractNotice>"
    )
    (tmp_path / "broken.xml").write_text("<ContractNotice><unclosed>")
    items = list(eforms.pieces(str(tmp_path)))
    assert items[0] == Failure(
        "bomb.xml", "", "no ContractFolderID nor notice type: is this an eForms notice?"
    )
    assert items[1].place == "broken.xml" and "not well-formed XML" in items[1].message


def test_gld_fixture_gives_both_languages():
    items = list(gld.pieces(str(HK_FIXTURE)))
    assert [p.notice_id for p in items] == ["A9900012026", "FEHD/T/2026/0042", "GLD/T/2026/0117"]
    masks = gld.build("A9900012026", [items[0].payload])
    assert (masks.title, masks.need_zh) == (
        "Supply of Disposable Surgical Masks",
        "供应即弃外科口罩",
    )
    assert masks.deadline == datetime(2026, 12, 11, 4, 0, tzinfo=UTC)
    assert "chan.taiman@example.gov.hk" in masks.description
    assert {(n.name, n.lang, n.group) for n in masks.names} >= {
        ("Department of Health", "en", "ReqDepartmentName"),
        ("衞生署", "zh-hant", "ReqDepartmentName"),
    }
    cleaning = gld.build("FEHD/T/2026/0042", [items[1].payload])
    assert cleaning.notes == ["the buyer issued an addendum", "the closing date was revised"]


# --- classification ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("classifications", "words", "nature", "expected"),
    [
        ([("CPV", "72230000", "")], "", "", ("software-it-services", "code CPV 72230000")),
        ([("CPV", "45233130.0", "")], "", "", ("civil-engineering", "code CPV 45233130.0")),
        ([("CPV", "79710000", "")], "", "", ("security-services", "code CPV 79710000")),
        ([("UNSPSC", "81101508", "")], "", "", ("architecture-engineering-design", "code UNSPSC 81101508")),
        ([("UNSPSC", "72141100", "")], "", "", ("civil-engineering", "code UNSPSC 72141100")),
        ([("GSIN", "", "N7030: ADP Software")], "", "", ("software-it-services", "code GSIN N7030")),
        ([("GSIN", "", "K100A: Cleaning and Maintenance")], "", "", ("facilities-management", "code GSIN K100A")),
        ([("GSIN", "", "5131C: Highways, Roads")], "", "", ("civil-engineering", "code GSIN 5131C")),
        ([], "Provision of Cleaning Services for Public Markets", "", ("cleaning-hygiene", "keywords")),
        ([], "公眾街市清潔服務", "", ("cleaning-hygiene", "keywords")),
        ([], "Wellbeing College", "works", ("construction-works", "nature works")),
        ([], "Something else", "", ("consulting-professional", "default")),
    ],
)  # fmt: skip
def test_classification(classifications, words, nature, expected):
    assert classify.classify(classifications, words=words, nature=nature) == expected


# --- grouping ------------------------------------------------------------------------------


def test_pieces_of_a_procedure_come_together_in_read_order():
    items = [
        Piece("b", "1", {"n": 1}, "p1"),
        Failure("p2", "", "bad"),
        Piece("a", "1", {"n": 2}, "p3"),
        Piece("b", "2", {"n": 3}, "p4"),
    ]
    seen = []
    counts = []
    groups = list(
        group_pieces(items, on_item=lambda i: seen.append(i) or True, on_grouped=counts.append)
    )
    assert [(k, [p.place for p in ps]) for k, ps in groups] == [("a", ["p3"]), ("b", ["p1", "p4"])]
    assert seen == items and counts == [2]


# --- HTTP against a local server -----------------------------------------------------------


class Feed(BaseHTTPRequestHandler):
    """Page 1 links to page 2 (gzip-free JSON); /busy answers 429 then the page; /down 503
    then the page; /limited an HTML rate-limit page then the page; /html a web page."""

    hits: dict[str, int] = {}

    def log_message(self, *args):
        pass

    def _send(self, status, body: bytes, ctype="application/json", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        base = f"http://127.0.0.1:{self.server.server_port}"
        count = self.hits[self.path] = self.hits.get(self.path, 0) + 1
        page2 = json.dumps({"releases": [release(ocid="ocds-p-2", rid="2")]}).encode()
        if self.path == "/page1":
            body = {
                "releases": [release(ocid="ocds-p-1", rid="1")],
                "links": {"next": f"{base}/busy"},
            }
            self._send(200, json.dumps(body).encode())
        elif self.path == "/busy" and count == 1:
            self._send(429, b'{"error": "slow"}', headers=[("Retry-After", "7")])
        elif self.path == "/busy":
            body = {
                "releases": [release(ocid="ocds-p-2", rid="2")],
                "links": {"next": f"{base}/down"},
            }
            self._send(200, json.dumps(body).encode())
        elif self.path == "/down" and count == 1:
            self._send(503, b"unavailable", ctype="text/plain")
        elif self.path == "/down":
            body = {
                "releases": [release(ocid="ocds-p-3", rid="3")],
                "links": {"next": f"{base}/limited"},
            }
            self._send(200, json.dumps(body).encode())
        elif self.path == "/limited" and count == 1:
            page = (
                b"<!DOCTYPE html><html><title>Too Many Requests</title><p>Rate limit exceeded.</p>"
            )
            self._send(200, page, ctype="text/html; charset=utf-8")
        elif self.path == "/limited":
            self._send(200, json.dumps({"releases": [release(ocid="ocds-p-4", rid="4")]}).encode())
        elif self.path == "/html":
            self._send(200, b"<html><body>Welcome to our portal</body></html>", ctype="text/html")
        elif self.path == "/always-busy":
            self._send(503, b"", headers=[("Retry-After", "1")])
        elif self.path == "/gone":
            self._send(404, b"")
        elif self.path == "/notice.xml":
            self._send(200, (EFORMS / "cn_24_minimal.xml").read_bytes(), ctype="application/xml")
        elif self.path == "/batch.csv":
            body = b"id,title,buyer,deadline\nMO-1,Caf\xe9 supplies,IACM,2026-12-01\n"
            self._send(200, body, ctype="text/csv")
        else:
            self._send(200, page2)


@pytest.fixture
def server():
    Feed.hits = {}
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Feed)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


def test_paging_follows_links_next_through_429_503_and_a_rate_limit_page(server):
    waits = []
    items = list(ocds.pieces(f"{server}/page1", sleep=waits.append))
    assert [(p.notice_id, p.place) for p in items] == [
        ("ocds-p-1", "page 1 #1"),
        ("ocds-p-2", "page 2 #1"),
        ("ocds-p-3", "page 3 #1"),
        ("ocds-p-4", "page 4 #1"),
    ]
    # Retry-After honoured (7 s), then the default backoff for the 503 and the HTML page.
    assert waits == [7.0, 2.0, 2.0]
    assert Feed.hits == {"/page1": 1, "/busy": 2, "/down": 2, "/limited": 2}


def test_http_failures_say_what_to_do(server):
    waits = []
    policy = HttpPolicy(attempts=3, backoff=0.5, max_wait=10)
    with pytest.raises(ReadError) as web_page:
        open_url(f"{server}/html", policy=policy, sleep=waits.append)
    assert "answered an HTML page, not the feed's data" in str(web_page.value)
    with pytest.raises(ReadError) as busy:
        open_url(f"{server}/always-busy", policy=policy, sleep=waits.append)
    assert str(busy.value) == (
        f"{server}/always-busy still gave HTTP 503 (unavailable) after 3 attempts; try again "
        "later (the import can be rerun safely: what was imported is not duplicated)."
    )
    with pytest.raises(ReadError) as gone:
        open_url(f"{server}/gone", policy=policy, sleep=waits.append)
    assert "answered HTTP 404" in str(gone.value)
    assert waits == [1.0, 1.0]
    assert Feed.hits == {"/always-busy": 3, "/gone": 1, "/html": 1}


def test_one_notice_or_a_csv_batch_at_a_url(server):
    [notice] = eforms.pieces(f"{server}/notice.xml")
    assert (notice.notice_id, notice.place) == (
        "4805c409-5939-4be9-8abd-837f7a5fee23",
        f"{server}/notice.xml",
    )
    [row] = csvfile.pieces(f"{server}/batch.csv", market="MO")
    assert (row.notice_id, row.payload["title"], row.place) == (
        "MO:MO-1",
        "Caf\u00e9 supplies",
        f"{server}/batch.csv line 2",
    )


def test_retry_after_in_seconds_or_as_a_date():
    now = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)
    assert retry_after("120") == 120.0
    assert retry_after("Mon, 23 Nov 2026 06:00:30 GMT", now=now) == 30.0
    assert retry_after("soon") is None
    assert retry_after(None) is None


def test_gzip_files_are_read(tmp_path):
    path = tmp_path / "p.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"releases": [release()]}).encode()))
    assert [p.notice_id for p in ocds.pieces(str(path))] == ["ocds-x-1"]
    with pytest.raises(ReadError, match="is neither a file nor a folder"):
        list(ocds.pieces(str(tmp_path / "missing.json")))


def test_releases_that_cannot_be_ordered_or_merged_say_so():
    undated = release(rid="b")
    del undated["date"]
    with pytest.raises(ValueError, match=r"^a release has no date, so the releases cannot be put"):
        ocds.build("ocds-x-1", [release(rid="a"), undated], market="GB")
    clashing = release(rid="b", date="2026-11-02T00:00:00Z", items=[{"id": "1"}])
    with pytest.raises(ValueError, match=r"^the releases cannot be merged"):
        ocds.build("ocds-x-1", [release(rid="a", items="not a list"), clashing], market="GB")


@pytest.mark.django_db
def test_eforms_notices_without_a_procedure_are_skipped_with_their_reason(tmp_path):
    """Prior-information-only and buyer-profile notices may carry no ContractFolderID: valid
    eForms, not failures. They stand alone and are skipped with the reason."""
    from tenders.importers.service import import_notices

    xml = (EFORMS / "cn_24_minimal.xml").read_text()
    xml = re.sub(r"\s*<cbc:ContractFolderID>[^<]*</cbc:ContractFolderID>", "", xml)
    xml = xml.replace(">cn-standard<", ">pin-only<").replace(
        'listName="competition"', 'listName="planning"'
    )
    (tmp_path / "pin-only.xml").write_text(xml)
    (piece,) = list(eforms.pieces(str(tmp_path)))
    assert piece.notice_id and piece.notice_id == piece.item_id.rsplit("-", 1)[0]
    run = import_notices("eforms", str(tmp_path))
    assert (run.failed, run.skipped) == (0, {"prior information only (no call for competition)": 1})

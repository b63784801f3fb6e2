"""The ``tenders`` command against a live server: every command, exact outputs and exit codes.

The server is pytest-django's ``live_server`` (a real HTTP server on a real PostgreSQL); the
command runs in process through ``tenders_client.cli.main`` with its own output streams, and
once as the installed console script. Row order follows ``sort_key``, an HMAC under a secret
made fresh for every test run, so expected tables are put in order from the snapshot.
"""

import json
import os
import subprocess
import sys
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from tenders_client.console import text_width

from rfq.models import Rfq
from tenders import publication
from tenders.calendar import rfc3339
from tests.client_support import Terminal, ordered_ids, publish_small, tenders
from tests.factories import SourceTenderFactory

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
def base(live_server, monkeypatch):
    """The live server as the command's base URL (through the environment, as a user sets
    it), and a 140-column terminal."""
    monkeypatch.setenv("TENDERS_BASE_URL", live_server.url)
    monkeypatch.setenv("COLUMNS", "140")
    return live_server.url


@pytest.fixture
def small(base, t0):
    """The four rows of tests.client_support.SMALL, published at t0."""
    return publish_small(t0)


def api_body(base: str, path: str) -> dict:
    with urllib.request.urlopen(base + path) as answer:
        return json.loads(answer.read())


HEADER = (
    "ID                  MKT  CLOSING  VALUE    LEAD  NEW  CATEGORY                      SUMMARY"
)
LINES = {
    "AT-TEST-0000000001": "AT-TEST-0000000001  HK   le_2w    500k_2m  yes   yes  "
    "Medical supplies and equi...  Supply of patient monitors for public hospitals.",
    "AT-TEST-0000000002": "AT-TEST-0000000002  SG   2_4w     -        no    yes  "
    "IT hardware and equipment     Network switches and wireless access points.",
    "AT-TEST-0000000003": "AT-TEST-0000000003  GB   gt_4w    gt_10m   yes   yes  "
    "Pharmaceuticals               Supply of influenza vaccines.",
}


def table(issue, lines: dict, header: str = HEADER) -> str:
    return "\n".join([header, *(lines[i] for i in ordered_ids(issue, lines))]) + "\n"


# --- list ---------------------------------------------------------------------------------------


def test_list_prints_an_aligned_table_of_the_open_rows(small):
    run = tenders("list")
    assert run.code == 0
    assert run.out == table(small, LINES)
    assert run.err == "3 of 3 rows, issue 2026-W48\n"


def test_list_in_traditional_chinese_aligns_by_display_width(small):
    run = tenders("list", "--lang", "zht", "--closing-bucket", "all")
    header = (
        "ID                  MKT  CLOSING          VALUE    LEAD  NEW  CATEGORY            SUMMARY"
    )
    lines = {
        "AT-TEST-0000000001": "AT-TEST-0000000001  HK   le_2w            500k_2m  yes   yes  "
        "醫療用品及設備      供應醫院病人監護儀。",
        "AT-TEST-0000000002": "AT-TEST-0000000002  SG   2_4w             -        no    yes  "
        "資訊科技硬件及設備  網絡交換器及無線接入點。",
        "AT-TEST-0000000003": "AT-TEST-0000000003  GB   gt_4w            gt_10m   yes   yes  "
        "藥品                供應流感疫苗。",
        "AT-TEST-0000000004": "AT-TEST-0000000004  HK   deadline_passed  lt_500k  no    yes  "
        "建築工程            公共圖書館室內翻新工程。",
    }
    assert (run.code, run.out, run.err) == (
        0,
        table(small, lines, header),
        "4 of 4 rows, issue 2026-W48\n",
    )


def test_list_cuts_summaries_to_the_terminal_width(small, monkeypatch):
    # 46 columns for category and summary: the summary gets three fifths of them.
    monkeypatch.setenv("COLUMNS", "100")
    run = tenders("list", "--market", "SG")
    assert run.out.splitlines() == [
        "ID                  MKT  CLOSING  VALUE  LEAD  NEW  CATEGORY             SUMMARY",
        "AT-TEST-0000000002  SG   2_4w     -      no    yes  IT hardware and...   "
        "Network switches and wir...",
    ]
    assert max(len(line) for line in run.out.splitlines()) == 100
    # 21 columns for the summary: 9 wide characters (18) and "...", never half a character.
    monkeypatch.setenv("COLUMNS", "90")
    run = tenders("list", "--market", "SG", "--lang", "zh")
    assert run.out.splitlines()[1] == (
        "AT-TEST-0000000002  SG   2_4w     -      no    yes  信息技术硬件...  网络交换器及无线接..."
    )


def test_list_in_80_columns_leaves_out_the_start_every_summary_shares(base, t0, monkeypatch):
    """Summaries built from the vocabulary share their first words in Chinese (采购内容):
    a narrow table shows what follows them, the part that tells the rows apart."""
    for concept, deadline_days in (("建筑物施工工程", 5), ("抗肿瘤药", 6), ("分析仪", 7)):
        SourceTenderFactory(
            market="SG",
            deadline=t0 + timedelta(days=deadline_days),
            summary_zh=f"采购内容：{concept}。新加坡公共机构采购货物。期限约2年。",
            summary_zht=f"採購內容：{concept}。新加坡公共機構採購貨物。期限約2年。",
        )
    publication.publish_issue(now=t0)
    monkeypatch.setenv("COLUMNS", "80")
    run = tenders("list", "--lang", "zh")
    lines = run.out.splitlines()
    assert run.code == 0 and max(text_width(line) for line in lines) <= 80
    assert sorted(line.split()[-1] for line in lines[1:]) == sorted(
        ["建筑物施工...", "抗肿瘤药。...", "分析仪。新..."]
    )
    assert run.err.splitlines()[0] == (
        'summaries shortened: each starts with "采购内容：", left out above'
    )


def test_list_pages_with_the_cursor_it_prints(small, base):
    first = tenders("list", "--limit", "2")
    cursor = api_body(base, "/api/v1/tenders?limit=2")["meta"]["next_cursor"]
    ids = ordered_ids(small, LINES)
    # Which rows come first depends on the run's sort-key secret, and a page's table is as
    # wide as its own rows: the first column says which rows they are.
    assert [line.split()[0] for line in first.out.splitlines()] == ["ID", *ids[:2]]
    assert first.err == f"2 of 3 rows, issue 2026-W48\nnext page: --cursor {cursor}\n"

    second = tenders("list", "--limit", "2", "--cursor", cursor)
    assert [line.split()[0] for line in second.out.splitlines()] == ["ID", ids[2]]
    assert second.err == "1 of 3 rows, issue 2026-W48\n"
    last = tenders("list", "--limit", "2", "--cursor", cursor, "--market", "GB")
    assert (last.code, last.out) == (1, "")
    assert last.err.startswith("error invalid_cursor: This cursor belongs to other filters")


@pytest.mark.parametrize(
    "argv,query",
    [
        (
            [
                "--market", "hk,sg", "--category", "醫療用品及設備", "--category", "it-hardware",
                "--closing-bucket", "all", "--value-band", "500k_2m,unspecified", "--new",
                "--lead-ok", "-q", "病人", "--lang", "en", "--limit", "5",
            ],
            "market=hk,sg&category=醫療用品及設備,it-hardware&closing_bucket=all"
            "&value_band=500k_2m,unspecified&new=true&lead_ok=true&q=病人&lang=en&limit=5",
        ),
        (["--no-new", "--no-lead-ok", "--closing-bucket", "le_2w", "--closing-bucket", "2_4w"],
         "new=false&lead_ok=false&closing_bucket=le_2w,2_4w"),
        (["--q", "public", "--value-band", "gt_10m"], "q=public&value_band=gt_10m"),
    ],
)  # fmt: skip
def test_every_filter_is_sent_as_the_api_takes_it(small, base, argv, query):
    run = tenders("list", "--json", *argv)
    path = "/api/v1/tenders?" + urllib.request.quote(query, safe="=&,")
    assert run.code == 0 and run.err == ""
    assert (
        run.out
        == json.dumps(api_body(base, path), ensure_ascii=False, separators=(",", ":")) + "\n"
    )


def test_json_goes_before_or_after_the_command(small):
    assert tenders("--json", "list").out == tenders("list", "--json").out
    body = json.loads(tenders("list", "--json").out)
    assert [row["asaptic_id"] for row in body["data"]] == ordered_ids(small, LINES)
    assert body["meta"]["total"] == 3 and body["meta"]["next_cursor"] is None


def test_list_all_reads_every_page_and_draws_progress_on_a_terminal(small):
    terminal = Terminal()
    run = tenders("list", "--all", "--limit", "2", "--closing-bucket", "all", stderr=terminal)
    header = (
        "ID                  MKT  CLOSING          VALUE    LEAD  NEW  CATEGORY"
        "                      SUMMARY"
    )
    lines = {
        "AT-TEST-0000000001": "AT-TEST-0000000001  HK   le_2w            500k_2m  yes   yes  "
        "Medical supplies and equi...  Supply of patient monitors for public hospitals.",
        "AT-TEST-0000000002": "AT-TEST-0000000002  SG   2_4w             -        no    yes  "
        "IT hardware and equipment     Network switches and wireless access points.",
        "AT-TEST-0000000003": "AT-TEST-0000000003  GB   gt_4w            gt_10m   yes   yes  "
        "Pharmaceuticals               Supply of influenza vaccines.",
        "AT-TEST-0000000004": "AT-TEST-0000000004  HK   deadline_passed  lt_500k  no    yes  "
        "Construction works            Interior refurbishment of a public library.",
    }
    assert run.code == 0
    assert run.out == table(small, lines, header)
    assert run.err == (
        "\r[############............]  50% 2 of 4 rows"
        "\r[########################] 100% 4 of 4 rows"
        "\r                                           \r"
        "4 rows in 2 pages, issue 2026-W48\n"
    )


def test_list_all_json_prints_one_page_per_line(small, base):
    run = tenders("list", "--all", "--json", "--limit", "2")
    pages = [json.loads(line) for line in run.out.splitlines()]
    assert [len(page["data"]) for page in pages] == [2, 1]
    assert pages[0] == api_body(base, "/api/v1/tenders?limit=2")
    assert run.err == "3 rows in 2 pages, issue 2026-W48\n"


# --- get, facets, health -------------------------------------------------------------------------


def test_get_prints_every_field_of_a_row(small):
    key = dict(api_rows(small))
    run = tenders("get", "AT-TEST-0000000001")
    assert (run.code, run.err) == (0, "")
    assert run.out == (
        "asaptic_id         AT-TEST-0000000001\n"
        "market             HK\n"
        "category.name_en   Medical supplies and equipment\n"
        "category.name_zh   医疗用品及设备\n"
        "category.name_zht  醫療用品及設備\n"
        "summary_en         Supply of patient monitors for public hospitals.\n"
        "summary_zh         供应医院病人监护仪。\n"
        "summary_zht        供應醫院病人監護儀。\n"
        "value_band         500k_2m\n"
        "closing_bucket     le_2w\n"
        "lead_ok            yes\n"
        "new_this_issue     yes\n"
        f"sort_key           {key['AT-TEST-0000000001']}\n"
        "issue_id           2026-W48\n"
    )


def api_rows(issue):
    from tenders.models import SnapshotRow

    return SnapshotRow.objects.filter(issue=issue).values_list("asaptic_id", "sort_key")


def test_get_in_one_language_and_as_json(small, base):
    key = dict(api_rows(small))["AT-TEST-0000000002"]
    run = tenders("get", "AT-TEST-0000000002", "--lang", "zh")
    assert run.out == (
        "asaptic_id      AT-TEST-0000000002\n"
        "market          SG\n"
        "category.name   信息技术硬件及设备\n"
        "summary         网络交换器及无线接入点。\n"
        "value_band      -\n"
        "closing_bucket  2_4w\n"
        "lead_ok         no\n"
        "new_this_issue  yes\n"
        f"sort_key        {key}\n"
        "issue_id        2026-W48\n"
    )
    run = tenders("get", "AT-TEST-0000000002", "--json")
    body = api_body(base, "/api/v1/tenders/AT-TEST-0000000002")
    assert run.out == json.dumps(body, ensure_ascii=False, separators=(",", ":")) + "\n"


def test_get_an_absent_id_shows_the_api_error(base, small):
    first = api_body(base, "/api/v1/tenders?closing_bucket=all&limit=1")["data"][0]
    run = tenders("get", "AT-TEST-9999999999")
    assert (run.code, run.out) == (1, "")
    assert run.err == (
        "error not_found: No listing with this id in the current issue. Listing ids look like "
        f"{first['asaptic_id']}; rows come and go with each weekly issue, and GET "
        "/api/v1/tenders lists the current ones.\n"
    )


FACETS = """\
markets
  HK  Hong Kong       香港      香港      2
  MO  Macao           澳门      澳門      0
  SG  Singapore       新加坡    新加坡    1
  GB  United Kingdom  英国      英國      1
  EU  European Union  欧盟      歐盟      0
  AU  Australia       澳大利亚  澳大利亞  0
  CA  Canada          加拿大    加拿大    0

categories
  construction-works               Construction works                建筑工程            建築工程            1
  civil-engineering                Civil engineering and infrast...  土木工程及基础设施  土木工程及基礎設施  0
  building-maintenance             Building maintenance and repair   楼宇维修及保养      樓宇維修及保養      0
  architecture-engineering-design  Architecture and engineering...   建筑及工程设计      建築及工程設計      0
  facilities-management            Facilities management             设施管理            設施管理            0
  cleaning-hygiene                 Cleaning and hygiene services     清洁及卫生服务      清潔及衞生服務      0
  security-services                Security services                 保安服务            保安服務            0
  it-hardware                      IT hardware and equipment         信息技术硬件及设备  資訊科技硬件及設備  1
  software-it-services             Software and IT services          软件及信息技术服务  軟件及資訊科技服務  0
  telecommunications               Telecommunications                电信服务            電信服務            0
  medical-supplies                 Medical supplies and equipment    医疗用品及设备      醫療用品及設備      1
  pharmaceuticals                  Pharmaceuticals                   药品                藥品                1
  laboratory-scientific            Laboratory and scientific equ...  实验室及科学仪器    實驗室及科學儀器    0
  consulting-professional          Consulting and professional s...  咨询及专业服务      諮詢及專業服務      0
  financial-insurance              Financial and insurance services  金融及保险服务      金融及保險服務      0
  transport-logistics              Transport and logistics           运输及物流          運輸及物流          0
  vehicles-fleet                   Vehicles and fleet                车辆及车队          車輛及車隊          0
  energy-utilities                 Energy and utilities              能源及公用事业      能源及公用事業      0
  environmental-waste              Environmental and waste services  环境及废物处理服务  環境及廢物處理服務  0
  education-training               Education and training            教育及培训          教育及培訓          0
  office-supplies-furniture        Office supplies and furniture     办公用品及家具      辦公用品及傢俱      0
  food-catering                    Food and catering                 食品及餐饮服务      食品及餐飲服務      0
  marketing-communications         Marketing and communications      市场推广及传讯      市場推廣及傳訊      0

closing buckets
  le_2w            1
  2_4w             1
  gt_4w            1
  deadline_passed  1

value bands
  lt_500k      1
  500k_2m      1
  2m_10m       0
  gt_10m       1
  unspecified  1
"""


def test_facets_prints_every_group_aligned(small, base):
    run = tenders("facets")
    assert (run.code, run.out, run.err) == (0, FACETS, "issue 2026-W48, 4 rows\n")
    as_json = tenders("facets", "--json")
    body = api_body(base, "/api/v1/tenders/facets")
    assert as_json.out == json.dumps(body, ensure_ascii=False, separators=(",", ":")) + "\n"


def test_health_ok_exits_0(base):
    now = timezone.now().replace(microsecond=0)
    publish_small(now)
    run = tenders("health")
    assert (run.code, run.err) == (0, "")
    assert run.out == (
        "status      ok\n"
        f"issue_id    {now.isocalendar().year}-W{now.isocalendar().week:02d}\n"
        f"generated   {rfc3339(now)}\n"
        "rows_total  4\n"
        "feed_fresh  yes\n"
        "schema      service.tender.v1\n"
    )


def test_health_degraded_exits_5_with_a_warning(base):
    publish_small(timezone.now() - timedelta(days=10))
    run = tenders("health", "--json")
    assert run.code == 5
    assert json.loads(run.out)["status"] == "degraded"
    assert run.err == "warning: the feed is degraded: its current issue is older than 8 days\n"


def test_health_unavailable_exits_1(base):
    run = tenders("health")
    assert run.code == 1
    assert run.out == (
        "status      unavailable\n"
        "issue_id    -\n"
        "generated   -\n"
        "rows_total  0\n"
        "feed_fresh  no\n"
        "schema      service.tender.v1\n"
    )
    assert run.err == "error: the feed is unavailable (HTTP 503)\n"


# --- rfq ------------------------------------------------------------------------------------------


def test_rfq_is_stored_and_its_reference_printed(base):
    run = tenders(
        "rfq",
        "--product",
        "LED street lights, 120 W, IP66",
        "--buyer-contact",
        "buyer@example.com",
        "--quantity",
        "2,000 units",
        "--target-market",
        "hk",
        "--idempotency-key",
        "cli-test-1",
    )
    stored = Rfq.objects.get()
    assert (run.code, run.err) == (0, "")
    assert run.out == (
        f"reference  {stored.reference}\n"
        "next       Thank you: your request for quote is stored. We answer you at the contact "
        f"you gave within 4 hours. Quote {stored.reference} in any follow-up.\n"
    )
    assert (stored.product, stored.quantity, stored.target_market) == (
        "LED street lights, 120 W, IP66",
        "2,000 units",
        "HK",
    )
    again = tenders(
        "rfq",
        "--json",
        "--product",
        "LED street lights, 120 W, IP66",
        "--buyer-contact",
        "buyer@example.com",
        "--quantity",
        "2,000 units",
        "--target-market",
        "hk",
        "--idempotency-key",
        "cli-test-1",
    )
    assert json.loads(again.out)["reference"] == stored.reference
    assert Rfq.objects.count() == 1


def test_rfq_refused_by_the_api_shows_code_message_and_param(base):
    run = tenders("rfq", "--product", "pumps", "--buyer-contact", "call me maybe")
    assert (run.code, run.out) == (1, "")
    assert run.err.startswith("error invalid_parameter: ")
    assert run.err.endswith(" (param buyer_contact)\n")
    assert Rfq.objects.count() == 0


# --- errors and usage ---------------------------------------------------------------------------


def test_an_invalid_filter_shows_the_api_error(small):
    run = tenders("list", "--market", "XX")
    assert (run.code, run.out) == (1, "")
    assert run.err == (
        "error invalid_parameter: market 'XX' is not accepted; give one or more of HK, MO, SG, "
        "GB, EU, AU, CA (any case), comma-separated. (param market)\n"
    )


def test_a_server_that_does_not_answer_exits_3(monkeypatch):
    monkeypatch.delenv("TENDERS_BASE_URL", raising=False)
    run = tenders("--base-url", "http://127.0.0.1:9", "health")
    assert (run.code, run.out) == (3, "")
    assert run.err.startswith("error: cannot reach http://127.0.0.1:9: ")


def test_an_answer_that_is_not_the_api_exits_3(base):
    run = tenders("--base-url", f"{base}/admin/login/", "facets")
    assert run.code == 3
    assert run.err == (
        f"error: {base}/admin/login/api/v1/tenders/facets answered HTTP 200 with text/html, "
        "not the API's JSON; is the base URL right?\n"
    )


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--base-url", "ftp://example.com", "facets"], "error: the base URL must look like "
         "http://host:port, not 'ftp://example.com'\n"),
        (["list", "--all", "--cursor", "abc"], "error: --all reads from the first page; leave "
         "out --cursor\n"),
        (["export", "-o", "/nonexistent/folder/rows.jsonl"], "error: cannot write "
         "/nonexistent/folder/rows.jsonl: there is no folder /nonexistent/folder\n"),
        (["validate", "/nonexistent/rows.json"], "error: cannot read /nonexistent/rows.json: "
         "No such file or directory\n"),
    ],
)  # fmt: skip
def test_usage_errors_exit_2_with_a_message(base, argv, message):
    run = tenders(*argv)
    assert (run.code, run.out, run.err) == (2, "", message)


def test_argument_errors_exit_2(base):
    run = tenders("list", "--limit", "many")
    assert run.code == 2
    assert run.err.endswith("tenders list: error: argument --limit: invalid int value: 'many'\n")
    run = tenders()
    assert run.code == 2
    assert run.err.endswith("error: give a command, e.g. tenders list --market HK\n")


# --- the installed program ----------------------------------------------------------------------


def test_the_console_scripts_run_as_programs(small, base, tmp_path):
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "TENDERS_BASE_URL": base, "COLUMNS": "140"}
    listed = subprocess.run(
        [bin_dir / "tenders", "list"], capture_output=True, text=True, env=env, timeout=60
    )
    assert (listed.returncode, listed.stdout) == (0, table(small, LINES))
    target = tmp_path / "open.jsonl"
    exported = subprocess.run(
        [bin_dir / "tenders", "export", "-o", target], capture_output=True, env=env, timeout=60
    )
    assert exported.returncode == 0
    for program in (
        [bin_dir / "tenders-validate"],
        [sys.executable, "-m", "tenders_client.validate"],
    ):
        checked = subprocess.run(
            [*program, target], capture_output=True, text=True, env=env, timeout=60
        )
        assert (checked.returncode, checked.stdout) == (0, "valid: JSON Lines of rows, 3 rows\n")


@pytest.mark.parametrize(
    ("path", "schema"),
    [
        ("/api/v1/tenders/facets", "service.tender.v1.facets.json"),
        ("/api/v1/health", "service.health.v1.json"),
        ("/api/v1/tenders/AT-TEST-0000000001?lang=en", "service.tender.v1.one.json"),
        ("/agent/capabilities.json", "service.capabilities.v1.json"),
    ],
)
def test_the_validator_checks_live_answers_against_their_published_schema(
    base, small, path, schema
):
    run = tenders("validate", base + path, "--schema", schema)
    assert (run.code, run.out, run.err) == (0, f"valid: one document of {schema}\n", "")
    wrong = tenders("validate", base + path, "--schema", "service.error.v1.json")
    assert wrong.code == 1
    assert wrong.out.endswith("; one document of service.error.v1.json\n")


def test_rfq_from_a_messenger_names_its_listing(small):
    from tenders.models import SnapshotRow

    at_id = SnapshotRow.objects.filter(issue=small).values_list("asaptic_id", flat=True)[0]
    run = tenders(
        "rfq",
        "--product",
        "pumps",
        "--buyer-contact",
        "telegram: @harbour_pumps",
        "--asaptic-id",
        at_id,
    )
    assert run.code == 0, run.err
    stored = Rfq.objects.get()
    assert (stored.buyer_contact, stored.asaptic_id) == ("Telegram: @harbour_pumps", at_id)
    refused = tenders(
        "rfq", "--product", "pumps", "--buyer-contact", "WeChat: ab", "--asaptic-id", at_id
    )
    assert refused.code == 1 and refused.err.endswith(" (param buyer_contact)\n")

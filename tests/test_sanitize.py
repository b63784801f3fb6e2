"""The sanitization engine: every kind in every language, the record's own secrets and their
variants, real OCDS notices, and clean corpora that must give no finding at all.

Pure functions: no database. False positives count as much as misses.
"""

import gzip
import json
import re
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest

from tenders.chinese import to_traditional
from tenders.demo import NEEDS, SCOPES
from tenders.sanitize import (
    Finding,
    RecordSecrets,
    clean_text,
    contact_names_in,
    fold,
    fold_map,
    is_reference_like,
    scan,
    scan_text,
)
from tenders.vocabulary.coverage import template_texts

OCDS = Path(__file__).resolve().parents[2] / "shared" / "data" / "ocds"
NO_SECRETS = RecordSecrets()

EN = "Open tender for a public-sector buyer: {}. Includes delivery and installation."
ZH = "公营机构公开招标：{}。包括交付及安装。"
ZHT = to_traditional(ZH)
TEMPLATES = {"en": EN, "zh": ZH, "zht": ZHT}


def kinds(text: str, secrets: RecordSecrets = NO_SECRETS, lang: str = "en") -> list[str]:
    return [f.kind for f in scan_text(text, lang, secrets)]


def found(detail: str, lang: str, secrets: RecordSecrets = NO_SECRETS) -> list[Finding]:
    """The findings covering ``detail`` planted into a generic summary in ``lang``."""
    text = TEMPLATES[lang].format(detail)
    start = text.index(detail)
    end = start + len(detail)
    findings = scan({lang: text}, secrets)
    return [f for f in findings if f.start <= start < f.end or start <= f.start < end]


def spans(text: str, secrets: RecordSecrets = NO_SECRETS) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan_text(text, "en", secrets)]


# --- each generic kind, in each language ---------------------------------------------------

GENERIC = [
    ("email", "tenders@example.gov.hk"),
    ("email", "a.buyer＠example.com"),
    ("email", "jane.doe [at] council [dot] gov [dot] uk"),
    ("url", "https://www.example.gov.sg/notice?id=7"),
    ("url", "www.tenders.example.org"),
    ("domain", "procurement.example.gov.au"),
    ("domain", "GEBIZ.GOV.SG"),
    ("phone", "+852 2345 6789"),
    ("phone", "0422 385 958"),
    ("phone", "(02) 9707 9502"),
    ("phone", "Tel: 6626 5687"),
    ("phone", "020 7946 0018"),
    ("reference_like", "ArchSD/T/2026/12345"),
    ("reference_like", "CF-12345-2026"),
    ("reference_like", "LTA000ETT26123456"),
    ("reference_like", "2026/S 123-456789"),
    ("reference_like", "RFT17/18-09"),
    ("reference_like", "Tender No. 4471"),
    ("reference_like", "FEHQ 17/2026"),
    ("reference_like", "Ref. 17/2026"),
    ("date", "15 April 2026"),
    ("date", "15th of April"),
    ("date", "April 15, 2026"),
    ("date", "2026-04-15"),
    ("date", "15/04/2026"),
    ("date", "2026年4月15日"),
    ("date", "4月15日"),
    ("date", "二〇二六年四月十五日"),
    ("money", "HK$1,200,000"),
    ("money", "USD 2.5 million"),
    ("money", "450,000 euros"),
    ("money", "GBP 75000"),
    ("money", "150万港元"),
    ("money", "人民币 80万"),
    ("html", "works<br/>and services"),
    ("html", "works&nbsp;and services"),
    ("control_character", "works\x07and services"),
    ("control_character", "works\u200band services"),
    ("person_name", "Mr Ian Hewitson"),
    ("person_name", "Dr. Jane Smith"),
    ("person_name", "陈先生"),
]


@pytest.mark.parametrize("lang", ["en", "zh", "zht"])
@pytest.mark.parametrize(("kind", "detail"), GENERIC)
def test_each_generic_kind_is_found_in_each_language(kind, detail, lang):
    hits = found(detail, lang)
    assert [f.kind for f in hits] == [kind], (detail, lang, [f.describe() for f in hits])


def test_findings_carry_exact_spans_and_an_excerpt_for_staff():
    text = "Contact buyer@example.gov.hk for documents."
    [finding] = scan({"en": text}, NO_SECRETS)
    assert finding == Finding("email", "en", 8, 28, "Contact buyer@example.gov.hk for documents.")
    assert finding.describe() == (
        "email in summary_en: 'Contact buyer@example.gov.hk for documents.'"
    )
    assert (finding.label, finding.field) == ("e-mail address", "summary_en")
    long = "x" * 40 + " call +852 2345 6789 now " + "y" * 40
    [phone] = scan({"zh": long}, NO_SECRETS)
    assert (phone.kind, long[phone.start : phone.end]) == ("phone", "+852 2345 6789")
    assert phone.excerpt == "…xxxxxxxxxxxxxx call +852 2345 6789 now yyyyyyyyyyyyyyy…"


def test_an_address_inside_an_email_is_one_finding():
    assert spans("Write to tenders@gebiz.gov.sg today.") == [("email", "tenders@gebiz.gov.sg")]
    assert spans("See https://ted.europa.eu/notice/2026-123456 now") == [
        ("url", "https://ted.europa.eu/notice/2026-123456")
    ]


@pytest.mark.parametrize(
    "token",
    [
        "CF-12345-2026",
        "ArchSD/T/2026/12345",
        "LTA000ETT26123456",
        "P2014/156/EG",
        "WCL026/2014",
        "CP1089-14",
        "JL008",
        "T39-18",
        "HDC317",
        "DJ2017-226",
        "NCSOPA17182",
        "RMS.17.0000302129.1667",
        "PW-26-12345678",
        "46b6ca53-80f3-47b1-9021-6238882852d4",  # a Contracts Finder notice id
        "ocds-b5fd17-2c330cf9-adc8-11e6-9901-0019b9f3037b",  # an OCDS process id
        "T/21/2026",
    ],
)
def test_reference_shapes_of_real_notices(token):
    assert is_reference_like(token)


@pytest.mark.parametrize(
    "token",
    [
        "COVID-19",
        "24/7",
        "x86-64",
        "100-bed",
        "600-Volt",
        "21st",
        "500kW",
        "ISO-9001",
        "ISO9001",
        "2026-2027",
        "1.5",
        "H.264",
        "PM2.5",
        "IPv6",
        "5G",
        "A4",
        "3-year",
        "2-storey",
        "4K",
        "GC21",
        "IP65",
        "1000mm",
        "4000m2",
        "24-hour",
        "10-15",
        "3.2.1",
        "B2B",
    ],
)
def test_codes_that_are_not_references(token):
    assert not is_reference_like(token)


# --- the record's own secrets --------------------------------------------------------------

SG = RecordSecrets(
    buyer_name="Land Transport Authority",
    reference="LTA000ETT26123456",
    source_url="https://www.gebiz.gov.sg/ptn/opportunity/123",
    deadline=datetime(2026, 4, 15, 8, 0, tzinfo=UTC),
    amount=Decimal("1500000.00"),
    currency="SGD",
    market="SG",
)


@pytest.mark.parametrize(
    ("detail", "kind"),
    [
        ("Land Transport Authority", "buyer_name"),
        ("LAND TRANSPORT AUTHORITY", "buyer_name"),
        ("land-transport  authority", "buyer_name"),
        ("Land Transport Authority,", "buyer_name"),
        ("LTA", "buyer_name"),
        ("Ｌａｎｄ Ｔｒａｎｓｐｏｒｔ Ａｕｔｈｏｒｉｔｙ", "buyer_name"),
        ("lta000ett26123456", "reference"),
        ("gebiz.gov.sg", "source_host"),
        ("GeBIZ", "source_host"),
        ("15 April 2026", "deadline_date"),
        ("April 15th, 2026", "deadline_date"),
        ("15.04.2026", "deadline_date"),
        ("2026年4月15日", "deadline_date"),
        ("15 04 2026", "deadline_date"),
        ("1,500,000", "amount"),
        ("1500000", "amount"),
        ("1.5 million", "amount"),
        ("150万", "amount"),
        ("150萬", "amount"),
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh", "zht"])
def test_the_records_own_secrets_and_their_variants(detail, kind, lang):
    assert [f.kind for f in found(detail, lang, SG)] == [kind]


def test_acronyms_are_whole_upper_case_words_and_never_common_ones():
    lta = RecordSecrets(buyer_name="Land Transport Authority")
    assert kinds("Works for the LTA network.", lta) == ["buyer_name"]
    assert kinds("Works for the LTA.", lta) == ["buyer_name"]
    assert kinds("Supply of delta valves and Lta fittings.", lta) == []
    assert kinds("Supply of DELTA valves.", lta) == []
    dft = RecordSecrets(buyer_name="Department for Transport")
    assert kinds("A DfT framework.", dft) == ["buyer_name"]
    assert kinds("A DFT framework.", dft) == ["buyer_name"]
    assert kinds("A Dept. for Transport framework.", dft) == ["buyer_name"]
    # "City of Toronto" would be CT: a scanner, not the buyer.
    toronto = RecordSecrets(buyer_name="City of Toronto")
    assert kinds("Supply of CT scanners.", toronto) == []
    assert kinds("Supply of scanners for the city of toronto.", toronto) == ["buyer_name"]
    # "and" and "&" are the same; a leading "The" is optional.
    banes = RecordSecrets(buyer_name="The Bath and North East Somerset Council")
    assert kinds("Issued by Bath & North East Somerset Council.", banes) == ["buyer_name"]
    # A one-letter acronym is never matched.
    assert kinds("Supply of A4 paper.", RecordSecrets(buyer_name="Authority")) == []


def test_a_chinese_buyer_name_is_found_in_both_scripts():
    simplified = RecordSecrets(buyer_name="香港房屋委员会", market="HK")
    zh = "香港房屋委员会招标：屋邨清洁服务。"
    zht = "香港房屋委員會招標：屋邨清潔服務。"
    assert kinds(zh, simplified, "zh") == ["buyer_name"]
    assert kinds(zht, simplified, "zht") == ["buyer_name"]
    traditional = RecordSecrets(buyer_name="香港房屋委員會", market="HK")
    assert kinds(zh, traditional, "zh") == ["buyer_name"]
    assert kinds("房屋委员会辖下屋邨清洁服务。", simplified, "zh") == []


def test_a_deadline_is_found_on_its_local_date_too():
    # 2026-04-15 23:30 UTC is already 16 April in Hong Kong.
    hk = RecordSecrets(deadline=datetime(2026, 4, 15, 23, 30, tzinfo=UTC), market="HK")
    assert kinds("Closes 16 Apr 2026 in the evening.", hk) == ["deadline_date"]
    assert kinds("Closes 2026-04-15.", hk) == ["deadline_date"]
    assert kinds("Closes 16 April.", hk) == ["date"]  # no year: still an exact date
    plain_date = RecordSecrets(deadline=date(2026, 4, 15))
    assert kinds("截止日期：2026年04月15日", plain_date, "zh") == ["deadline_date"]


def test_amounts_are_matched_as_whole_numbers_only():
    secrets = RecordSecrets(amount=Decimal("24000"), currency="HKD")
    assert kinds("Contract term about 24 months; 240,000 users.", secrets) == []
    assert kinds("Estimated at 24,000 for the term.", secrets) == ["amount"]
    assert kinds("Estimated at 124,000 for the term.", secrets) == []
    # Small amounts are not distinctive enough to look for.
    assert kinds("Includes 500 licences.", RecordSecrets(amount=Decimal("500"))) == []


def test_the_source_brand_is_found_with_spaces_and_the_host_in_every_case():
    gb = RecordSecrets(source_url="https://www.contractsfinder.service.gov.uk/Notice/abc")
    assert kinds("As listed on Contracts Finder.", gb) == ["source_host"]
    assert kinds("As listed on CONTRACTSFINDER.SERVICE.GOV.UK", gb) == ["source_host"]
    ted = RecordSecrets(source_url="https://ted.europa.eu/udl?uri=TED:NOTICE:1")
    assert kinds("Published on TED this week.", ted) == ["source_host"]
    assert kinds("A talk by Ted about ted talks.", ted) == []


def test_contact_names_come_from_the_private_notice_text():
    record = SimpleNamespace(
        buyer_name="Devon County Council",
        reference="CP1093-14",
        source_url="",
        deadline=None,
        amount=None,
        currency="",
        market="GB",
        title="Superfast Extension Programme",
        description="Enquiries to Mr Iain Perkins, iain.perkins@devon.gov.uk or laura_stott@x.org",
    )
    secrets = RecordSecrets.of(record)
    assert secrets.contact_names == ("Iain Perkins", "Laura Stott")
    assert kinds("Questions go to Iain Perkins.", secrets) == ["contact_name"]
    assert kinds("Questions go to IAIN PERKINS.", secrets) == ["contact_name"]
    assert contact_names_in("Contact procurement@penrithcity.nsw.gov.au") == ()


# --- HTML, control characters and the cleaner ----------------------------------------------


def test_clean_text_strips_markup_entities_and_controls():
    raw = (
        '<p>&nbsp;<a name="_Toc281475711"></a><span>Objectives&nbsp;of Council</span></p>'
        "<br /><p><strong>Design</strong> &amp; build\r\n works\x00 \u200b</p><!-- note -->"
    )
    assert clean_text(raw) == "Objectives of Council Design & build works"
    assert clean_text("&lt;b&gt;bold&lt;/b&gt; text") == "bold text"
    assert clean_text("  两层\u3000社区 服务大楼 ") == "两层 社区 服务大楼"
    assert clean_text("") == ""


def test_cleaned_notices_have_no_markup_findings_and_cleaning_is_idempotent():
    for release in _ocds_releases("au-nsw-etendering"):
        raw = release["tender"].get("description") or ""
        assert "html" in kinds(raw)
        cleaned = clean_text(raw)
        assert clean_text(cleaned) == cleaned
        assert not {"html", "control_character"} & set(kinds(cleaned))


def test_fold_map_agrees_with_fold_on_every_corpus():
    texts = [r.get("tender", {}).get("description") or "" for r in _ocds_releases()]
    texts += [t.format("x") for t in TEMPLATES.values()] + [
        "Ｆｕｌｌ　ｗｉｄｔｈ",
        "Serviços de Saúde",
    ]
    for text in texts:
        folded, where = fold_map(text)
        assert folded == fold(text)
        assert len(where) == len(folded)


# --- real OCDS notices: every planted detail is found --------------------------------------


def _ocds_releases(*folders: str):
    for folder in folders or ("gb-contracts-finder", "au-nsw-etendering"):
        for path in sorted((OCDS / folder).glob("*.json")):
            document = json.loads(path.read_text())
            yield from document.get("releases", [document])


def _with_contact(release):
    contact = (release.get("buyer") or {}).get("contactPoint") or {}
    return bool(contact.get("email"))


def _record(release) -> SimpleNamespace:
    tender = release["tender"]
    contact = release["buyer"]["contactPoint"]
    value = tender.get("value") or {}
    # The raw notice as staff import it: title, description and the contact block.
    description = (
        f"{tender.get('description') or ''}\nContact: {contact.get('name')} "
        f"{contact['email']} {contact.get('telephone') or ''}"
    )
    return SimpleNamespace(
        buyer_name=release["buyer"]["name"],
        reference=tender["id"],
        source_url=(release.get("packageInfo") or {}).get("uri") or "",
        deadline=datetime.fromisoformat(tender["tenderPeriod"]["endDate"]),
        amount=Decimal(str(value["amount"])) if value.get("amount") else None,
        currency=value.get("currency") or "",
        market="GB" if release.get("language", "").startswith("en-GB") else "AU",
        title=tender["title"].strip(),
        description=description,
    )


def _planted_details(release, record) -> list[tuple[str, set[str]]]:
    contact = release["buyer"]["contactPoint"]
    details = [(contact["email"], {"email"}), (record.reference, {"reference"})]
    name = re.sub(r"^(Mr|Mrs|Ms|Dr)\s+", "", contact.get("name") or "")
    if name.title() in RecordSecrets.of(record).contact_names:
        details.append((name, {"contact_name"}))
    if record.buyer_name != "Spend Network":  # the publisher's name, not a buyer
        details += [
            (record.buyer_name, {"buyer_name"}),
            (record.buyer_name.upper(), {"buyer_name"}),
        ]
    for field in ("telephone", "mobile"):
        if number := (contact.get(field) or "").strip():
            details.append((f"phone {number}", {"phone"}))
    day = record.deadline.date()
    details.append((f"{day.day} {day:%B %Y}", {"deadline_date"}))
    details.append((f"{day.year}年{day.month}月{day.day}日", {"deadline_date"}))
    if record.amount:
        details.append((f"£{record.amount:,.0f}", {"amount", "money"}))
    return details


def test_every_planted_detail_of_the_real_notices_is_found():
    checked = 0
    for release in _ocds_releases():
        if not _with_contact(release):
            continue
        record = _record(release)
        secrets = RecordSecrets.of(record)
        for detail, expected in _planted_details(release, record):
            for lang in ("en", "zh", "zht"):
                hits = found(detail, lang, secrets)
                assert hits, (detail, lang)
                assert {f.kind for f in hits} <= expected | {"reference_like"}, (detail, hits)
                assert {f.kind for f in hits} & expected, (detail, lang, hits)
                checked += 1
    assert checked > 250


def test_contact_details_in_the_real_notice_texts_are_found():
    seen = 0
    for release in _ocds_releases("au-nsw-etendering"):
        texts = [release["tender"].get("description") or ""]
        texts += [release["tender"].get("submissionMethodDetails") or ""]
        texts += [release["tender"].get("addressForLodgement") or ""]
        for text in filter(None, map(clean_text, texts)):
            for email in re.findall(r"[\w.]+@[\w.]+\w", text):
                assert ("email", email) in spans(text), text
                seen += 1
            if "0416 123 462" in text:
                assert ("phone", "0416 123 462") in spans(text)
            if "1800 679 289" in text:
                assert ("phone", "1800 679 289") in spans(text)
    assert seen >= 1


def test_real_references_from_notice_titles_are_reference_like():
    titles = [r["tender"]["title"] for r in _ocds_releases()]
    codes = ["JL008", "AH009", "WCL026/2014", "P2014/156/EG", "CP1089-14", "CP1093-14"]
    for code in codes:
        title = next(t for t in titles if code in t)
        assert ("reference_like", code) in spans(clean_text(title)), title


# --- clean corpora: no finding at all ------------------------------------------------------

CLEAN_EN = [
    "Supply of 1,000 units of A4 paper and toner under a 3-year framework.",
    "Upgrade of Wi-Fi 6 access points and 5G small cells at 24 sites.",
    "ISO 9001 and ISO/IEC 27001 certification required; COVID-19 safe working plan.",
    "Construction of a 100-bed ward in a 2-storey extension, Phase 2 of 3.",
    "Provision of 24/7 CCTV monitoring and alarm response, Level 3 clearance.",
    "Lots 1 to 5 cover x86-64 servers, H.264 video encoders and 4K displays.",
    "Monitoring of PM2.5 and NO2 at 12 stations; IPv6 ready network.",
    "High voltage distribution above 600-Volt: installation and repair.",
    "Term contract of 36 months with an option to extend by 12 months.",
    "Suppliers may submit questions through the portal; e.g. on lots, i.e. scope.",
    "Covers the U.K. and the EU; St. John ambulance style first aid training.",
    "Tender documents are available after registration on the e-tendering portal.",
    "Catering for 2,500 meals a day across 8 sites, including 21st century kitchens.",
    "Cleaning of 40,000 m2 of office space; services.Info sessions are held online.",
    "CAD 3D modelling and AutoCAD 2024 licences for 30 engineers.",
    "Windows 11 laptops with 16 GB memory, 512 GB storage and a 3-year warranty.",
    "Grounds maintenance on a 7-day roster across 5 parks, 52 weeks a year.",
    "Maintenance of ASP.NET and VB.NET applications on Node.js front ends.",
    "CCTV 24/7 monitoring; HVAC works in 2026/27; a reference site visit in Q3.",
]
CLEAN_ZH = [
    "公开招标：供应1,000部手提电脑，合约期约24个月。",
    "采购5G网络设备及Wi-Fi 6无线接入点，涵盖12个地点。",
    "须持有ISO 9001认证；分为3个分标，适合中小型供应商。",
    "兴建两层社区服务大楼，第2期工程，约36个月完成。",
    "提供24小时闭路电视监察服务，包括12个月保养期。",
    "新冠病毒（COVID-19）防疫物资供应，以框架协议形式按需订购。",
]


def _corpus_en() -> list[str]:
    corpus = list(CLEAN_EN)
    for needs in NEEDS.values():
        corpus += [need for need, _ in needs]
    corpus += [p for p, _ in template_texts()] + [s for s, _ in SCOPES]
    # Canada's goods and services vocabulary (GSIN descriptions), without the codes.
    with gzip.open(OCDS / "ca-buyandsell-tenders-2014" / "tenders_releases.json.gz") as fh:
        releases = json.load(fh)["releases"]
    code = re.compile(r"\b[A-Z0-9]{2,9}: |\s*\(replaced by gsin \w+\)|\s*D302A\b")
    for release in releases:
        for item in release.get("tender", {}).get("items") or []:
            text = (item.get("classification") or {}).get("description") or ""
            corpus += [part.strip(" ,") for part in code.split(text) if part.strip(" ,")]
    # The CPV vocabulary of the UK notices.
    for release in _ocds_releases("gb-contracts-finder"):
        for item in release["tender"].get("items") or []:
            corpus.append(item["classification"]["description"])
    return sorted(set(corpus))


def _corpus_zh() -> list[str]:
    corpus = list(CLEAN_ZH)
    for needs in NEEDS.values():
        corpus += [need for _, need in needs]
    corpus += [p for _, p in template_texts()] + [s for _, s in SCOPES]
    return corpus


def test_generic_procurement_language_gives_no_finding():
    english = _corpus_en()
    assert len(english) > 1500
    # Secrets of a typical record are in force too: generic words must not look like them.
    secrets = SG
    noisy = {t: kinds(t, secrets) for t in english if kinds(t, secrets)}
    assert noisy == {}
    for text in _corpus_zh():
        assert kinds(text, secrets, "zh") == [], text
        assert kinds(to_traditional(text), secrets, "zht") == [], text


def test_an_empty_or_missing_summary_has_no_findings():
    assert scan({"en": "", "zh": None}, SG) == []
    assert scan({}, NO_SECRETS) == []


def test_secrets_of_a_lean_record_without_notice_text():
    # Publication may stream records without their raw title and description.
    lean = SimpleNamespace(
        buyer_name="NSW Health",
        reference="RFT-10013261",
        source_url="https://www.tenders.nsw.gov.au/x",
        deadline=datetime(2026, 4, 15, tzinfo=UTC),
        amount=None,
        currency="",
        market="AU",
    )
    secrets = RecordSecrets.of(lean)
    assert secrets.contact_names == ()
    assert secrets.buyer_name == "NSW Health" and secrets.market == "AU"
    assert kinds("Issued via tenders.nsw.gov.au for NSW Health.", secrets) == [
        "source_host",
        "buyer_name",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Obras para os Serviços de Saúde de Macau.",
        "Obras para os SERVICOS DE SAUDE DE MACAU.",
        "由 Ｓｅｒｖｉｃｏｓ ｄｅ Ｓａｕｄｅ ｄｅ Ｍａｃａｕ 负责。",
        "Obras\u00a0para\u00a0os Servicos-de-Saude-de-Macau.",
    ],
)
def test_accented_full_width_and_spaced_forms_of_a_buyer_name(text):
    secrets = RecordSecrets(buyer_name="Servicos de Saude de Macau", market="MO")
    assert kinds(text, secrets) == ["buyer_name"]

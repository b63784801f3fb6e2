"""The gate's second-edition rules, one class of issue #15 at a time: what is found (with what
kind and why) and what is not (technical text). Pure: no database."""

import pickle

import pytest

from tenders.sanitize import Allowance, Gate, NameEntry, RecordSecrets, allowance_problem
from tenders.sanitize.names import compile_patterns, stands_as_name
from tests.gate_corpus import directory_entries

GATE = Gate.of_names(directory_entries())
HK = RecordSecrets(market="HK")


def spans(text: str, gate: Gate = GATE, secrets: RecordSecrets = HK) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in gate.scan_text(text, "en", secrets)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Cleaning for 醫管局 clinics.", [("public_body", "醫管局")]),
        ("Cleaning for 医管局 clinics.", [("public_body", "医管局")]),
        ("由食环署负责。", [("public_body", "食环署")]),
        ("Works for HyD and ImmD.", [("public_body", "HyD"), ("public_body", "ImmD")]),
        ("Seized goods store for C&ED.", [("public_body", "C&ED")]),
        ("Issued by Govt. Logistics Dept. this week.", [("public_body", "Govt. Logistics Dept")]),
        ("Issued by DG DIGIT.", [("public_body", "DG DIGIT")]),
        ("Venue at Olympic Park Authority sites.", [("public_body", "Olympic Park Authority")]),
        ("Works in Canterbury Bankstown.", [("public_body", "Canterbury Bankstown")]),
        ("As seen on Tenders Electronic Daily.", [("source_name", "Tenders Electronic Daily")]),
        ("Listed on NSW eTendering.", [("source_name", "NSW eTendering")]),
        ("Questions to Peter Tan.", [("contact_person", "Peter Tan")]),
        ("查询：李小明。", [("contact_person", "李小明")]),
    ],
)
def test_directory_names_of_any_body_are_found(text, expected):
    assert spans(text) == expected


def test_each_finding_says_why():
    [finding] = GATE.scan_text("Cleaning for 醫管局 clinics.", "en", HK)
    assert finding.why == "short form of Hospital Authority (HK) in the directory"
    assert finding.describe() == (
        "public_body in summary_en: 'Cleaning for 醫管局 clinics.' "
        "(short form of Hospital Authority (HK) in the directory)"
    )
    [money] = GATE.scan_text("Budget four point two million dollars.", "en", HK)
    assert (money.kind, money.why) == ("money", "an amount written in words")


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Open tender issued by the HA.", True),
        ("Supplies for the HA's hospitals.", True),
        ("The HA invites tenders for linen.", True),
        ("为HA辖下医院提供清洁服务。", True),
        ("HA cluster with two database nodes.", False),
        ("Supply of HD cameras for the HA cluster.", False),
        ("Supply of HP LaserJet printers.", False),
        ("Laptops by HP.", False),
        ("CAD drawings and BIM models.", False),
        ("EPD for concrete products.", False),
        ("Covered by the WTO GPA.", False),
        ("Supply of CT scanners.", False),
        ("Prices in CAD 3D models.", False),
    ],
)
def test_ambiguous_abbreviations_count_only_where_they_stand_as_names(text, named):
    kinds = [kind for kind, _ in spans(text)]
    assert ("public_body" in kinds) is named, spans(text)


def test_stands_as_name_reads_the_words_around():
    text = "Issued by the GPA. Supply of desks."
    start = text.index("GPA")
    assert stands_as_name(text, start, start + 3, "GPA")
    text = "This procurement is covered by the GPA."
    start = text.index("GPA")
    assert not stands_as_name(text, start, start + 3, "GPA")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Budget HKD 1.2M.", "money"),
        ("Budget £2M.", "money"),
        ("About US$12M.", "money"),
        ("Small lot $5K.", "money"),
        ("Worth 1.2 million Hong Kong dollars.", "money"),
        ("Worth four point two million dollars.", "money"),
        ("预算一百二十三万元。", "money"),
        ("约新加坡元123万。", "money"),
        ("约澳门币45万。", "money"),
        ("Tenders close 4/12.", "date"),
        ("截标日期：18/12", "date"),
        ("Deadline 20261210.", "date"),
        ("Closing on December seventeenth.", "date"),
        ("See tender 124/2026.", "reference_like"),
        ("Quote notice 0458 in replies.", "reference_like"),
        ("Quote T41 in replies.", "reference_like"),
        ("Write to tenders at gld dot gov dot hk.", "email"),
        ("Write to ｐｒｏｃｕｒｅ＠ｆｅｈｄ．ｇｏｖ．ｈｋ today.", "email"),
        ("See gld dot gov dot hk.", "domain"),
        ("Call (613) 555-0142.", "phone"),
        ("Call 1800 NSW BUY.", "phone"),
        ("Ring 2877 6543 for details.", "phone"),
    ],
)
def test_issue_15_leaks_are_found(text, kind):
    assert [k for k, _ in spans(text)] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "R410A refrigerant, DN150 pipes, RS-485 links and MIL-STD-810H tablets.",
        "IEEE 802.11ax access points; IEC 62443-3-3 controllers; AS 2293.1-2018 lighting.",
        "GB50016-2014 fire code; A320neo parts; planning for FY2026/27.",
        "Rebar of 10/12/16 mm; UL 2900-2-1 devices; 60 000 000 litres of storage.",
        "Dr Martens safety boots and 女士制服.",
        "Monday.com and Draw.io licences.",
        "HP LaserJet toner; HD cameras; CAD drawings; EPD declarations; WTO GPA coverage.",
        "Contract term 2026-2027 for 5000-8000 users.",
        "Housing authority estates in several districts.",
    ],
)
def test_technical_text_gives_no_finding(text):
    assert spans(text) == []


def test_names_found_only_where_written_as_names():
    assert spans("Issued by the Housing Authority.") == [("public_body", "Housing Authority")]
    assert spans("Public housing authority estates.") == []


def test_imported_generic_names_are_ignored_but_curated_ones_kept():
    entries = [
        NameEntry("Corporate Services", "GB", "body", "full", "Corporate Services", False),
        NameEntry("National Highways", "GB", "body", "full", "National Highways", True),
    ]
    needles = {p.needle for p in compile_patterns(entries)}
    assert needles == {"national highways"}


def test_allowances_remove_only_what_they_cover():
    gate = Gate(
        GATE.patterns,
        allowances=[Allowance("public_body", "HyD Lane")],
        record_allowances={7: [Allowance("reference_like", "jl008")]},
    )
    text = "Parts JL008 and JL009 for HyD. Delivery to the HyD Lane depot."
    assert [(f.kind, text[f.start : f.end]) for f in gate.scan_text(text, "en", HK)] == [
        ("reference_like", "JL008"),
        ("reference_like", "JL009"),
        ("public_body", "HyD"),
    ]
    assert [(f.kind, text[f.start : f.end]) for f in gate.scan_text(text, "en", HK, record=7)] == [
        ("reference_like", "JL009"),
        ("public_body", "HyD"),
    ]


def test_some_findings_are_never_allowed_or_only_for_one_record():
    assert allowance_problem("email", "a@b.hk", everywhere=False).startswith("An e-mail")
    assert "this record only" in allowance_problem("buyer_name", "LTA", everywhere=True)
    assert allowance_problem("buyer_name", "LTA", everywhere=False) == ""
    assert allowance_problem("reference_like", "  ", everywhere=False).startswith("Give")


def test_a_gate_travels_to_worker_processes_without_its_automata():
    gate = Gate.of_names(directory_entries())
    assert gate.scan_text("By HyD.", "en", HK)
    copy = pickle.loads(pickle.dumps(gate))
    assert copy._matcher is None and copy.patterns == gate.patterns
    assert [f.kind for f in copy.scan_text("By HyD.", "en", HK)] == ["public_body"]

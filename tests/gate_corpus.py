"""The gate's own planted-secret suite and clean corpus (deterministic, no database).

``planted()``: a few hundred secrets of the classes issue #15 lists, written into summaries
the way a curator or a draft would, each with the private record it belongs to.
``clean_corpus()``: a thousand generic procurement summaries in English and Chinese, half with
technical codes (model numbers, standards, sizes, quantities), that must publish.

Used by tests/test_gate_suite.py (through the gate and through a real publication) and by
bench/gate_accuracy.py (which prints the rates).
"""

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace

from tenders.chinese import to_simplified, to_traditional
from tenders.sanitize import NameEntry, RecordSecrets
from tenders.sanitize.names import abbreviation_rule, seed_entries

DEADLINE = datetime(2026, 12, 17, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Planted:
    """One secret in one summary, and the private record it belongs to."""

    cls: str
    secret: str
    lang: str
    text: str
    buyer_name: str = "Harbour District Works Office"
    description: str = "Raw notice text."
    market: str = "HK"
    extra: dict = field(default_factory=dict, hash=False, compare=False)


# The private facts of every record of the suite (a planted item may change buyer, market and
# notice text); clean summaries are checked against them too.
PLAIN = RecordSecrets(
    buyer_name="Harbour District Works Office",
    reference="HDWO/T/2026/0001",
    source_url="https://procurement.example.gov.hk/notice/1234",
    deadline=DEADLINE,
    amount=Decimal("1000000"),
    currency="HKD",
    market="HK",
)


def record_secrets(item: Planted) -> RecordSecrets:
    """The secrets of the record an item is planted in (read from its notice, as the admin and
    publication read them)."""
    record = SimpleNamespace(**{**PLAIN.__dict__, "contact_names": None, "body_names": None})
    record.buyer_name, record.market = item.buyer_name, item.market
    record.title, record.description = "Supply of network switches", item.description
    return RecordSecrets.of(record)


# Names the importers put in the directory (people and a council the seed list lacks).
IMPORTED = [
    NameEntry("Peter Tan", "SG", "person", "full", "Peter Tan", False),
    NameEntry("李小明", "HK", "person", "full", "李小明", False),
    NameEntry("陈大文", "HK", "person", "full", "陈大文", False),
    NameEntry("Wong Siu Ming", "HK", "person", "full", "Wong Siu Ming", False),
    NameEntry("Camden Borough Council", "GB", "body", "full", "Camden Borough Council", False),
    NameEntry("Harbour District Works Office", "HK", "body", "full", "", False),
]


def directory_entries() -> list[NameEntry]:
    return [*seed_entries(), *IMPORTED]


EN = [
    "Open tender: cleaning services for {x} premises. Includes materials.",
    "{x} invites tenders for the supply of patient monitors.",
    "Supply of office furniture; issued by {x}. Framework of 24 months.",
    "Maintenance of lifts and escalators. Enquiries: {x}.",
    "Term contract for grounds maintenance, {x}, several sites.",
]
ZH = [
    "公开招标：{x}清洁服务，包括物料。",
    "{x}邀请投标，供应病人监察仪。",
    "办公室家具供应，由{x}负责。合约期24个月。",
    "升降机及扶手电梯保养。查询：{x}。",
]


def _plant(cls: str, secret: str, i: int, lang: str = "en", **record) -> Planted:
    if lang == "en":
        text = EN[i % len(EN)].format(x=secret)
    else:
        text = ZH[i % len(ZH)].format(x=secret)
        if lang == "zht":
            text = to_traditional(text.replace(secret, "\0")).replace("\0", secret)
    return Planted(cls, secret, lang, text, **record)


def _seed_names() -> list[tuple[str, NameEntry]]:
    return [(e.body, e) for e in seed_entries()]


def planted() -> list[Planted]:
    items: list[Planted] = []
    add = items.append
    # 1. Buyer names the record does not carry: other languages, short forms, abbreviations.
    for i, (body, entry) in enumerate(_seed_names()):
        if entry.kind != "body" or entry.name == body:
            continue
        cjk = any("\u4e00" <= c <= "\u9fff" for c in entry.name)
        if cjk and len(entry.name) < 3:
            continue
        if entry.form == "abbreviation" and (
            len(entry.name) < 3 or entry.name.isupper() or abbreviation_rule(entry.name) == "weak"
        ):
            # Short, all-capital or ordinary-term abbreviations: written where they stand as a
            # name.
            text = f"Open tender issued by the {entry.name}. Supply of patient monitors."
            add(Planted("abbreviation", entry.name, "en", text, buyer_name=body))
            continue
        lang = ("zh" if to_simplified(entry.name) == entry.name else "zht") if cjk else "en"
        add(_plant("other_name", entry.name, i, lang, buyer_name=body, market=entry.market))
    for i, short in enumerate(
        [
            "医管局",
            "醫管局",
            "食环署",
            "房委会",
            "市政署",
            "HyD",
            "ImmD",
            "C&ED",
            "ArchSD",
            "MOHH",
            "DG DIGIT",
            "TPSGC",
            "Govt Logistics Dept",
            "Govt. Logistics Dept.",
            "LandsD",
        ]
    ):
        lang = "en" if short.isascii() else "zh"
        add(_plant("short_form", short, i, lang, buyer_name="Spend Network"))
    # Partial names and a buyer field that holds the publisher.
    for i, part in enumerate(
        [
            "Olympic Park Authority",
            "Canterbury Bankstown",
            "Canterbury-Bankstown Council",
            "West Kowloon Cultural District Authority",
            "Trade Development Council",
        ]
    ):
        add(_plant("partial_name", part, i))
    for i, council in enumerate(
        [
            "Tunbridge Wells Borough Council",
            "Mid Devon District Council",
            "Shire of Esperance",
            "Wollondilly Shire Council",
            "Camden Borough Council",
            "Municipality of Sutton",
        ]
    ):
        add(
            _plant(
                "publisher_as_buyer",
                council,
                i,
                buyer_name="Spend Network",
                description=f"{council} invites tenders for the works described below.",
            )
        )
    # 2. Amounts.
    amounts = [
        "HKD 1.2M", "£2M", "US$12M", "$5K", "HK$850K", "S$3.4M", "€2.5m", "A$1.2bn",
        "1.2 million Hong Kong dollars", "four point two million dollars",
        "half a million euros", "twelve million Singapore dollars", "CAD 2.75M",
        "a budget of 4.2 million", "valued at 3.5m",
    ]  # fmt: skip
    for i, amount in enumerate(amounts):
        add(_plant("money", amount, i))
    for i, amount in enumerate(
        [
            "一百二十三万元",
            "新加坡元123万",
            "澳门币45万",
            "港币一百万",
            "预算约500万",
            "港元3,500,000",
            "人民币八十万元",
            "澳門幣45萬",
            "金额：120万",
        ]
    ):
        add(_plant("money", amount, i, "zh" if to_simplified(amount) == amount else "zht"))
    # 3. Dates without a year or in words.
    for i, date in enumerate(
        [
            "close 4/12",
            "closing 17/12",
            "Deadline 20261210",
            "December seventeenth",
            "the seventeenth of December",
            "due by 17.12",
            "submit before 4-12",
            "17 Dec",
            "December 17",
            "closes on 4/12",
        ]
    ):
        add(_plant("date", date, i))
    for i, date in enumerate(
        ["截标日期：18/12", "截止日期为12月18", "12月18日截标", "十二月十八日"]
    ):
        add(_plant("date", date, i, "zh"))
    # 4. References with a label and no letters (or few).
    for i, ref in enumerate(
        [
            "tender 124/2026",
            "notice 0458",
            "Quote T41",
            "Tender No. 4471",
            "RFQ 0192",
            "contract 2026/117",
            "file 12-345",
            "Ref: 17/2026",
            "quotation 00871",
            "bid 7782-B",
        ]
    ):
        add(_plant("reference", ref, i))
    for i, ref in enumerate(["招标编号：124/2026", "第124/2026号", "合约编号 0458"]):
        add(_plant("reference", ref, i, "zh"))
    # 5. Contacts: obfuscated, full-width, North American, spelled with letters, local.
    for i, contact in enumerate(
        [
            "tenders at gld dot gov dot hk",
            "gld dot gov dot hk",
            "procure (at) fehd (dot) gov",
            "ｐｒｏｃｕｒｅ＠ｆｅｈｄ．ｇｏｖ．ｈｋ",
            "(613) 555-0142",
            "613-555-0198",
            "1800 NSW BUY",
            "2877 6543",
            "28776543",
            "6123 4567",
            "call 9876 5432",
            "+1 416 555 0101",
            "buyer @ council . gov . uk",
            "jane.doe[at]leeds[dot]gov[dot]uk",
        ]
    ):
        add(_plant("contact", contact, i))
    add(_plant("contact", "电话：2877 6543", 1, "zh"))
    # 6. Sources and portals.
    for i, source in enumerate(
        [
            "Tenders Electronic Daily",
            "NSW eTendering",
            "TED",
            "Contracts Finder",
            "GeBIZ",
            "AusTender",
            "CanadaBuys",
            "Find a Tender",
            "MERX",
            "Public Contracts Scotland",
        ]
    ):
        add(_plant("source", source, i))
    # 7. Contact names without an honorific or an e-mail.
    for i, (name, description) in enumerate(
        [
            ("Peter Tan", "Contact: Peter Tan, tel 6123 4567"),
            ("Mary Wong", "Contact person: Mary Wong"),
            ("Kenneth Lau", "Enquiries - Kenneth Lau"),
            ("Siti Rahman", "Officer in charge: Siti Rahman"),
            ("Graham Pike", "Contact: Graham Pike (procurement)"),
        ]
    ):
        add(_plant("contact_name", name, i, description=description))
    for i, (name, description) in enumerate(
        [
            ("李小明", "联系人：李小明，电话 2123 4567"),
            ("陈大文", "聯絡人：陈大文"),
            ("黄志强", "联系人：黄志强"),
        ]
    ):
        add(_plant("contact_name", name, i, "zh", description=description))
    add(_plant("contact_name", "Wong Siu Ming", 2))
    return items


# --- the clean corpus ----------------------------------------------------------------------

ITEMS_EN = [
    "patient monitors", "LED street lights", "network switches", "school furniture",
    "refuse collection vehicles", "laboratory reagents", "cloud hosting", "CCTV cameras",
    "air-conditioning units", "water pumps", "office paper", "fire extinguishers",
    "security guarding", "cleaning services", "legal advisory services", "road resurfacing",
]  # fmt: skip
ITEMS_ZH = [
    "病人监察仪", "LED街灯", "网络交换器", "学校家具", "垃圾收集车", "化验试剂", "云端托管",
    "闭路电视摄影机", "空调机组", "水泵", "办公室用纸", "灭火筒", "保安服务", "清洁服务",
]  # fmt: skip
CODES = [
    "R410A refrigerant", "DN150 pipes", "RS-485 interface", "MIL-STD-810H rugged tablets",
    "IEEE 802.11ax access points", "IEC 62443-3-3 compliant controllers",
    "AS 2293.1-2018 emergency lighting", "GB50016-2014 fire code", "A320neo spare parts",
    "budget planning for FY2026/27", "10/12/16 mm rebar", "UL 2900-2-1 certified devices",
    "60 000 000 litres of storage", "Dr Martens safety boots", "Monday.com licences",
    "Draw.io diagrams", "HP LaserJet printers", "HD cameras", "CAD drawings",
    "EPD declarations for concrete", "WTO GPA coverage", "ISO 9001:2015 certification",
    "IP65 enclosures", "Cat6A cabling", "M12 bolts", "PM2.5 sensors", "5G small cells",
    "H.264 encoders", "x86-64 servers", "USB-C docks", "DDR5 memory", "PCIe 4.0 storage",
    "Euro 6 engines", "B777-300ER tooling", "R-32 heat pumps", "SS 554 indoor air quality",
    "BS EN 1090-2 steelwork", "ASTM A36 plates", "NFPA 72 alarms", "EN 54-11 call points",
    "HA cluster for the database", "PA system with 40 speakers", "CT scanners",
    "1,200 units", "3 x 500 kVA transformers", "24/7 support", "Q3-2026 delivery window",
    "SFP+ modules", "DN100 PN16 valves", "Class 2 lasers", "T8 LED tubes",
]  # fmt: skip
CODES_ZH = [
    "R410A冷媒", "DN150管道", "RS-485接口", "IEEE 802.11ax无线接入点", "GB50016-2014防火规范",
    "10/12/16 mm钢筋", "60 000 000公升储水", "女士制服", "HP LaserJet打印机", "HD摄像机",
    "CAD绘图软件", "ISO 9001认证", "IP65外壳", "Cat6A线缆", "PM2.5感应器", "5G小型基站",
]  # fmt: skip
OPENERS_EN = [
    "Open tender for the supply of {item}",
    "Framework agreement for {item}",
    "Request for proposals: {item}",
    "Term contract covering {item}",
    "Restricted procedure for {item}",
]
CLOSERS_EN = [
    "Includes delivery, installation and commissioning.",
    "Divided into lots suitable for smaller suppliers.",
    "Contract term about 36 months with an option to extend.",
    "Covers several sites within the region.",
    "Includes training for user staff and a warranty period.",
]
OPENERS_ZH = ["公开招标：供应{item}", "框架协议：{item}", "征求建议书：{item}", "定期合约：{item}"]
CLOSERS_ZH = [
    "包括交付、安装及调试。",
    "分为适合中小型供应商的分标。",
    "合约期约36个月。",
    "涵盖区内多个地点。",
]


def clean_corpus(count: int = 1000, seed: int = 15) -> list[tuple[str, str, bool]]:
    """``count`` clean summaries as (lang, text, technical): half English, half Chinese (in both
    scripts), half of each with a technical code."""
    rng = random.Random(seed)
    corpus = []
    for n in range(count):
        technical = n % 2 == 1
        if n % 4 < 2:
            item = rng.choice(ITEMS_EN)
            text = rng.choice(OPENERS_EN).format(item=item)
            if technical:
                text += f", with {rng.choice(CODES)}"
            corpus.append(("en", f"{text}. {rng.choice(CLOSERS_EN)}", technical))
        else:
            item = rng.choice(ITEMS_ZH)
            text = rng.choice(OPENERS_ZH).format(item=item)
            if technical:
                text += f"，包括{rng.choice(CODES_ZH)}"
            text = f"{text}。{rng.choice(CLOSERS_ZH)}"
            lang = "zh" if n % 8 < 4 else "zht"
            corpus.append((lang, text if lang == "zh" else to_traditional(text), technical))
    return corpus

"""Synthetic source records for the demo and for load tests. Pure: no database.

Records look like the real thing on the private side (plausible buyers, references in each
market's style, exact deadlines and amounts, raw descriptions with contact e-mails) and carry
curated trilingual summaries in generic procurement language on the public side. Every id is
``AT-TEST-``. The same seed and reference time always give the same records.

A small share is left as drafts, some are withheld by staff, and about one approved record in
a hundred has a curator's slip planted in its English summary (the buyer's name or an e-mail
address) so the demo shows the publication gate at work.
"""

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from . import ids
from .markets import MARKETS
from .vocabulary.summaries import Facts, build

# The concept (CPV code) of each need below, in the same order: the public summaries are built
# from its labels (``vocabulary.summaries``), the need itself stays in the private title.
CONCEPTS: dict[str, tuple[str, str, str]] = {
    "construction-works": ("45210000", "45214200", "45453100"),
    "civil-engineering": ("45233142", "45221113", "45262620"),
    "building-maintenance": ("50750000", "45261420", "50730000"),
    "architecture-engineering-design": ("71220000", "71312000", "71321000"),
    "facilities-management": ("79993000", "70330000", "77314000"),
    "cleaning-hygiene": ("90911200", "90922000", "90910000"),
    "security-services": ("79713000", "79714000", "79952000"),
    "it-hardware": ("30213000", "32420000", "48820000"),
    "software-it-services": ("72212000", "72415000", "72800000"),
    "telecommunications": ("64212000", "32412000", "32552000"),
    "medical-supplies": ("33195000", "33141420", "33112200"),
    "pharmaceuticals": ("33651600", "33651100", "33652100"),
    "laboratory-scientific": ("38434000", "38900000", "38433100"),
    "consulting-professional": ("79411000", "79140000", "79212000"),
    "financial-insurance": ("66518100", "66110000", "66600000"),
    "transport-logistics": ("60130000", "63120000", "64120000"),
    "vehicles-fleet": ("34144900", "50110000", "34144510"),
    "energy-utilities": ("09310000", "09331200", "34993000"),
    "environmental-waste": ("90511000", "90524000", "90731000"),
    "education-training": ("80532000", "80580000", "80420000"),
    "office-supplies-furniture": ("39130000", "30190000", "30232110"),
    "food-catering": ("55320000", "55321000", "15300000"),
    "marketing-communications": ("79341000", "72413000", "79530000"),
}
# (slug -> [(english need, simplified chinese need), ...])
NEEDS: dict[str, list[tuple[str, str]]] = {
    "construction-works": [
        ("Construction of a two-storey community services building", "兴建两层社区服务大楼"),
        ("Extension works to a primary school campus", "小学校舍扩建工程"),
        ("Interior refurbishment of a public library", "公共图书馆室内翻新工程"),
    ],
    "civil-engineering": [
        ("Road resurfacing and drainage improvement works", "道路重铺及排水改善工程"),
        ("Replacement of a footbridge over an arterial road", "更换主干道行人天桥工程"),
        ("Slope stabilisation and retaining wall works", "斜坡加固及挡土墙工程"),
    ],
    "building-maintenance": [
        ("Term contract for lift and escalator maintenance", "升降机及扶手电梯保养定期合约"),
        ("Roof waterproofing and facade repair", "屋顶防水及外墙维修"),
        ("Servicing of air-conditioning systems at several sites", "多个场地空调系统保养服务"),
    ],
    "architecture-engineering-design": [
        ("Architectural design services for a new sports centre", "新体育中心建筑设计服务"),
        ("Structural engineering review of existing bridges", "现有桥梁结构工程检讨"),
        ("Building services design for a hospital extension", "医院扩建部分屋宇装备设计"),
    ],
    "facilities-management": [
        ("Integrated facilities management for office premises", "办公楼宇综合设施管理"),
        ("Property management services for public housing estates", "公共屋邨物业管理服务"),
        ("Grounds maintenance and landscaping services", "园地保养及园林绿化服务"),
    ],
    "cleaning-hygiene": [
        ("Cleaning services for government offices", "政府办公室清洁服务"),
        ("Pest control services for public markets", "公众街市防治虫鼠服务"),
        ("Environmental cleaning and disinfection for hospitals", "医院环境清洁及消毒服务"),
    ],
    "security-services": [
        ("Manned guarding services for public buildings", "公共建筑物驻场保安服务"),
        ("CCTV monitoring and alarm response services", "闭路电视监察及警报响应服务"),
        ("Event security for public festivals", "公众节庆活动保安服务"),
    ],
    "it-hardware": [
        ("Supply of laptop and desktop computers", "供应手提电脑及台式电脑"),
        ("Network switches and wireless access points", "网络交换器及无线接入点"),
        ("Data centre servers and storage arrays", "数据中心服务器及存储设备"),
    ],
    "software-it-services": [
        ("Development of a case management system", "开发个案管理系统"),
        ("Cloud hosting and managed services", "云端托管及管理服务"),
        ("Cybersecurity assessment and penetration testing", "网络安全评估及渗透测试"),
    ],
    "telecommunications": [
        ("Mobile voice and data services", "流动语音及数据服务"),
        ("Fibre connectivity between district offices", "地区办事处之间的光纤连接"),
        ("Upgrade of unified communications and telephony", "统一通讯及电话系统升级"),
    ],
    "medical-supplies": [
        ("Supply of patient monitors", "供应病人监察仪"),
        ("Disposable surgical gloves and gowns", "即弃外科手套及保护衣"),
        ("Diagnostic ultrasound systems", "诊断超声波系统"),
    ],
    "pharmaceuticals": [
        ("Supply of seasonal influenza vaccines", "供应季节性流感疫苗"),
        ("Framework for generic antibiotics", "非专利抗生素框架协议"),
        ("Supply of oncology medicines", "供应肿瘤科药物"),
    ],
    "laboratory-scientific": [
        ("Laboratory analysers and reagents", "化验分析仪及试剂"),
        ("Environmental monitoring instruments", "环境监测仪器"),
        ("Mass spectrometry equipment", "质谱分析设备"),
    ],
    "consulting-professional": [
        ("Management consultancy for a service review", "服务检讨管理顾问服务"),
        ("Legal advisory services", "法律顾问服务"),
        ("Independent audit services", "独立审计服务"),
    ],
    "financial-insurance": [
        ("Insurance brokerage for public assets", "公共资产保险经纪服务"),
        ("Banking and payment services", "银行及支付服务"),
        ("Actuarial review services", "精算检讨服务"),
    ],
    "transport-logistics": [
        ("School bus transport services", "学童巴士接载服务"),
        ("Warehousing and distribution of supplies", "物资仓储及配送服务"),
        ("Courier and mailroom services", "速递及收发室服务"),
    ],
    "vehicles-fleet": [
        ("Supply of electric light goods vehicles", "供应电动轻型货车"),
        ("Fleet maintenance and repair", "车队保养及维修服务"),
        ("Refuse collection vehicles", "垃圾收集车"),
    ],
    "energy-utilities": [
        ("Supply of electricity to public facilities", "公共设施电力供应"),
        ("Rooftop solar photovoltaic installations", "屋顶太阳能光伏系统安装"),
        ("Energy efficiency retrofit of street lighting", "街灯节能改造工程"),
    ],
    "environmental-waste": [
        ("Collection and recycling of municipal waste", "都市固体废物收集及回收"),
        ("Hazardous waste disposal services", "危险废物处置服务"),
        ("Operation of an air quality monitoring network", "空气质素监测网络营运"),
    ],
    "education-training": [
        ("Leadership training programme for managers", "管理人员领导力培训课程"),
        ("Language courses for front-line staff", "前线员工语言课程"),
        ("Development of e-learning content", "电子学习内容开发"),
    ],
    "office-supplies-furniture": [
        ("Office furniture for a new headquarters", "新总部办公室家具"),
        ("Framework for stationery and paper supplies", "文具及纸品供应框架协议"),
        ("Multifunction printers with servicing", "多功能打印机及保养服务"),
    ],
    "food-catering": [
        ("Catering services for staff canteens", "职员餐厅膳食服务"),
        ("Meal supply for elderly care homes", "安老院舍膳食供应"),
        ("Fresh produce supply for hospitals", "医院新鲜食品供应"),
    ],
    "marketing-communications": [
        ("Production of a public awareness campaign", "公众教育宣传活动制作"),
        ("Website content and social media management", "网站内容及社交媒体管理"),
        ("Translation and interpretation services", "翻译及传译服务"),
    ],
}

SCOPES = [
    ("Includes delivery, installation and commissioning", "包括交付、安装及调试"),
    ("Includes a warranty and maintenance period", "包括保用及维修保养期"),
    ("Covers several sites within the region", "涵盖区内多个地点"),
    ("Framework agreement with call-off orders", "以框架协议形式按需订购"),
    ("A single supplier will be appointed", "将委聘单一供应商"),
    ("Divided into lots suitable for smaller suppliers", "分为适合中小型供应商的分标"),
    ("Includes training for user staff", "包括为使用者员工提供培训"),
]
TERMS = (12, 18, 24, 36, 48, 60)
LOTS = (0, 0, 0, 2, 3, 5)
DEMO_PROCEDURES = ("open", "open", "selective", "limited", "negotiated")
BUYER_KINDS = ("", "", "cga", "la", "body-pl")

# Per market: plausible buyers, a reference maker, and the source site's host.
BUYERS = {
    "HK": [
        "Architectural Services Department",
        "Drainage Services Department",
        "Hospital Authority",
        "Leisure and Cultural Services Department",
    ],
    "MO": [
        "Instituto para os Assuntos Municipais",
        "Servicos de Saude de Macau",
        "Direccao dos Servicos de Obras Publicas",
    ],
    "SG": [
        "Land Transport Authority",
        "National Environment Agency",
        "Ministry of Health Holdings",
        "Housing and Development Board",
    ],
    "GB": [
        "Leeds City Council",
        "NHS Supply Chain",
        "Department for Transport",
        "Bristol City Council",
    ],
    "EU": ["European Commission DG DIGIT", "European Medicines Agency", "European Investment Bank"],
    "AU": ["NSW Health", "Transport for NSW", "City of Melbourne", "Queensland Health"],
    "CA": [
        "Public Services and Procurement Canada",
        "City of Toronto",
        "Health Canada",
        "BC Transit",
    ],
}
HOSTS = {
    "HK": "www.tender.gov.hk",
    "MO": "www.io.gov.mo",
    "SG": "www.gebiz.gov.sg",
    "GB": "www.contractsfinder.service.gov.uk",
    "EU": "ted.europa.eu",
    "AU": "www.tenders.nsw.gov.au",
    "CA": "canadabuys.canada.ca",
}
STAFF_WITHHELD_REASONS = [
    "Duplicate of another listing",
    "Buyer asked for the notice not to be redistributed",
    "Notice cancelled by the buyer",
]


def _reference(market: str, rng: random.Random, year: int) -> str:
    n = rng.randrange(10_000, 99_999)
    return {
        "HK": f"ArchSD/T/{year}/{n:05d}",
        "MO": f"{n % 99}/{year}/DSOP",
        "SG": f"LTA000ETT{year % 100}{n:06d}",
        "GB": f"CF-{n:05d}-{year}",
        "EU": f"{year}/S {n % 250:03d}-{rng.randrange(100_000, 999_999)}",
        "AU": f"RFT-{year % 100}-{n:05d}",
        "CA": f"PW-{year % 100}-{rng.randrange(10**7, 10**8)}",
    }[market]


@dataclass(frozen=True)
class DemoRecord:
    listing_id: str
    market: str
    category_slug: str
    buyer_name: str
    reference: str
    source_url: str
    deadline: datetime
    amount: Decimal | None
    currency: str
    title: str
    description: str
    summary_en: str
    summary_zh: str
    summary_zht: str
    concepts: tuple[str, ...]
    lead_ok: bool
    status: str
    withheld_reason: str


def demo_records(count: int, *, seed: int, at: datetime) -> Iterator[DemoRecord]:
    """``count`` synthetic records, the same for the same ``seed`` and ``at``."""
    rng = random.Random(seed)
    seen: set[str] = set()
    markets = list(MARKETS.values())
    slugs = list(NEEDS)
    for _ in range(count):
        listing_id = ids.new_listing_id(synthetic=True, rng=rng)
        while listing_id in seen:
            listing_id = ids.new_listing_id(synthetic=True, rng=rng)
        seen.add(listing_id)
        market = rng.choice(markets)
        slug = rng.choice(slugs)
        which = rng.randrange(len(NEEDS[slug]))
        need_en, need_zh = NEEDS[slug][which]
        scope_en, _ = rng.choice(SCOPES)
        term = rng.choice(TERMS)
        facts = Facts(
            market=market.code,
            concepts=(CONCEPTS[slug][which],),
            framework=rng.random() < 0.15,
            lots=rng.choice(LOTS),
            duration_months=term,
            procedure=rng.choice(DEMO_PROCEDURES),
            buyer_kind=rng.choice(BUYER_KINDS),
        )
        buyer = rng.choice(BUYERS[market.code])
        host = HOSTS[market.code]
        deadline = (at + timedelta(minutes=rng.randrange(-20 * 1440, 100 * 1440))).replace(
            second=0, microsecond=0
        )
        amount = None
        currency = ""
        if rng.random() < 0.8:
            amount = Decimal(round(10 ** rng.uniform(4.3, 8.2), -3))
            currency = market.currency
        summaries = build(facts)
        summary_en = summaries["en"]
        roll = rng.random()
        status, reason = "approved", ""
        if roll < 0.10:
            status = "draft"
        elif roll < 0.15:
            status, reason = "withheld", rng.choice(STAFF_WITHHELD_REASONS)
        elif roll < 0.16:
            summary_en += rng.choice(
                [f" Enquiries to {buyer}.", f" Contact tenders@{host.removeprefix('www.')}."]
            )
        reference = _reference(market.code, rng, at.year)
        yield DemoRecord(
            listing_id=listing_id,
            market=market.code,
            category_slug=slug,
            buyer_name=buyer,
            reference=reference,
            source_url=f"https://{host}/notice/{rng.randrange(10**6, 10**7)}",
            deadline=deadline,
            amount=amount,
            currency=currency,
            title=f"{need_en} ({reference})",
            description=(
                f"{buyer} invites tenders: {need_en.lower()}. {scope_en}. "
                + (f"{need_zh}。" if market.code in ("HK", "MO") else "")
                + f"Enquiries: procurement@{host.removeprefix('www.')}"
            ),
            summary_en=summary_en,
            summary_zh=summaries["zh"],
            summary_zht=summaries["zht"],
            concepts=facts.concepts,
            lead_ok=rng.random() < 0.85,
            status=status,
            withheld_reason=reason,
        )

"""Which of our categories a notice is in. Pure: codes and words in, a category slug out.

In order: the notice's classification codes (CPV groups then divisions, UNSPSC families then
segments, Canada's GSIN groups), then keywords of the title and the classifications' own
descriptions, then the notice's procurement category (works, goods, services). The first that
answers wins; ``classify`` also says how it decided, so a curator knows which to check.
"""

import re
from collections.abc import Iterable

# CPV (Common Procurement Vocabulary, EU and UK): 3-digit groups first, then 2-digit divisions.
CPV_GROUPS = {
    "301": "office-supplies-furniture", "302": "it-hardware", "336": "pharmaceuticals",
    "398": "cleaning-hygiene", "452": "civil-engineering", "453": "building-maintenance",
    "454": "building-maintenance", "501": "vehicles-fleet", "503": "telecommunications",
    "641": "transport-logistics", "716": "laboratory-scientific", "773": "facilities-management",
    "791": "consulting-professional", "792": "financial-insurance",
    "793": "marketing-communications", "797": "security-services",
    "798": "marketing-communications", "799": "consulting-professional",
    "909": "cleaning-hygiene",
}  # fmt: skip
CPV_DIVISIONS = {
    "03": "food-catering", "09": "energy-utilities", "15": "food-catering",
    "22": "marketing-communications", "24": "laboratory-scientific", "30": "it-hardware",
    "31": "energy-utilities", "32": "telecommunications", "33": "medical-supplies",
    "34": "vehicles-fleet", "35": "security-services", "38": "laboratory-scientific",
    "39": "office-supplies-furniture", "41": "energy-utilities", "44": "construction-works",
    "45": "construction-works", "48": "software-it-services", "50": "building-maintenance",
    "51": "building-maintenance", "55": "food-catering", "60": "transport-logistics",
    "63": "transport-logistics", "64": "telecommunications", "65": "energy-utilities",
    "66": "financial-insurance", "70": "facilities-management",
    "71": "architecture-engineering-design", "72": "software-it-services",
    "73": "consulting-professional", "75": "consulting-professional", "76": "energy-utilities",
    "77": "environmental-waste", "79": "consulting-professional", "80": "education-training",
    "90": "environmental-waste",
}  # fmt: skip

# UNSPSC (Australia and others): 4-digit families first, then 2-digit segments.
UNSPSC_FAMILIES = {
    "4322": "telecommunications", "4323": "software-it-services",
    "7210": "building-maintenance", "7214": "civil-engineering",
    "7215": "building-maintenance", "8014": "marketing-communications",
    "8111": "software-it-services", "8116": "software-it-services",
    "8311": "telecommunications",
}  # fmt: skip
UNSPSC_SEGMENTS = {
    "12": "laboratory-scientific", "14": "office-supplies-furniture", "15": "energy-utilities",
    "22": "construction-works", "24": "transport-logistics", "25": "vehicles-fleet",
    "26": "energy-utilities", "30": "construction-works", "32": "it-hardware",
    "39": "energy-utilities", "40": "building-maintenance", "41": "laboratory-scientific",
    "42": "medical-supplies", "43": "it-hardware", "44": "office-supplies-furniture",
    "45": "marketing-communications", "46": "security-services", "47": "cleaning-hygiene",
    "50": "food-catering", "51": "pharmaceuticals", "55": "marketing-communications",
    "56": "office-supplies-furniture", "60": "education-training", "70": "environmental-waste",
    "71": "energy-utilities", "72": "construction-works", "76": "cleaning-hygiene",
    "77": "environmental-waste", "78": "transport-logistics", "80": "consulting-professional",
    "81": "architecture-engineering-design", "82": "marketing-communications",
    "83": "energy-utilities", "84": "financial-insurance", "86": "education-training",
    "90": "food-catering", "92": "security-services", "93": "consulting-professional",
    "95": "facilities-management",
}  # fmt: skip

# GSIN (Canada): services by their letter; goods (N + a federal supply class) and
# construction (51xx) by their first digits.
GSIN_SERVICES = {
    "A": "consulting-professional", "B": "consulting-professional",
    "C": "architecture-engineering-design", "D": "software-it-services",
    "E": "environmental-waste", "F": "environmental-waste", "H": "laboratory-scientific",
    "J": "building-maintenance", "K": "facilities-management", "L": "financial-insurance",
    "M": "facilities-management", "R": "consulting-professional", "S": "energy-utilities",
    "T": "marketing-communications", "U": "education-training", "V": "transport-logistics",
    "X": "facilities-management",
}  # fmt: skip
GSIN_GOODS = {
    "7030": "software-it-services", "6505": "pharmaceuticals", "5131": "civil-engineering",
    "5132": "civil-engineering", "5133": "civil-engineering",
    "51": "construction-works", "23": "vehicles-fleet", "25": "vehicles-fleet",
    "41": "building-maintenance", "45": "building-maintenance", "54": "construction-works",
    "56": "construction-works", "58": "telecommunications", "59": "it-hardware",
    "61": "energy-utilities", "62": "energy-utilities", "63": "security-services",
    "65": "medical-supplies", "66": "laboratory-scientific", "70": "it-hardware",
    "71": "office-supplies-furniture", "74": "office-supplies-furniture",
    "75": "office-supplies-furniture", "79": "cleaning-hygiene", "89": "food-catering",
    "91": "energy-utilities",
}  # fmt: skip

# Words of a title or a classification's description (English, and Chinese for HK and MO).
KEYWORDS = {
    "cleaning-hygiene": "cleaning janitorial hygiene pest disinfection 清潔 清洁 潔淨 滅蟲",
    "security-services": "security guarding guard cctv alarm 保安 護衛",
    "civil-engineering": "road roads bridge bridges highway drainage seawall wharf tunnel railway "
    "footbridge slope sewer 道路 橋 桥 渠務 隧道",
    "building-maintenance": "maintenance repair repairs lift escalator air-conditioning hvac "
    "plumbing roofing waterproofing 維修 维修 保養 保养",
    "architecture-engineering-design": "architectural architect design engineering surveying "
    "survey 設計 设计 測量",
    "facilities-management": "facilities property leasing lease landscaping grounds 物業 物业",
    "it-hardware": "computer computers laptop laptops server servers hardware printers 電腦 电脑",
    "software-it-services": "software informatics system systems cloud website application "
    "digital data 軟件 软件 系統 系统",
    "telecommunications": "telecommunications telecom telephony mobile radio broadband 電訊 电讯",
    "medical-supplies": "medical surgical patient hospital clinical diagnostic dental 醫療 医疗",
    "pharmaceuticals": "pharmaceutical pharmaceuticals drug drugs medicines vaccine vaccines 藥 药",
    "laboratory-scientific": "laboratory scientific analyser analysers testing 實驗室 化驗",
    "consulting-professional": "consultancy consulting consultant advisory study studies "
    "research audit legal evaluation 顧問 顾问 研究",
    "financial-insurance": "insurance banking financial investment actuarial 保險 保险 金融",
    "transport-logistics": "transport transportation logistics courier removal bus freight "
    "warehousing relocation 運輸 运输 物流",
    "vehicles-fleet": "vehicle vehicles truck trucks car cars fleet 車輛 车辆",
    "energy-utilities": "electricity energy fuel solar utilities lighting 能源 電力 电力",
    "environmental-waste": "waste recycling environmental sewage remediation contaminated "
    "forestry fisheries 廢物 废物 環境 环境",
    "education-training": "training education course courses school learning tuition "
    "language 培訓 培训 教育",
    "office-supplies-furniture": "furniture stationery office supplies paper 傢俬 家具 文具",
    "food-catering": "food catering meals canteen kitchen 食品 膳食 餐飲",
    "marketing-communications": "marketing advertising communications printing publicity "
    "events exhibition media 宣傳 宣传 廣告 广告",
    "construction-works": "construction build building works refurbishment renovation "
    "fit-out extension 建造 建築 建筑",
}
_WORD_RE = re.compile(r"[a-z][a-z-]*|[\u3400-\u9fff]")
KEYWORD_SETS = {slug: frozenset(words.split()) for slug, words in KEYWORDS.items()}

NATURE = {
    "works": "construction-works",
    "goods": "office-supplies-furniture",
    "supplies": "office-supplies-furniture",
    "services": "consulting-professional",
}
DEFAULT = "consulting-professional"


def _digits(code: str) -> str:
    return re.sub(r"\D", "", code)


def _by_code(scheme: str, code: str) -> str | None:
    scheme = scheme.upper()
    if scheme == "CPV":
        digits = _digits(code)
        return CPV_GROUPS.get(digits[:3]) or CPV_DIVISIONS.get(digits[:2])
    if scheme == "UNSPSC":
        digits = _digits(code)
        return UNSPSC_FAMILIES.get(digits[:4]) or UNSPSC_SEGMENTS.get(digits[:2])
    if scheme == "GSIN":
        code = code.strip().upper()
        if not code:
            return None
        if code[0] == "N" or code[0].isdigit():
            digits = code.lstrip("N")
            return GSIN_GOODS.get(digits[:4]) or GSIN_GOODS.get(digits[:2])
        return GSIN_SERVICES.get(code[0])
    return None


def _by_words(text: str) -> str | None:
    words = set(_WORD_RE.findall(text.lower()))
    chinese = {c for c in text if "\u3400" <= c <= "\u9fff"}
    best, score = None, 0
    for slug, keywords in KEYWORD_SETS.items():
        hits = len(words & keywords) + len(chinese & keywords)
        hits += sum(1 for k in keywords if len(k) > 1 and not k.isascii() and k in text)
        if hits > score:
            best, score = slug, hits
    return best


def gsin_code(code: str, description: str) -> str:
    """A GSIN code, from its own field or the start of its description ("F029: ...")."""
    if code:
        return code
    head = description.split(":", 1)[0].strip()
    return head if head and " " not in head else ""


def classify(
    classifications: Iterable[tuple[str, str, str]], *, words: str = "", nature: str = ""
) -> tuple[str, str]:
    """(category slug, how it was found: ``code CPV 72230000``, ``keywords``, ``nature
    services`` or ``default``)."""
    classifications = list(classifications)
    for scheme, code, description in classifications:
        if scheme.upper() == "GSIN":
            code = gsin_code(code, description)
        found = _by_code(scheme, code)
        if found:
            return found, f"code {scheme.upper()} {code}"
    text = " ".join([words, *(d for _, _, d in classifications)])
    found = _by_words(text)
    if found:
        return found, "keywords"
    if nature.lower() in NATURE:
        return NATURE[nature.lower()], f"nature {nature.lower()}"
    return DEFAULT, "default"

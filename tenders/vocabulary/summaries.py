"""The three public summaries of an imported notice, built from the vocabulary only. Pure.

Inputs are codes and small enumerations (``Facts``): the concepts of what is bought, the kind of
contract, framework or not, the number of lots, a duration in months, the procedure type, the
buyer's *kind* (never its name) and the market. No title, description, name, number or date of
the source is an input, so none can reach a summary. Every phrase below is part of the public
vocabulary (``coverage.template_texts`` reads them), so a summary built here passes the
coverage check by construction.

Simplified Chinese uses mainland wording; Traditional is ``to_traditional`` of it (Hong Kong
wording, phrase-level).
"""

from dataclasses import dataclass

from ..chinese import to_traditional
from ..markets import MARKETS
from .cpv import concept

# The kind of contract: (English noun, Simplified Chinese noun).
KINDS = {
    "supplies": ("Supplies", "货物"),
    "services": ("Services", "服务"),
    "works": ("Works", "工程"),
}
# eForms buyer-legal-type codes: (English with article, Simplified Chinese).
BUYER_KINDS = {
    "cga": ("a central government body", "中央政府机构"),
    "ra": ("a regional authority", "地区政府机构"),
    "la": ("a local authority", "地方政府机构"),
    "body-pl": ("a body governed by public law", "公法机构"),
    "body-pl-cga": ("a body governed by public law", "公法机构"),
    "body-pl-ra": ("a body governed by public law", "公法机构"),
    "body-pl-la": ("a body governed by public law", "公法机构"),
    "pub-undert": ("a public undertaking", "公共企业"),
    "pub-undert-cga": ("a public undertaking", "公共企业"),
    "pub-undert-ra": ("a public undertaking", "公共企业"),
    "pub-undert-la": ("a public undertaking", "公共企业"),
    "grp-p-aut": ("a group of public authorities", "公共机构联合体"),
    "int-org": ("an international organisation", "国际组织"),
    "eu-ins-bod-ag": ("an EU institution or agency", "欧盟机构"),
    "eu-int-org": ("an international organisation", "国际组织"),
    "spec-rights-entity": ("a utility", "公用事业单位"),
    "hospital": ("a hospital body", "医院机构"),
}
DEFAULT_BUYER = ("a public buyer", "公共机构")
# Markets whose English name takes an article.
THE = {"GB", "EU"}
PROCEDURES = {
    "open": ("Open procedure: any qualified supplier may bid.", "公开招标，合格供应商均可投标。"),
    "selective": (
        "Selective procedure: invited or pre-qualified suppliers bid.",
        "邀请招标，由受邀或通过资格预审的供应商投标。",
    ),
    "limited": ("Limited procedure: suppliers are invited directly.", "有限招标，直接邀请供应商。"),
    "negotiated": ("Negotiated procedure.", "以谈判方式采购。"),
    "dialogue": ("Competitive dialogue with suppliers.", "以竞争性对话方式采购。"),
    "innovation": ("Innovation partnership.", "以创新伙伴关系方式采购。"),
}
FRAMEWORK = ("Framework agreement.", "框架协议。")
LOTS = ("In {n} lots.", "分{n}个标段。")
MONTHS = ("Duration: about {n} months.", "期限约{n}个月。")
YEARS = ("Duration: about {n} years.", "期限约{n}年。")
ONE_YEAR = ("Duration: about one year.", "期限约一年。")
ALSO = ("also", "另含")
WHAT_ZH = "采购内容："
# The most lots and the longest duration a summary states; beyond, it says nothing of them.
LOTS_MAX = 99
YEARS_MAX = 20


@dataclass(frozen=True)
class Facts:
    market: str
    concepts: tuple[str, ...] = ()  # CPV codes, the main one first
    category_en: str = ""  # the broad category, when no concept was found
    category_zh: str = ""
    kind: str = ""  # supplies, services or works
    framework: bool = False
    lots: int = 0
    duration_months: int = 0
    procedure: str = ""
    buyer_kind: str = ""


def kind_of(code: str, nature: str = "") -> str:
    """Supplies, services or works: as the notice says, else from the CPV division (45 is
    works, 03-44 and 48 are goods, the rest services)."""
    nature = (nature or "").lower()
    if nature in ("goods", "supplies", "supply"):
        return "supplies"
    if nature in ("services", "works"):
        return nature
    if not code:
        return ""
    division = int(code[:2])
    if division == 45:
        return "works"
    return "supplies" if division < 45 or division == 48 else "services"


# How each broad category is bought, when no concept says: works are built, goods supplied;
# the other categories are services.
WORKS_CATEGORIES = frozenset({"construction-works", "civil-engineering", "building-maintenance"})
GOODS_CATEGORIES = frozenset(
    {
        "it-hardware",
        "medical-supplies",
        "pharmaceuticals",
        "laboratory-scientific",
        "vehicles-fleet",
        "office-supplies-furniture",
    }
)


# The broad concept of each of our categories: what a summary names when no specific concept
# was found (the classifier abstained, staff have not picked one yet).
CATEGORY_CONCEPTS = {
    "construction-works": "45000000",
    "civil-engineering": "45200000",
    "building-maintenance": "50700000",
    "architecture-engineering-design": "71000000",
    "facilities-management": "79993000",
    "cleaning-hygiene": "90900000",
    "security-services": "79710000",
    "it-hardware": "30200000",
    "software-it-services": "72000000",
    "telecommunications": "64200000",
    "medical-supplies": "33000000",
    "pharmaceuticals": "33600000",
    "laboratory-scientific": "38000000",
    "consulting-professional": "79400000",
    "financial-insurance": "66000000",
    "transport-logistics": "60000000",
    "vehicles-fleet": "34000000",
    "energy-utilities": "09000000",
    "environmental-waste": "90000000",
    "education-training": "80000000",
    "office-supplies-furniture": "30190000",
    "food-catering": "55520000",
    "marketing-communications": "79340000",
}


def category_kind(slug: str) -> str:
    if slug in WORKS_CATEGORIES:
        return "works"
    return "supplies" if slug in GOODS_CATEGORIES else "services"


def _lower_first(text: str) -> str:
    return text if text[1:2].isupper() else text[:1].lower() + text[1:]


def _duration(months: int) -> tuple[str, str]:
    if months < 1 or months > YEARS_MAX * 12:
        return "", ""
    if months < 18:
        if months == 12:
            return ONE_YEAR
        return MONTHS[0].format(n=months), MONTHS[1].format(n=months)
    years = round(months / 12)
    return YEARS[0].format(n=years), YEARS[1].format(n=years)


def build(facts: Facts) -> dict[str, str]:
    """``{"en", "zh", "zht"}`` from the facts. Deterministic. The Traditional text takes each
    concept's own Traditional label (a reviewed one where the conversion is not enough) and
    the conversion of the template's phrases."""
    labels = [c for c in (concept(code) for code in facts.concepts[:3]) if c]
    if labels:
        main = (labels[0].en, labels[0].zh, labels[0].zht)
        more = [(_lower_first(c.en), c.zh, c.zht) for c in labels[1:]]
    else:
        zh = facts.category_zh
        main, more = (facts.category_en, zh, to_traditional(zh)), []
    en = main[0]
    zh = [WHAT_ZH, main[1]]  # alternately template text and label, in Simplified ...
    zht = [to_traditional(WHAT_ZH), main[2]]  # ... and in Traditional
    if more:
        en += f" ({ALSO[0]}: {'; '.join(m[0] for m in more)})"
        zh += [f"（{ALSO[1]}：", "；".join(m[1] for m in more)]
        zht += [to_traditional(f"（{ALSO[1]}："), "；".join(m[2] for m in more)]
        tail = "）。"
    else:
        tail = "。"
    en += "."
    market = MARKETS[facts.market]
    place = f"the {market.name_en}" if facts.market in THE else market.name_en
    buyer_en, buyer_zh = BUYER_KINDS.get(facts.buyer_kind, DEFAULT_BUYER)
    kind = facts.kind or kind_of(labels[0].code if labels else "")
    kind_en, kind_zh = KINDS.get(kind, ("Purchase", ""))
    en += f" {kind_en} for {buyer_en} in {place}."
    tail += f"{market.name_zh}{buyer_zh}采购{kind_zh}。"
    extras = []
    if facts.framework:
        extras.append(FRAMEWORK)
    if 1 < facts.lots <= LOTS_MAX:
        extras.append((LOTS[0].format(n=facts.lots), LOTS[1].format(n=facts.lots)))
    duration = _duration(facts.duration_months)
    if duration[0]:
        extras.append(duration)
    if facts.procedure in PROCEDURES:
        extras.append(PROCEDURES[facts.procedure])
    for phrase_en, phrase_zh in extras:
        en += f" {phrase_en}"
        tail += phrase_zh
    return {"en": en, "zh": "".join(zh) + tail, "zht": "".join(zht) + to_traditional(tail)}

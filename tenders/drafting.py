"""Drafting the three public summaries of a record. Pure: plain values in, text out.

A draft is made only from public facts: the category, the market, the value band, the type of
procedure and a short, generic description of the need (typed by a curator, or an imported
notice's title once the gate has found it clean). The buyer, the reference, the exact
deadline and the amount are never inputs, so they cannot end up in a draft (the need itself is
checked by the sanitization engine before it is used). English and Simplified Chinese come from
templates; Traditional Chinese is always the OpenCC conversion of the Simplified text.
"""

from dataclasses import dataclass

from .chinese import to_traditional
from .markets import MARKETS

NEED_MAX_LENGTH = 160

# How each category is bought: works are built by contractors, services are provided,
# goods are supplied. Categories not listed here are services.
WORKS = frozenset({"construction-works", "civil-engineering", "building-maintenance"})
GOODS = frozenset(
    {
        "it-hardware",
        "medical-supplies",
        "pharmaceuticals",
        "laboratory-scientific",
        "vehicles-fleet",
        "office-supplies-furniture",
    }
)

# (English, Simplified Chinese) of the size of a contract, from its public value band. Words,
# not figures: a figure with a currency would be an amount to the gate, and the band is public
# in its own field anyway.
BAND_PHRASES = {
    "lt_500k": ("a smaller contract", "规模较小的合约"),
    "500k_2m": ("a mid-sized contract", "中等规模的合约"),
    "2m_10m": ("a large contract", "规模较大的合约"),
    "gt_10m": ("a major contract", "大型合约"),
}

# (English, Simplified Chinese) of how suppliers take part, from the notice's procedure type.
PROCEDURE_PHRASES = {
    "open": ("Open procedure: any qualified supplier may bid.", "公开招标，合资格供应商均可投标。"),
    "selective": (
        "Selective procedure: invited or pre-qualified suppliers bid.",
        "选择性招标，由获邀或通过资格预审的供应商投标。",
    ),
    "limited": ("Limited procedure: suppliers are invited directly.", "有限招标，直接邀请供应商。"),
    "negotiated": ("Negotiated procedure.", "以谈判方式采购。"),
    "dialogue": ("Competitive dialogue with suppliers.", "以竞争性对话方式采购。"),
    "innovation": ("Innovation partnership.", "以创新伙伴关系方式采购。"),
}


@dataclass(frozen=True)
class Draft:
    en: str
    zh: str
    zht: str

    def as_dict(self) -> dict[str, str]:
        return {"en": self.en, "zh": self.zh, "zht": self.zht}


def _sentence(text: str) -> str:
    text = text.strip().rstrip("。.;；,，")
    return text[:1].upper() + text[1:]


def draft_summaries(
    *,
    category_slug: str,
    category_en: str,
    category_zh: str,
    market: str,
    value_band: str | None,
    need_en: str = "",
    need_zh: str = "",
    procedure: str = "",
) -> Draft:
    """The three summaries of a record. Deterministic: the same inputs give the same text.

    ``need_en`` / ``need_zh`` default to the category's name when the curator leaves them empty;
    ``procedure`` (a key of ``PROCEDURE_PHRASES``) adds how suppliers take part.
    """
    place = MARKETS[market]
    need_en = _sentence(need_en or category_en)
    need_zh = _sentence(need_zh or category_zh)
    # "Cleaning services" reads "cleaning services" mid-sentence; "IT hardware" stays.
    acronym = category_en[1:2].isupper()
    category_lower = category_en if acronym else category_en[:1].lower() + category_en[1:]
    if category_slug in WORKS:
        who_en, who_zh = f"contractors for {category_lower}", f"{category_zh}承建商"
    elif category_slug in GOODS:
        who_en, who_zh = f"suppliers of {category_lower}", f"{category_zh}供应商"
    else:
        who_en, who_zh = f"providers of {category_lower}", f"{category_zh}服务供应商"
        if category_zh.endswith("服务"):
            who_zh = f"{category_zh}供应商"
    size_en, size_zh = BAND_PHRASES.get(value_band or "", ("", ""))
    en = f"{need_en}. A public-sector buyer in {place.name_en} is looking for {who_en}"
    en += f", {size_en}." if size_en else "."
    zh = f"{place.name_zh}公营机构采购项目——{need_zh}。现招募{who_zh}"
    zh += f"，属{size_zh}。" if size_zh else "。"
    if procedure in PROCEDURE_PHRASES:
        how_en, how_zh = PROCEDURE_PHRASES[procedure]
        en, zh = f"{en} {how_en}", zh + how_zh
    return Draft(en=en, zh=zh, zht=to_traditional(zh))

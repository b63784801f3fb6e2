"""The seven markets of the feed, with their names and defaults. Pure data."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Market:
    code: str
    name_en: str
    name_zh: str
    name_zht: str
    currency: str
    # Default region for phone-number detection; None where numbers are always international.
    phone_region: str | None


MARKETS: dict[str, Market] = {
    m.code: m
    for m in (
        Market("HK", "Hong Kong", "香港", "香港", "HKD", "HK"),
        Market("MO", "Macao", "澳门", "澳門", "MOP", "MO"),
        Market("SG", "Singapore", "新加坡", "新加坡", "SGD", "SG"),
        Market("GB", "United Kingdom", "英国", "英國", "GBP", "GB"),
        Market("EU", "European Union", "欧盟", "歐盟", "EUR", None),
        Market("AU", "Australia", "澳大利亚", "澳大利亞", "AUD", "AU"),
        Market("CA", "Canada", "加拿大", "加拿大", "CAD", "CA"),
    )
}
MARKET_CODES = tuple(MARKETS)
MARKET_CHOICES = [(m.code, m.name_en) for m in MARKETS.values()]

"""What people read for the feed's codes, in the page's language. Pure data."""

from django.utils.translation import gettext_lazy as _

from tenders.markets import MARKETS

# A page's language (Django's code, the path prefix) and the API's ``lang`` for it.
API_LANG = {"en": "en", "zh-hans": "zh", "zh-hant": "zht"}
PAGE_LANG = {api: page for page, api in API_LANG.items()}
# How Atom and HTML name each language (BCP 47, script subtags for Chinese).
HTML_LANG = {"en": "en", "zh-hans": "zh-Hans", "zh-hant": "zh-Hant"}

CLOSING = {
    "le_2w": _("Closes within 2 weeks"),
    "2_4w": _("Closes in 2 to 4 weeks"),
    "gt_4w": _("Closes in more than 4 weeks"),
    "deadline_passed": _("Deadline passed"),
}
BANDS = {
    "lt_500k": _("Under US$500,000"),
    "500k_2m": _("US$500,000 to 2 million"),
    "2m_10m": _("US$2 million to 10 million"),
    "gt_10m": _("Over US$10 million"),
    "unspecified": _("No value given"),
}


def market_name(code: str, api_lang: str) -> str:
    market = MARKETS.get(code)
    return getattr(market, f"name_{api_lang}") if market else code

"""Template helpers of the people's pages: names of codes in the page's language, language
links that keep the current query."""

from django import template
from django.conf import settings
from django.urls import translate_url
from django.utils import translation

from tenders.labels import API_LANG, BANDS, CLOSING, HTML_LANG, market_name

register = template.Library()


def _api_lang() -> str:
    return API_LANG.get(translation.get_language(), "en")


@register.filter
def closing(value: str) -> str:
    return CLOSING.get(value, value)


@register.filter
def band(value: str | None) -> str:
    return BANDS["unspecified" if value is None else value]


@register.filter
def market(code: str) -> str:
    return market_name(code, _api_lang())


@register.filter
def named(item: dict) -> str:
    """A facet item's (market or category) name in the page's language."""
    return item[f"name_{_api_lang()}"]


@register.simple_tag
def html_lang() -> str:
    return HTML_LANG.get(translation.get_language(), "en")


@register.simple_tag(takes_context=True)
def languages(context) -> list[dict]:
    """The page in every language, with the same query: for hreflang and the switch.

    Empty where the page has no language or no path of its own (an error page).
    """
    request = context.get("request")
    current = getattr(request, "LANGUAGE_CODE", None)
    if current is None or getattr(request, "resolver_match", None) is None:
        return []
    links = []
    for code, name in settings.LANGUAGES:
        url = request.build_absolute_uri(translate_url(request.get_full_path(), code))
        links.append(
            {
                "code": code,
                "name": name,
                "hreflang": HTML_LANG[code],
                "url": url,
                "current": code == current,
            }
        )
    return links


@register.simple_tag
def api_lang() -> str:
    """The API's ``lang`` for the page's language (feeds and API links)."""
    return _api_lang()

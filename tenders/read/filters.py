"""The one filter contract of the listing, for every interface. Pure: no database.

REST hands over query strings (``"HK,SG"``, ``"true"``, ``"50"``); the tool server hands over
typed JSON values (``["HK", "SG"]``, ``true``, ``50``). Both go through :func:`parse_list_params`,
which returns a frozen, canonical :class:`ListQuery` or raises ``ApiError(400,
"invalid_parameter")`` with a message that says what was wrong and what would be accepted.
Limits and defaults live here and nowhere else; a :class:`Surface` says which default page size
a caller gets, how messages name the other operations (REST paths, or tool names) and what a
caller can do before the first issue.

Canonical means: two requests that select the same rows have the same ``filters_key()``
(markets upper-cased, categories resolved to slugs, values sorted, duplicates dropped, ``q``
reduced to its normalised, sorted terms), which is what a cursor is bound to.
"""

import operator
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import reduce
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext_lazy

from core.errors import ApiError
from tenders.buckets import CLOSING_BUCKETS, VALUE_BANDS
from tenders.markets import MARKET_CODES
from tenders.read.rows import LANGS
from tenders.read.search import QueryError, canonical, matches, parse_terms

LIST_PARAMS = (
    "market",
    "category",
    "closing_bucket",
    "new",
    "lead_ok",
    "value_band",
    "q",
    "lang",
    "limit",
    "cursor",
)
ROW_PARAMS = ("lang",)
DEFAULT_LIMIT = 50
MAX_LIMIT = 200
MAX_Q = 200
OPEN_BUCKETS = ("le_2w", "2_4w", "gt_4w")
UNSPECIFIED = "unspecified"
BAND_VALUES = (*VALUE_BANDS, UNSPECIFIED)
TRUE_WORDS = {"true": True, "1": True, "false": False, "0": False}


@dataclass(frozen=True)
class Surface:
    """An interface's defaults and its names for things: a model pays for every row it reads,
    so the tool server pages smaller, and its messages name tools rather than REST paths.

    ``unpublished`` is the message of the 503 before the first issue: it says what the caller
    can do meanwhile on that surface (people read it in their page's language).
    ``default_lang``: the language of rows when the caller names none (None: all three)."""

    default_limit: int
    listing: str
    facets: str
    unpublished: str
    default_lang: str | None = None


NOTHING_PUBLISHED = "No issue of the feed is published yet; try again later"

REST = Surface(
    DEFAULT_LIMIT,
    listing="GET /api/v1/tenders",
    facets="GET /api/v1/tenders/facets",
    unpublished=f"{NOTHING_PUBLISHED} (GET /api/v1/health shows the feed's state).",
)
TOOL = Surface(
    10,
    listing="the list_tenders tool",
    facets="the tender_facets tool",
    unpublished=f"{NOTHING_PUBLISHED}. list_tenders, get_tender and tender_facets answer from "
    "the first weekly issue on; list_sourcing_lanes, get_engagement and submit_rfq answer now.",
    # A model reads one language unless it asks for another (decisions: tool results for
    # models); a person and a REST client get the three.
    default_lang="en",
)
# The people's pages (pages): they page by 20, and a refusal reads in the page's
# language (pages.messages words the other refusals for people).
PAGES = Surface(
    20,
    listing="the tender list",
    facets="the category list",
    unpublished=gettext_lazy(
        "The first issue of the feed is not published yet. Come back after the weekly publication."
    ),
)


def invalid(param: str, message: str) -> ApiError:
    return ApiError(400, "invalid_parameter", message, param=param)


@dataclass(frozen=True)
class Vocabulary:
    """The category vocabulary of one issue: every accepted spelling mapped to its slug."""

    slugs: tuple[str, ...]
    lookup: Mapping[str, str]

    @classmethod
    def from_facets(cls, facets: Mapping) -> "Vocabulary":
        slugs, lookup = [], {}
        for category in facets.get("categories", ()):
            slug = category["slug"]
            slugs.append(slug)
            for spelling in (slug, category["name_en"], category["name_zh"], category["name_zht"]):
                lookup.setdefault(_fold(spelling), slug)
        return cls(tuple(slugs), lookup)

    def resolve(self, value: str) -> str | None:
        return self.lookup.get(_fold(value))


def _fold(text: str) -> str:
    # English names match in any case; Chinese names are unaffected by case folding.
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@dataclass(frozen=True)
class ListQuery:
    """A validated listing request. ``filters_key()`` names the set of rows it selects."""

    markets: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    closing_buckets: tuple[str, ...] = OPEN_BUCKETS
    value_bands: tuple[str, ...] = ()
    new: bool | None = None
    lead_ok: bool | None = None
    q: tuple[str, ...] = ()  # the search terms (tenders.read.search.parse_terms)
    lang: str | None = None
    limit: int = DEFAULT_LIMIT
    cursor: str | None = None

    def filters_key(self) -> str:
        """Canonical text of the row filters (not lang, limit or cursor, which keep the rows)."""
        parts = []
        if self.markets:
            parts.append("market=" + ",".join(self.markets))
        if self.categories:
            parts.append("category=" + ",".join(self.categories))
        if set(self.closing_buckets) == set(CLOSING_BUCKETS):
            parts.append("closing_bucket=all")
        else:
            parts.append("closing_bucket=" + ",".join(self.closing_buckets))
        if self.value_bands:
            parts.append("value_band=" + ",".join(self.value_bands))
        if self.new is not None:
            parts.append(f"new={str(self.new).lower()}")
        if self.lead_ok is not None:
            parts.append(f"lead_ok={str(self.lead_ok).lower()}")
        if self.q:
            parts.append(f"q={canonical(self.q)}")
        return "&".join(parts)

    def cell_filter(self) -> Q:
        """The filters other than ``q``, on the field names ``SnapshotRow`` and ``IssueCount``
        share, so totals summed over the counts and the rows served always agree."""
        q = Q()
        if self.markets:
            q &= Q(market__in=self.markets)
        if self.categories:
            q &= Q(category_slug__in=self.categories)
        if set(self.closing_buckets) != set(CLOSING_BUCKETS):
            q &= Q(closing_bucket__in=self.closing_buckets)
        if self.value_bands:
            bands = [b for b in self.value_bands if b != UNSPECIFIED]
            either = [Q(value_band__in=bands)] if bands else []
            if UNSPECIFIED in self.value_bands:
                either.append(Q(value_band__isnull=True))
            q &= reduce(operator.or_, either)
        if self.new is not None:
            q &= Q(new_this_issue=self.new)
        if self.lead_ok is not None:
            q &= Q(lead_ok=self.lead_ok)
        return q

    def row_filter(self) -> Q:
        """Every filter, ``q`` included, on ``SnapshotRow``."""
        q = self.cell_filter()
        if self.q:
            q &= matches(self.q)
        return q


def parse_list_params(
    params: Mapping[str, Any], vocabulary: Vocabulary, surface: Surface = REST
) -> ListQuery:
    """Validate listing parameters (strings or typed values) into a canonical ``ListQuery``."""
    given = check_params(params, LIST_PARAMS)
    values: dict[str, Any] = {"limit": surface.default_limit, "lang": surface.default_lang}
    if "market" in given:
        values["markets"] = _choices(
            "market",
            given["market"],
            MARKET_CODES,
            fold=str.upper,
            hint=f"one or more of {', '.join(MARKET_CODES)} (any case), comma-separated",
        )
    if "category" in given:
        values["categories"] = _categories(given["category"], vocabulary, surface)
    if "closing_bucket" in given:
        buckets = _choices(
            "closing_bucket",
            given["closing_bucket"],
            (*CLOSING_BUCKETS, "all"),
            hint=f"one or more of {', '.join(CLOSING_BUCKETS)}, or all; comma-separated",
        )
        values["closing_buckets"] = CLOSING_BUCKETS if "all" in buckets else buckets
    if "value_band" in given:
        values["value_bands"] = _choices(
            "value_band",
            given["value_band"],
            BAND_VALUES,
            hint=f"one or more of {', '.join(BAND_VALUES)}, comma-separated",
        )
    for name in ("new", "lead_ok"):
        if name in given:
            values[name] = _boolean(name, given[name])
    if "q" in given:
        values["q"] = parse_q(given["q"])
    if "lang" in given:
        values["lang"] = parse_lang(given["lang"])
    if "limit" in given:
        values["limit"] = _limit(given["limit"], surface)
    if "cursor" in given:
        values["cursor"] = _cursor(given["cursor"])
    return ListQuery(**values)


def parse_row_params(params: Mapping[str, Any], surface: Surface = REST) -> str | None:
    """The parameters of one row (only ``lang``); returns the language, or the surface's
    default (None: all three)."""
    given = check_params(params, ROW_PARAMS)
    return parse_lang(given["lang"]) if "lang" in given else surface.default_lang


def parse_lang(value: Any) -> str | None:
    if value is None:
        return None
    text = _single("lang", value).lower()
    if text not in LANGS:
        raise invalid("lang", f"lang must be one of {', '.join(LANGS)}; got {value!r}.")
    return text


def parse_q(value: Any) -> tuple[str, ...]:
    """The search terms of ``q`` (words must all match, "a phrase" as written)."""
    text = _single("q", value).strip()
    if not text:
        raise invalid("q", "q is empty; give 1 to 200 characters of text, or leave q out.")
    if len(text) > MAX_Q:
        raise invalid("q", f"q is {len(text)} characters long; the most is {MAX_Q}.")
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in text):
        raise invalid("q", "q contains control characters; give plain text.")
    try:
        return parse_terms(text)
    except QueryError as exc:
        raise invalid("q", str(exc)) from None


def check_params(params: Mapping[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """The given parameters, after refusing any name not in ``known``."""
    known = tuple(known)
    for name in params:
        if name not in known:
            accepted = f"Known parameters: {', '.join(known)}." if known else "It takes none."
            raise invalid(str(name), f"Unknown parameter {str(name)!r}. {accepted}")
    # A typed interface may send null for "not given".
    return {name: value for name, value in params.items() if value is not None}


def _single(name: str, value: Any) -> str:
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            raise invalid(name, f"Give {name} once; it was given {len(value)} times.")
        value = value[0]
    if not isinstance(value, str):
        raise invalid(name, f"{name} must be a string; got {type(value).__name__}.")
    return value


def _items(name: str, value: Any) -> list[str]:
    """Comma-separated text, a list of strings, or a list of comma-separated texts."""
    parts = value if isinstance(value, (list, tuple)) else [value]
    items = []
    for part in parts:
        if not isinstance(part, str):
            raise invalid(
                name, f"{name} must be text or a list of text; got {type(part).__name__}."
            )
        for item in part.split(","):
            item = item.strip()
            if not item:
                raise invalid(name, f"{name} has an empty value; check for stray commas.")
            items.append(item)
    if not items:
        raise invalid(name, f"{name} is empty; give at least one value, or leave it out.")
    return items


def _choices(name, value, allowed, *, fold=str.lower, hint: str) -> tuple[str, ...]:
    chosen = set()
    for item in _items(name, value):
        folded = fold(item)
        if folded not in allowed:
            raise invalid(name, f"{name} {item!r} is not accepted; give {hint}.")
        chosen.add(folded)
    return tuple(v for v in allowed if v in chosen)


def _categories(value: Any, vocabulary: Vocabulary, surface: Surface) -> tuple[str, ...]:
    chosen = set()
    for item in _items("category", value):
        slug = vocabulary.resolve(item)
        if slug is None:
            example = vocabulary.slugs[0] if vocabulary.slugs else "it-hardware"
            raise invalid(
                "category",
                f"category {item!r} is not in this issue's vocabulary; give a slug or an "
                f"English, Simplified or Traditional Chinese name as listed by "
                f"{surface.facets} (e.g. {example}).",
            )
        chosen.add(slug)
    return tuple(sorted(chosen))


def _boolean(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in TRUE_WORDS:
        return TRUE_WORDS[value.strip().lower()]
    if isinstance(value, (list, tuple)) and len(value) == 1:
        return _boolean(name, value[0])
    raise invalid(name, f"{name} must be true or false; got {value!r}.")


def _limit(value: Any, surface: Surface) -> int:
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.isascii() and value.isdigit():
        number = int(value)
    if number is None or not 1 <= number <= MAX_LIMIT:
        raise invalid(
            "limit",
            f"limit must be a whole number from 1 to {MAX_LIMIT} (default "
            f"{surface.default_limit}); "
            f"got {value!r}. Follow meta.next_cursor to read further.",
        )
    return number


def _cursor(value: Any) -> str:
    text = _single("cursor", value)
    if not text:
        raise ApiError(
            400,
            "invalid_cursor",
            "cursor is empty; leave it out to start from the first page.",
            param="cursor",
        )
    return text

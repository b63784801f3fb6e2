"""What a listing request asks for, once checked: a frozen, canonical :class:`ListQuery`; the
issue's category :class:`Vocabulary`; a :class:`Surface` (the defaults and names of REST, the
tools or the pages); the limits and defaults, here and nowhere else. Pure: no database.

Canonical means: two requests that select the same rows have the same ``filters_key()``
(markets upper-cased, categories resolved to slugs, values sorted, duplicates dropped, ``q``
reduced to its normalised, sorted terms), which is what a cursor is bound to.
``tenders.read.filters`` makes a ``ListQuery`` from what a caller sends.
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
from tenders.read.search import canonical, matches

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


NO_VOCABULARY = Vocabulary((), {})


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


def check_params(params: Mapping[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """The given parameters, after refusing any name not in ``known``."""
    known = tuple(known)
    for name in params:
        if name not in known:
            accepted = f"Known parameters: {', '.join(known)}." if known else "It takes none."
            raise invalid(str(name), f"Unknown parameter {str(name)!r}. {accepted}")
    # A typed interface may send null for "not given".
    return {name: value for name, value in params.items() if value is not None}

"""The one filter contract of the listing, for every interface. Pure: no database.

``TenderFilterSet`` (django-filter) is the one parser. REST, the pages and the feeds hand it
query strings (``"HK,SG"``, ``"true"``, ``"50"``); the tool server hands it typed JSON values
(``["HK", "SG"]``, ``true``, ``50``). Its ``query`` is a frozen, canonical :class:`ListQuery`,
or it raises ``ApiError(400, "invalid_parameter")`` with a message that says what was wrong and
what would be accepted, and the parameter's name. Limits and defaults live here and nowhere
else; a :class:`Surface` says which default page size a caller gets, how messages name the
other operations (REST paths, or tool names) and what a caller can do before the first issue.

Canonical means: two requests that select the same rows have the same ``filters_key()``
(markets upper-cased, categories resolved to slugs, values sorted, duplicates dropped, ``q``
reduced to its normalised, sorted terms), which is what a cursor is bound to.
"""

import operator
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import reduce
from types import SimpleNamespace
from typing import Any

import django_filters
from django import forms
from django.core.exceptions import ValidationError
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


# --- the FilterSet: the one parser ------------------------------------------------------
# Each parameter is a form field that takes text (REST, the pages, the feeds) or a typed JSON
# value (the tools) and refuses anything else with a ValidationError whose message is the one
# a client reads. The FilterSet turns the first refusal into our invalid_parameter body.


def refused(message: str, code: str = "invalid_parameter") -> ValidationError:
    return ValidationError(message, code=code)


class ParamField(forms.Field):
    """A parameter as given: None (not given, or null from a typed caller) or a value to
    check. ``read`` turns a given value into the cleaned one, or raises ``refused``; it may
    read the form's ``vocabulary`` and ``surface`` (what varies per request is on the form,
    so every form shares its fields)."""

    def __init__(self, *, name: str, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)
        self.name = name

    def __deepcopy__(self, memo):
        # Immutable once made: Django's copy per form would cost more than the checks.
        return self

    def check(self, value: Any, form: "ParamsForm") -> Any:
        return None if value is None else self.read(value, form)

    def to_python(self, value: Any) -> Any:
        return self.check(value, NO_FORM)

    def read(self, value: Any, form: "ParamsForm") -> Any:
        raise NotImplementedError

    def validate(self, value: Any) -> None:
        """Nothing more: ``read`` checked everything."""


class ChoicesField(ParamField):
    """One or more of fixed values: comma-separated text or a list."""

    def __init__(self, *, allowed: tuple[str, ...], fold=str.lower, hint: str, **kwargs):
        super().__init__(**kwargs)
        self.allowed, self.fold, self.hint = allowed, fold, hint

    def read(self, value, form) -> tuple[str, ...]:
        return _choices(self.name, value, self.allowed, fold=self.fold, hint=self.hint)


class ClosingField(ChoicesField):
    def read(self, value, form) -> tuple[str, ...]:
        buckets = super().read(value, form)
        return CLOSING_BUCKETS if "all" in buckets else buckets


class CategoryField(ParamField):
    """Slugs or names of the issue's vocabulary (given by the FilterSet: no query)."""

    def read(self, value, form) -> tuple[str, ...]:
        return _categories(value, form.vocabulary, form.surface)


class FlagField(ParamField):
    def read(self, value, form) -> bool:
        return _boolean(self.name, value)


class SearchField(ParamField):
    def read(self, value, form) -> tuple[str, ...]:
        return _q(value)


class LangField(ParamField):
    def read(self, value, form) -> str:
        return _lang(value)


class LimitField(ParamField):
    def read(self, value, form) -> int:
        return _limit(value, form.surface)


class CursorField(ParamField):
    def read(self, value, form) -> str:
        return _cursor(value)


class ParamFilter(django_filters.Filter):
    """A listing parameter. Its refusals are its field's; what it selects is the whole
    ``ListQuery``'s (``TenderFilterSet.filter_queryset``), so rows, counts and totals agree."""

    field_class = ParamField

    def __init__(self, field_class=None, **kwargs):
        if field_class is not None:
            self.field_class = field_class
        super().__init__(**kwargs)

    @property
    def field(self):
        if not hasattr(self, "_field"):
            self._field = self.field_class(name=self.field_name, **self.extra)
        return self._field


class ParamsForm(forms.Form):
    """The form of a ``StrictFilterSet``: ``ParamField``s, checked with the request's
    vocabulary and surface."""

    def __init__(self, data, *, vocabulary: Vocabulary | None = None, surface: Surface = REST):
        super().__init__(data, label_suffix="")
        self.vocabulary = vocabulary or NO_VOCABULARY
        self.surface = surface

    def _clean_fields(self):
        # Django's, without a bound field per parameter: nothing here is ever rendered, and a
        # value is read as given (a list stays a list, as the checks expect).
        for name, field in self.fields.items():
            try:
                self.cleaned_data[name] = field.check(self.data.get(name), self)
            except ValidationError as error:
                self.add_error(name, error)


class ListForm(ParamsForm):
    """The listing's form, with the paging parameters the pagination reads (``limit``,
    ``cursor``) checked here too: one place refuses every parameter."""

    limit = LimitField(
        name="limit",
        help_text=f"Rows per page, 1 to {MAX_LIMIT} (default 50 on REST, 10 for the tools).",
    )
    cursor = CursorField(name="cursor", help_text="meta.next_cursor of the previous page.")


class SharedFields(dict):
    """A form's fields that every form of its class shares (``ParamField`` is immutable):
    Django deep-copies them for each form; this copies the dict alone."""

    def __deepcopy__(self, memo):
        return dict(self)


NO_VOCABULARY = Vocabulary((), {})
NO_FORM = SimpleNamespace(vocabulary=NO_VOCABULARY, surface=REST)


class StrictFilterSet(django_filters.FilterSet):
    """A FilterSet that refuses what it does not know and answers with ``ApiError``.

    ``data``: a plain mapping, each name to its value, a list when given more than once
    (``core.api.query_params``), or a tool's typed arguments. The category vocabulary comes
    from the issue (``tenders.read.current.vocabulary``): validating costs no query.
    ``KNOWN``: the parameters, as a refusal of an unknown one lists them; ``CHECKED``: the
    order in which refusals are reported (the first one wins)."""

    KNOWN: tuple[str, ...] = ()
    CHECKED: tuple[str, ...] = ()

    class Meta:
        form = ParamsForm

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        queryset=None,
        *,
        vocabulary: Vocabulary | None = None,
        surface: Surface = REST,
        request=None,
        prefix=None,
    ):
        # As django-filter's, but the filters are shared rather than copied (they hold nothing of
        # a request: the whole query is ListQuery's), and the rows are made only when asked for.
        self.is_bound = True
        self.data = data if data is not None else {}
        self._queryset = queryset
        self.request = request
        self.form_prefix = prefix
        self.filters = self.base_filters
        self.vocabulary = vocabulary
        self.surface = surface

    @property
    def queryset(self):
        if self._queryset is None:
            # Lazy: the tool definitions import this module before the models are loaded.
            from tenders.models import SnapshotRow

            self._queryset = SnapshotRow.objects.all()
        return self._queryset

    def get_form_class(self):
        """django-filter's form class, made once per FilterSet class (fields are shared)."""
        made = type(self).__dict__.get("_form_class")
        if made is None:
            made = super().get_form_class()
            made.base_fields = SharedFields(made.base_fields)
            type(self)._form_class = made
        return made

    @property
    def form(self):
        if not hasattr(self, "_form"):
            self._form = self.get_form_class()(
                self.data, vocabulary=self.vocabulary, surface=self.surface
            )
        return self._form

    def given(self) -> dict[str, Any]:
        """The parameters given, after refusing any unknown name (400 invalid_parameter)."""
        return check_params(self.data, self.KNOWN)

    def cleaned(self) -> dict[str, Any]:
        """Every known parameter, cleaned (None: not given); else the first refusal."""
        self.given()
        form = self.form
        if not form.is_valid():
            errors = form.errors.as_data()
            name = next(n for n in (*self.CHECKED, *errors) if n in errors)
            error = errors[name][0]
            raise ApiError(400, error.code or "invalid_parameter", error.message, param=name)
        return form.cleaned_data


class TenderFilterSet(StrictFilterSet):
    """The listing's parameters: REST's query string, the pages', the feeds' and the tools'
    typed arguments. ``query`` is the canonical ``ListQuery``, or raises 400 with the
    parameter's name (``invalid_parameter``; an empty cursor is ``invalid_cursor``)."""

    class Meta:
        form = ListForm

    KNOWN = LIST_PARAMS
    # The order in which the checks run: the first refusal is the one reported.
    CHECKED = (
        "market",
        "category",
        "closing_bucket",
        "value_band",
        "new",
        "lead_ok",
        "q",
        "lang",
        "limit",
        "cursor",
    )

    market = ParamFilter(
        ChoicesField,
        allowed=MARKET_CODES,
        fold=str.upper,
        hint=f"one or more of {', '.join(MARKET_CODES)} (any case), comma-separated",
        help_text="Markets, comma-separated (any case).",
    )
    category = ParamFilter(
        CategoryField,
        help_text="Category slugs or names (English, Simplified or Traditional Chinese), "
        "comma-separated, as tender_facets lists them.",
    )
    closing_bucket = ParamFilter(
        ClosingField,
        allowed=(*CLOSING_BUCKETS, "all"),
        hint=f"one or more of {', '.join(CLOSING_BUCKETS)}, or all; comma-separated",
        help_text="Closing buckets, comma-separated, or all (default: the open ones).",
    )
    value_band = ParamFilter(
        ChoicesField,
        allowed=BAND_VALUES,
        hint=f"one or more of {', '.join(BAND_VALUES)}, comma-separated",
        help_text="Value bands in USD, comma-separated; unspecified: no amount.",
    )
    new = ParamFilter(FlagField, help_text="Only rows new this issue (true) or older (false).")
    lead_ok = ParamFilter(FlagField, help_text="Only rows accepting supplier interest, or not.")
    q = ParamFilter(
        SearchField,
        help_text='Search text: all words in any order; "a phrase" as written; 1 to 200 '
        "characters.",
    )
    lang = ParamFilter(LangField, help_text="One language of the rows: en, zh or zht.")

    @property
    def query(self) -> ListQuery:
        if not hasattr(self, "_query"):
            self._query = self._make_query(self.cleaned())
        return self._query

    def _make_query(self, cleaned: dict[str, Any]) -> ListQuery:
        surface = self.surface
        lang = cleaned["lang"]
        values = {
            "limit": cleaned["limit"] or surface.default_limit,
            "lang": surface.default_lang if lang is None else lang,
            "cursor": cleaned["cursor"],
            "new": cleaned["new"],
            "lead_ok": cleaned["lead_ok"],
        }
        for name, member in (
            ("market", "markets"),
            ("category", "categories"),
            ("closing_bucket", "closing_buckets"),
            ("value_band", "value_bands"),
            ("q", "q"),
        ):
            if cleaned[name] is not None:
                values[member] = cleaned[name]
        return ListQuery(**values)

    def filter_queryset(self, queryset):
        """The rows the query selects (``ListQuery.row_filter``): the one definition of the
        filters, which the listing's pages and counts use too."""
        return queryset.filter(self.query.row_filter())


class RowFilterSet(StrictFilterSet):
    """The parameters of one row: only ``lang``."""

    KNOWN = CHECKED = ROW_PARAMS

    lang = ParamFilter(LangField, help_text="One language of the row: en, zh or zht.")

    def language(self) -> str | None:
        """The row's language, or the surface's default (None: all three)."""
        lang = self.cleaned()["lang"]
        return self.surface.default_lang if lang is None else lang


def parse_list_params(
    params: Mapping[str, Any], vocabulary: Vocabulary, surface: Surface = REST
) -> ListQuery:
    """``TenderFilterSet(params, ...).query``: the canonical ``ListQuery`` of these parameters."""
    return TenderFilterSet(params, vocabulary=vocabulary, surface=surface).query


def parse_row_params(params: Mapping[str, Any], surface: Surface = REST) -> str | None:
    """The language of one row (``RowFilterSet``), or the surface's default (None: all
    three)."""
    return RowFilterSet(params, surface=surface).language()


def check_params(params: Mapping[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """The given parameters, after refusing any name not in ``known``."""
    known = tuple(known)
    for name in params:
        if name not in known:
            accepted = f"Known parameters: {', '.join(known)}." if known else "It takes none."
            raise invalid(str(name), f"Unknown parameter {str(name)!r}. {accepted}")
    # A typed interface may send null for "not given".
    return {name: value for name, value in params.items() if value is not None}


def parse_lang(value: Any) -> str | None:
    """The ``lang`` of a tool's argument (None: not given); 400 when it is not a language."""
    if value is None:
        return None
    try:
        return _lang(value)
    except ValidationError as error:
        raise invalid("lang", error.message) from None


# --- the checks of each parameter (they raise ``refused``) -------------------------------


def _lang(value: Any) -> str:
    text = _single("lang", value).lower()
    if text not in LANGS:
        raise refused(f"lang must be one of {', '.join(LANGS)}; got {value!r}.")
    return text


def _q(value: Any) -> tuple[str, ...]:
    """The search terms of ``q`` (words must all match, "a phrase" as written)."""
    text = _single("q", value).strip()
    if not text:
        raise refused("q is empty; give 1 to 200 characters of text, or leave q out.")
    if len(text) > MAX_Q:
        raise refused(f"q is {len(text)} characters long; the most is {MAX_Q}.")
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in text):
        raise refused("q contains control characters; give plain text.")
    try:
        return parse_terms(text)
    except QueryError as exc:
        raise refused(str(exc)) from None


def _single(name: str, value: Any) -> str:
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            raise refused(f"Give {name} once; it was given {len(value)} times.")
        value = value[0]
    if not isinstance(value, str):
        raise refused(f"{name} must be a string; got {type(value).__name__}.")
    return value


def _items(name: str, value: Any) -> list[str]:
    """Comma-separated text, a list of strings, or a list of comma-separated texts."""
    parts = value if isinstance(value, (list, tuple)) else [value]
    items = []
    for part in parts:
        if not isinstance(part, str):
            raise refused(f"{name} must be text or a list of text; got {type(part).__name__}.")
        for item in part.split(","):
            item = item.strip()
            if not item:
                raise refused(f"{name} has an empty value; check for stray commas.")
            items.append(item)
    if not items:
        raise refused(f"{name} is empty; give at least one value, or leave it out.")
    return items


def _choices(name, value, allowed, *, fold=str.lower, hint: str) -> tuple[str, ...]:
    chosen = set()
    for item in _items(name, value):
        folded = fold(item)
        if folded not in allowed:
            raise refused(f"{name} {item!r} is not accepted; give {hint}.")
        chosen.add(folded)
    return tuple(v for v in allowed if v in chosen)


def _categories(value: Any, vocabulary: Vocabulary, surface: Surface) -> tuple[str, ...]:
    chosen = set()
    for item in _items("category", value):
        slug = vocabulary.resolve(item)
        if slug is None:
            example = vocabulary.slugs[0] if vocabulary.slugs else "it-hardware"
            raise refused(
                f"category {item!r} is not in this issue's vocabulary; give a slug or an "
                f"English, Simplified or Traditional Chinese name as listed by "
                f"{surface.facets} (e.g. {example})."
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
    raise refused(f"{name} must be true or false; got {value!r}.")


def _limit(value: Any, surface: Surface) -> int:
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.isascii() and value.isdigit():
        number = int(value)
    if number is None or not 1 <= number <= MAX_LIMIT:
        # A typed number reads as REST spells it, so both surfaces say the same.
        shown = str(value) if number is not None else value
        raise refused(
            f"limit must be a whole number from 1 to {MAX_LIMIT} (default "
            f"{surface.default_limit}); "
            f"got {shown!r}. Follow meta.next_cursor to read further."
        )
    return number


def _cursor(value: Any) -> str:
    text = _single("cursor", value)
    if not text:
        raise refused(
            "cursor is empty; leave it out to start from the first page.", "invalid_cursor"
        )
    return text

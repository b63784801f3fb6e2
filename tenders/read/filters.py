"""The one filter contract of the listing, for every interface. Pure: no database.

``TenderFilterSet`` (django-filter) is the one parser. REST, the pages and the feeds hand it
query strings (``"HK,SG"``, ``"true"``, ``"50"``); the tool server hands it typed JSON values
(``["HK", "SG"]``, ``true``, ``50``). Its ``query`` is a frozen, canonical ``ListQuery``
(``tenders.read.query``), or it raises ``ApiError(400, "invalid_parameter")`` with a message
that says what was wrong and what would be accepted, and the parameter's name. Each
parameter's checks are its field's (``tenders.read.fields``); the ``Surface`` of the caller
names the defaults and the other operations in those messages.
"""

from collections.abc import Mapping
from typing import Any

import django_filters
from django import forms
from django.core.exceptions import ValidationError

from core.errors import ApiError
from tenders.buckets import CLOSING_BUCKETS
from tenders.markets import MARKET_CODES
from tenders.read.fields import (
    CategoryField,
    ChoicesField,
    ClosingField,
    CursorField,
    FlagField,
    LangField,
    LimitField,
    ParamField,
    SearchField,
)
from tenders.read.query import (
    BAND_VALUES,
    LIST_PARAMS,
    MAX_LIMIT,
    NO_VOCABULARY,
    REST,
    ROW_PARAMS,
    ListQuery,
    Surface,
    Vocabulary,
    check_params,
)


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

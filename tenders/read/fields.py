"""Each listing parameter as a form field, and the checks behind it. A field takes text (REST,
the pages, the feeds) or a typed JSON value (the tools) and refuses anything else with a
``ValidationError`` whose message is the one a client reads. Pure: no database.
"""

import unicodedata
from types import SimpleNamespace
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from tenders.buckets import CLOSING_BUCKETS
from tenders.read.query import (
    MAX_LIMIT,
    MAX_Q,
    NO_VOCABULARY,
    REST,
    TRUE_WORDS,
    Surface,
    Vocabulary,
    invalid,
)
from tenders.read.rows import LANGS
from tenders.read.search import QueryError, parse_terms

# What a field reads when Django calls it outside a form: no vocabulary, REST's defaults.
NO_FORM = SimpleNamespace(vocabulary=NO_VOCABULARY, surface=REST)


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

    def check(self, value: Any, form: Any) -> Any:
        return None if value is None else self.read(value, form)

    def to_python(self, value: Any) -> Any:
        return self.check(value, NO_FORM)

    def read(self, value: Any, form: Any) -> Any:
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

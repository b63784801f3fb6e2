"""Rows as CSV: the columns ``tenders export --format csv`` writes and how the validator reads
them back. One definition of the columns for both, from the published row schemas.

A full row has one column per field, the category one column per language
(``category_name_en``, ``category_name_zh``, ``category_name_zht``); a one-language row has
``category_name`` and ``summary``. Booleans are ``true``/``false``, null is empty, text is as
written (RFC 4180 quoting, lines ending in CRLF).
"""

import json
from functools import cache
from typing import Any

from . import contract

HEADER_START = "asaptic_id,"


@cache
def columns(one_language: bool) -> tuple[tuple[str, str | None], ...]:
    """(column, member of an object field or None) of a row's CSV line, in schema order."""
    schema = contract.lang_row_schema() if one_language else contract.row_schema()
    found: list[tuple[str, str | None]] = []
    for name, spec in schema["properties"].items():
        if spec.get("type") == "object":
            found += [(f"{name}_{sub}", sub) for sub in spec["properties"]]
        else:
            found.append((name, None))
    return tuple(found)


def header(one_language: bool) -> list[str]:
    return [column for column, _ in columns(one_language)]


def cell(value: Any) -> str:
    """A value as its CSV cell."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def cells(row: dict, one_language: bool) -> list[str]:
    """A row's CSV line."""
    values = []
    for column, sub in columns(one_language):
        if sub is not None:
            value = (row.get(column[: -len(sub) - 1]) or {}).get(sub)
        else:
            value = row.get(column)
        values.append(cell(value))
    return values


def shape_of(names: list[str]) -> bool | None:
    """True for a one-language header, False for a full one, None for neither."""
    for one_language in (False, True):
        if names == header(one_language):
            return one_language
    return None


@cache
def _types(one_language: bool) -> dict[str, tuple[str | None, set[str]]]:
    """Per column: (its object field or None, the JSON types its value may have)."""
    schema = contract.lang_row_schema() if one_language else contract.row_schema()
    found = {}
    for column, sub in columns(one_language):
        parent = column[: -len(sub) - 1] if sub else column
        spec = schema["properties"][parent]
        if sub:
            spec = spec["properties"][sub]
        kinds = {item.get("type") for item in spec.get("anyOf", [spec])}
        found[column] = (parent if sub else None, kinds)
    return found


def row(names: list[str], values: list[str], one_language: bool) -> dict:
    """A CSV line read back as the row it was written from (what cannot be read back stays
    text, for the row schema to name)."""
    types = _types(one_language)
    built: dict[str, Any] = {}
    for column, text in zip(names, values, strict=True):
        parent, kinds = types[column]
        value: Any = text
        if text == "" and "null" in kinds:
            value = None
        elif "boolean" in kinds and text in ("true", "false"):
            value = text == "true"
        if parent:
            built.setdefault(parent, {})[column[len(parent) + 1 :]] = value
        else:
            built[column] = value
    return built

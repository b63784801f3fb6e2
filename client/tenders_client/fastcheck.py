"""A quick "valid" for rows: a published schema compiled into plain Python checks.

``jsonschema`` costs about 100 µs per row, nearly two minutes for a million-row flat file. The
row schemas use a handful of keywords, so :func:`compile_schema` turns one into nested closures
that answer in a few microseconds. It is only ever a shortcut: when it says a value is not
valid, or when a schema uses a keyword it does not know (then it compiles to nothing), the
validator asks ``jsonschema`` itself, which stays the one judge and writes the report. So the
checks here may be stricter than the schema (``1.0`` is not an integer here), never looser.
"""

import re
from collections.abc import Callable
from functools import cache
from typing import Any

Check = Callable[[Any], bool]

# Keywords that only annotate (format is an annotation unless a format checker is asked for).
ANNOTATIONS = {"$schema", "$id", "title", "description", "examples", "format", "$comment"}
KNOWN = ANNOTATIONS | {
    "type",
    "enum",
    "const",
    "pattern",
    "minLength",
    "minimum",
    "required",
    "properties",
    "additionalProperties",
    "anyOf",
}
_TYPES: dict[str, Check] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


class Unsupported(Exception):
    pass


@cache
def pattern_search(pattern: str) -> Callable[[str], Any]:
    """``re.search`` for a JSON Schema pattern, read as ECMA-262 reads it: a final ``$`` is the
    end of the text. Python's ``$`` also matches before a final line break, so a plain
    ``re.search`` would accept ``"AT-TEST-0000000001\\n"`` as an id."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern).search


def compile_schema(schema: dict) -> Check | None:
    """A function that returns True only for values the schema accepts; None if the schema
    uses something this module does not handle."""
    try:
        return _compile(schema)
    except Unsupported:
        return None


_SCALARS = (str, int, float, bool, type(None))


def _same(value: Any, expected: Any) -> bool:
    # The exact type as well as the value: True is not 1 for JSON Schema.
    return type(value) is type(expected) and value == expected


def _compile(schema: dict) -> Check:
    if not isinstance(schema, dict) or set(schema) - KNOWN:
        raise Unsupported
    checks: list[Check] = []
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if any(name not in _TYPES for name in names):
            raise Unsupported
        tests = [_TYPES[name] for name in names]
        checks.append(tests[0] if len(tests) == 1 else lambda v: any(t(v) for t in tests))
    if "enum" in schema:
        if not all(isinstance(choice, _SCALARS) for choice in schema["enum"]):
            raise Unsupported
        # The exact type as well as the value: True is not 1 for JSON Schema.
        choices = {(type(choice), choice) for choice in schema["enum"]}
        checks.append(lambda v: isinstance(v, _SCALARS) and (type(v), v) in choices)
    if "const" in schema:
        constant = schema["const"]
        checks.append(lambda v: _same(v, constant))
    if "pattern" in schema:
        search = pattern_search(schema["pattern"])
        checks.append(lambda v: not isinstance(v, str) or search(v) is not None)
    if "minLength" in schema:
        least = schema["minLength"]
        checks.append(lambda v: not isinstance(v, str) or len(v) >= least)
    if "minimum" in schema:
        floor = schema["minimum"]
        checks.append(
            lambda v: not isinstance(v, (int, float)) or isinstance(v, bool) or v >= floor
        )
    if "anyOf" in schema:
        branches = [_compile(branch) for branch in schema["anyOf"]]
        checks.append(lambda v: any(branch(v) for branch in branches))
    if {"required", "properties", "additionalProperties"} & set(schema):
        checks.append(_object_check(schema))
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)
    return lambda v: all(check(v) for check in checks)


def _object_check(schema: dict) -> Check:
    properties = {name: _compile(sub) for name, sub in schema.get("properties", {}).items()}
    required = tuple(schema.get("required", ()))
    additional = schema.get("additionalProperties", True)
    if additional not in (True, False):
        raise Unsupported
    closed = additional is False

    tests = tuple(properties.items())

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True  # object keywords apply to objects only
        if closed and not value.keys() <= properties.keys():
            return False
        for name in required:
            if name not in value:
                return False
        for name, test in tests:  # noqa: SIM110 (a loop costs less than all() per row)
            if name in value and not test(value[name]):
                return False
        return True

    return check

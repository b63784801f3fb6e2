"""JSON types in words, and which part of a failed ``anyOf`` to explain. Pure.

One vocabulary for every message that names a JSON type: the validator's report, the tool
server's argument errors and the intake's field errors ("must be a string, not an integer").
"""

from collections.abc import Mapping
from typing import Any

from jsonschema import ValidationError

WANTED = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "object": "an object",
    "array": "an array",
    "null": "null",
}


def type_name(value: Any) -> str:
    """The JSON type of a Python value as ``json`` reads and writes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def a_type(value: Any) -> str:
    """``value``'s type as a noun phrase: "a string", "an integer", "a boolean", "null"."""
    name = type_name(value)
    return "a boolean" if name == "boolean" else WANTED.get(name, name)


def schema_types(schema: Mapping) -> list[str]:
    """The JSON types a schema admits, from ``type`` or its ``anyOf`` branches."""
    if "type" in schema:
        kind = schema["type"]
        return list(kind) if isinstance(kind, list) else [kind]
    return [t for branch in schema.get("anyOf", ()) for t in schema_types(branch)]


def wanted(schema: Mapping) -> str:
    """What a schema asks for, in words: "a string or an array of strings"."""
    phrases = []
    for kind in schema_types(schema):
        phrase = WANTED.get(kind, kind)
        if kind == "array":
            items = _branch_of(schema, "array").get("items", {})
            if schema_types(items) == ["string"]:
                phrase = "an array of strings"
        phrases.append(phrase)
    return " or ".join(phrases)


def _branch_of(schema: Mapping, kind: str) -> Mapping:
    for branch in schema.get("anyOf", ()):
        if kind in schema_types(branch):
            return branch
    return schema


def _admits(kind: str, value: Any) -> bool:
    got = type_name(value)
    return got == kind or (kind == "number" and got == "integer")


def explained(error: ValidationError) -> ValidationError | None:
    """The error to explain for one failed value.

    For ``anyOf`` whose branches differ by type, the error inside the branch of the value's
    own type (a bad enum value, an array item of the wrong type); None when no branch takes
    that type at all, which callers word as a type error with :func:`wanted`. Any other
    error is returned as it is.
    """
    if error.validator != "anyOf":
        return error
    for index, branch in enumerate(error.validator_value):
        if any(_admits(kind, error.instance) for kind in schema_types(branch)):
            inner = [e for e in error.context if e.schema_path and e.schema_path[0] == index]
            if inner:
                deepest = max(inner, key=lambda e: len(e.path))
                return explained(deepest)
            return error
    return None

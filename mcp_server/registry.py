"""The machinery of the MCP tools: a tool, the registry, argument checking, results and encoding.

A tool is a name, a title, a description written for a model, an input schema that refuses
unknown arguments, an output schema, and a handler (the nine tools and their schemas are in
``tools``). Arguments are checked against the input schema with ``jsonschema`` before the
handler runs; a failure is a tool error (``isError: true``) whose message names the argument, so
a model can correct its call. The schemas shape types only: which values are valid (markets,
limits, cursors) is decided by the shared selectors and services, with the same messages REST
gives.

A result carries ``structuredContent`` (matching the output schema) and a text: the same JSON,
or, for a handler that returns ``Rendered``, a compact rendering written for a model (the rows
of a listing one line each). A tool error carries, as its text, the error body of ``core.errors``:
``{"error": {"code", "message", "param"}}`` plus ``access_url`` where a code has one.
"""

import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator, ValidationError
from tenders_client.jsontypes import a_type, explained, wanted

from core.database import UNAVAILABLE
from core.errors import ApiError, database_unavailable, error_body

log = logging.getLogger(__name__)

INVALID = "invalid_parameter"


class ToolError(Exception):
    """A tool's own failure: answered as a result with ``isError: true``, never a 500."""

    def __init__(self, message: str, *, code: str = INVALID, param: str | None = None, extra=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.param = param
        self.extra = dict(extra or {})

    def body(self) -> dict:
        return error_body(self.code, self.message, self.param, **self.extra)


@dataclass(frozen=True)
class Rendered:
    """A handler's result with its own text: ``structured`` (a result envelope, or an answer of
    the read path) and ``text``, what a client that shows a
    model only the text content passes on."""

    structured: Any
    text: str


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    input_schema: dict
    output_schema: dict
    # A result envelope, or an answer of the read path (``tenders.read.answers.Answer``).
    handler: Callable[[dict], Any]
    annotations: dict = field(default_factory=dict)
    validator: Draft202012Validator = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        checked = types_only(self.input_schema)
        object.__setattr__(self, "validator", Draft202012Validator(checked))

    def definition(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
            "annotations": self.annotations,
        }

    def check_arguments(self, arguments: dict) -> dict:
        """The arguments to pass to the handler, or a ToolError naming the first bad one.

        A null for a declared optional argument means "not given": several model APIs send
        every declared argument and null the ones they do not use.
        """
        known = self.input_schema.get("properties", {})
        arguments = {k: v for k, v in arguments.items() if not (v is None and k in known)}
        errors = list(self.validator.iter_errors(arguments))
        if errors:
            raise argument_error(self, min(errors, key=_error_rank), arguments)
        return arguments


_KEYWORD_RANK = {"additionalProperties": 0, "required": 1, "type": 2, "anyOf": 2}


def _error_rank(error: ValidationError) -> tuple:
    # Deterministic: unknown names first, then missing ones, then values, in argument order.
    return (
        _KEYWORD_RANK.get(error.validator, 3),
        [str(p) for p in error.absolute_path],
        error.validator,
    )


# Rules on values, left to the domain (see types_only).
_VALUE_RULES = {
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "default",
}


def types_only(schema: Any) -> Any:
    """The schema without its rules on values, for checking arguments before the handler.

    The published schema states the values (``enum``, bounds, lengths) for clients and models;
    the server checks only the shape and leaves values to the shared parser and services, so a
    tool refuses exactly what REST refuses, with the same message (``hk`` and ``"HK,SG"`` are
    accepted by both, as REST's any-case, comma-separated spelling).
    """
    if isinstance(schema, list):
        return [types_only(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept = {}
    for key, value in schema.items():
        if key in _VALUE_RULES:
            continue
        if key == "properties":
            kept[key] = {name: types_only(sub) for name, sub in value.items()}
        else:
            kept[key] = types_only(value)
    return kept


def argument_error(tool: Tool, error: ValidationError, arguments: dict) -> ToolError:
    """A message that names the argument at fault and says what would be accepted."""
    path = list(error.absolute_path)
    properties = tool.input_schema.get("properties", {})
    if error.validator == "additionalProperties" and not path:
        name = sorted(set(arguments) - set(properties))[0]
        accepted = ", ".join(properties) if properties else "no arguments"
        return ToolError(f"Unknown argument '{name}'; {tool.name} accepts: {accepted}.", param=name)
    if error.validator == "required" and not path:
        name = next(p for p in error.validator_value if p not in arguments)
        return ToolError(f"Missing required argument '{name}' of {tool.name}.", param=name)
    name = str(path[0])
    cause = explained(error) or error
    inner = list(cause.absolute_path)
    where = f"Argument '{name}'" + (f" item {inner[1]}" if len(inner) > 1 else "")
    if cause.validator in ("type", "anyOf"):
        return ToolError(
            f"{where} of {tool.name} must be {wanted(cause.schema)}, not {a_type(cause.instance)}.",
            param=name,
        )
    return ToolError(f"{where} of {tool.name}: {cause.message}.", param=name)


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def error_result(body: dict) -> dict:
    return {"content": [{"type": "text", "text": _text(body)}], "isError": True}


class ToolRegistry:
    """Tools by name, in the order they are listed (deterministic, as 2026-07-28 asks)."""

    def __init__(self, tools: Iterable[Tool]):
        self._tools = {tool.name: tool for tool in tools}

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool:
        return self._tools[name]

    def has(self, name: str) -> bool:
        return name in self._tools

    def definitions(self) -> list[dict]:
        return [tool.definition() for tool in self._tools.values()]

    def call(self, name: str, arguments: dict) -> dict:
        """A ``tools/call`` result. Unexpected exceptions propagate (the dispatcher answers
        -32603); the domain's own refusals, and a database that does not answer (the REST
        503 body, with its retry hint), become tool errors."""
        tool = self._tools[name]
        try:
            result = tool.handler(tool.check_arguments(arguments))
        except ToolError as exc:
            return error_result(exc.body())
        except ApiError as exc:
            return error_result(exc.body())
        except UNAVAILABLE as exc:
            log.warning("database unavailable in tool %s: %s", name, exc)
            return error_result(database_unavailable().body())
        if isinstance(result, Rendered):
            structured, text = result.structured, result.text
        elif isinstance(result, dict):
            structured, text = result, _text(result)
        else:  # an answer of the read path: its JSON is the text, as REST sends it
            structured, text = result, result.text()
        if not isinstance(structured, dict):  # an answer of the read path: its values
            structured = dict(structured.value())
        content = [{"type": "text", "text": text}]
        return {"content": content, "structuredContent": structured, "isError": False}

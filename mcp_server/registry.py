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
import secrets
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.core.serializers.json import DjangoJSONEncoder
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
    the read path, whose bytes are sent as they are) and ``text``, what a client that shows a
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
    # A read whose result is a pure function of the current snapshot and the arguments: the
    # registry remembers each result it gave (see ``ToolRegistry.call``).
    per_snapshot: bool = False
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


# An answer of the read path is JSON already (REST sends its bytes): a result carries it as
# these two values, which read as a dict and a str, and which ``encode_json`` writes as the
# answer's own bytes rather than encoding the rows again.


class EncodedObject(dict):
    """The structured content of a result: its values, and ``json`` (their JSON bytes)."""

    __slots__ = ("json",)


class EncodedText(str):
    """The text content of a result: the text, and ``json`` (the text as JSON string bytes)."""


def _encoded(answer) -> tuple[EncodedObject, EncodedText]:
    # The answer's values are parsed once per process and shared (nothing here changes them).
    structured = EncodedObject(answer.value())
    structured.json = answer.body
    text = EncodedText(answer.text())
    text.json = answer.literal()
    return structured, text


def encode_json(value: Any) -> bytes:
    """``value`` as JSON bytes (as ``JsonResponse`` writes it), with the encoded values of
    results written as they are."""
    fragments: dict[bytes, bytes] = {}
    nonce = secrets.token_hex(16)  # marks that no value sent to us can spell

    def swap(item: Any) -> Any:
        if isinstance(item, (EncodedObject, EncodedText)):
            mark = f"\x00{nonce}:{len(fragments)}\x00"
            fragments[json.dumps(mark).encode()] = item.json
            return mark
        if isinstance(item, dict):
            return {key: swap(member) for key, member in item.items()}
        if isinstance(item, list):
            return [swap(member) for member in item]
        return item

    encoded = json.dumps(swap(value), ensure_ascii=False, cls=DjangoJSONEncoder).encode()
    if not fragments:
        return encoded
    # The marks occur in the order they were made (both follow the values' order): the
    # result is written once, the answers' bytes copied once.
    parts = []
    start = 0
    for mark, raw in fragments.items():
        at = encoded.index(mark, start)
        parts += (encoded[start:at], raw)
        start = at + len(mark)
    parts.append(encoded[start:])
    return b"".join(parts)


def error_result(body: dict) -> dict:
    return {"content": [{"type": "text", "text": _text(body)}], "isError": True}


class ResultMemo(Protocol):
    """Where results of ``per_snapshot`` tools are kept (``mcp_server.domain``)."""

    def snapshot(self) -> Hashable | None: ...

    def remembered(self, snapshot: Hashable, tool: str, arguments: str) -> dict | None: ...

    def remember(
        self, snapshot: Hashable, tool: str, arguments: str, result: dict, body: bytes
    ) -> None: ...


class ToolRegistry:
    """Tools by name, in the order they are listed (deterministic, as 2026-07-28 asks)."""

    def __init__(self, tools: Iterable[Tool], memo: ResultMemo | None = None):
        self._tools = {tool.name: tool for tool in tools}
        self.memo = memo

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
        503 body, with its retry hint), become tool errors.

        A ``per_snapshot`` tool's result is remembered under the snapshot this process knows
        current (asked without a query) and the arguments as sent; the same call again gets
        it back, encoded already, without checking arguments or planning anything. Only a
        success is kept, and only when the snapshot did not change while it was made (a
        cursor of a newer issue teaches the process of the switch)."""
        tool = self._tools[name]
        snapshot = self.memo.snapshot() if tool.per_snapshot and self.memo else None
        if snapshot is None:
            return self._call(tool, arguments)
        spelled = json.dumps(arguments, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        found = self.memo.remembered(snapshot, name, spelled)
        if found is not None:
            return found
        result = self._call(tool, arguments)
        if result["isError"] is False and self.memo.snapshot() == snapshot:
            body = encode_json(result)
            result = EncodedObject(result)
            result.json = body
            self.memo.remember(snapshot, name, spelled, result, body)
        return result

    def _call(self, tool: Tool, arguments: dict) -> dict:
        name = tool.name
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
            if not isinstance(structured, dict):  # an answer of the read path: its bytes
                structured = _encoded(structured)[0]
        elif isinstance(result, dict):
            structured, text = result, _text(result)
        else:  # an answer of the read path: its JSON is the text, as REST sends it
            structured, text = _encoded(result)
        content = [{"type": "text", "text": text}]
        return {"content": content, "structuredContent": structured, "isError": False}

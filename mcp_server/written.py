"""Replies written around results that carry their JSON bytes (remembered tool results, see
``mcp_server.registry``): the bytes ``json.dumps`` would write for the same values (default
separators, ``ensure_ascii=False``), the result's copied once instead of encoded again.
Pure: nothing here knows Django."""

import json


class Written(dict):
    """A result and its JSON bytes (``json``)."""

    __slots__ = ("json",)


def _raw(result: dict) -> bytes | None:
    raw = getattr(result, "json", None)
    return raw if isinstance(raw, bytes) else None


def _members(value: dict) -> bytes:
    """The members of an object as ``json.dumps`` writes them, without the braces."""
    return json.dumps(value, ensure_ascii=False)[1:-1].encode()


def with_members(head: dict, result: dict, tail: dict) -> dict:
    """``{**head, **result, **tail}``; when ``result`` carries its JSON bytes and shares no
    member with the others, the merged result carries its own."""
    merged = {**head, **result, **tail}
    raw = _raw(result)
    if raw is None or len(merged) != len(head) + len(result) + len(tail):
        return merged
    parts = [_members(head), raw.strip()[1:-1].strip(), _members(tail)]
    written = Written(merged)
    written.json = b"{" + b", ".join(part for part in parts if part) + b"}"
    return written


def envelope(request_id: str | int, result: dict) -> tuple[dict, bytes | None]:
    """The response to a request, and its bytes when the result carries its own."""
    body = {"jsonrpc": "2.0", "id": request_id, "result": result}
    raw = _raw(result)
    if raw is None:
        return body, None
    spelled = json.dumps(request_id, ensure_ascii=False).encode()
    return body, b"".join((b'{"jsonrpc": "2.0", "id": ', spelled, b', "result": ', raw, b"}"))

"""The short way of a repeated read-tool call: the outermost middleware for ``POST /mcp``.

A ``tools/call`` of ``list_tenders`` or ``get_tender`` whose result the registry remembered
(``mcp_server.registry``) is answered by the view with bytes written around that result
(``mcp_server.written``), which the view marks. Whatever else the stack does with such a reply
depends only on the message, the headers named in ``HEADERS`` and the snapshot: so this
middleware keeps the status, headers and body the whole stack sent, keyed by the snapshot, the
message without its id and those headers, and answers the same call again with them, the new
id written in (and the length to match), before any other middleware, view or parser runs.

Only a small body read by the same strict parser, without ``Origin`` or a chunked transfer,
for the snapshot this process knows current without a query, is looked up; anything else, and
every miss, takes the whole way. A reply is kept only when the snapshot was the same before and
after it was made.

A body is parsed only the first time its bytes are seen (but for the id): once a call is
answered or kept, its body with the id's value cut out (``shape``) is remembered as another
name of the same call, checked first. The cut is found without parsing, by the pattern of a
member ``"id"`` and a plain value (``ID``), and is only ever looked up: it names a call when
the same bytes around it were checked once, by parsing them with another id written in, to
hold the message's own id there. Bytes that differ in any other way (spacing, order of
members, escapes) are parsed once and then have a name of their own.
"""

import json
import re

from core.errors import ApiError
from core.jsonbody import parse_json
from tenders.api.fast import Sent
from tenders.read import answers, current

PATH = "/mcp"
# The request headers (WSGI names) an answer depends on besides the body.
HEADERS = (
    "CONTENT_TYPE",
    "HTTP_ACCEPT",
    "HTTP_MCP_PROTOCOL_VERSION",
    "HTTP_MCP_METHOD",
    "HTTP_MCP_NAME",
)
MAX_BODY = 16 * 1024
PREFIX = b'{"jsonrpc": "2.0", "id": '
# A member "id" and its value, when that value is spelled as json.dumps spells what it reads:
# an integer without sign of zero or leading zeros, or a string of printable ASCII without
# escapes. Any other id (and any other match than the message's own) finds no shape.
ID = re.compile(rb'"id"[ \t\n\r]*:[ \t\n\r]*((?:0|-?[1-9][0-9]{0,99})(?![0-9.eE])|"[ !#-\[\]-~]*")')
# Written where the id was cut out: never in a JSON text outside a string, nor raw in one.
CUT = b"\x00"
# Written in once, where a shape's id is believed to be, to check that it is.
PROBE = "mcp-short-probe"


def _call(request) -> tuple[bytes, tuple] | None:
    """(body, headers) of a request this middleware may answer, else None."""
    meta = request.META
    if request.method != "POST" or request.path_info != PATH:
        return None
    if "HTTP_ORIGIN" in meta or "HTTP_TRANSFER_ENCODING" in meta:
        return None
    try:
        length = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None
    if not 0 < length <= MAX_BODY:
        return None
    return request.body, tuple(meta.get(name) for name in HEADERS)


def _parsed(body: bytes, headers: tuple) -> tuple[str | int, str] | None:
    """(id, the call as a key) of a body, parsed, else None."""
    try:
        message = parse_json(body)
    except ApiError:
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    request_id = message.pop("id", None)
    if not _an_id(request_id):
        return None
    spelled = json.dumps(
        [message, list(headers)], ensure_ascii=False, sort_keys=True, separators=(",", ":")
    )
    return request_id, spelled


def _an_id(value: object) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _cuts(body: bytes):
    """(shape, the id's bytes) for each place the pattern of an id matches in ``body``."""
    for found in ID.finditer(body):
        start, end = found.span(1)
        yield body[:start] + CUT + body[end:], found[1]


def _shape_key(snapshot: tuple[int, str], headers: tuple, shape: bytes) -> str:
    # The headers' repr ends where its parentheses close: the shape cannot run into it.
    return answers.raw_key(snapshot, "mcp-shape", f"{headers!r}{shape.decode('latin-1')}")


def _by_shape(snapshot, body: bytes, headers: tuple) -> tuple[bytes, str] | None:
    """(the id's bytes, the call's key) of a body whose shape was checked before."""
    memo = answers.memo()
    for shape, spelled_id in _cuts(body):
        name = memo.get(_shape_key(snapshot, headers, shape))
        if name is not None:
            return spelled_id, name.key
    return None


def _learn(snapshot, body: bytes, headers: tuple, request_id: str | int, key: str) -> None:
    """Remember the shape of ``body`` as another name of the call ``key``, when the cut is
    where the message's own id is: the same bytes with ``PROBE`` written there parse to a
    message whose id is ``PROBE``."""
    if request_id == PROBE:
        return
    probe = json.dumps(PROBE).encode()
    for shape, _ in _cuts(body):
        try:
            message = parse_json(shape.replace(CUT, probe, 1))
        except ApiError:
            continue
        if isinstance(message, dict) and message.get("id") == PROBE:
            answers.memo().put(_shape_key(snapshot, headers, shape), Name(key))
            return


class Name(answers.Answer):
    """Another name of a kept call: the key it is kept under."""

    __slots__ = ("key",)

    def __init__(self, key: str):
        super().__init__(b"", 200)
        self.key = key


def _known() -> tuple[int, str] | None:
    # Outside the request's database answer limit (core.middleware): no listener made.
    snapshot = current.kept_snapshot(connect=False)
    return None if snapshot is current.UNKNOWN else snapshot


def _id(request_id: str | int) -> bytes:
    return json.dumps(request_id, ensure_ascii=False).encode()


class ShortWay:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        call = _call(request)
        snapshot = _known() if call is not None else None
        if snapshot is None:
            return self.get_response(request)
        body, headers = call
        memo = answers.memo()
        seen = _by_shape(snapshot, body, headers)
        if seen is not None:
            spelled_id, key = seen
            sent = memo.get(key)
            if sent is not None:
                return sent.replay(b"".join((PREFIX, spelled_id, sent.body)))
        parsed = _parsed(body, headers)
        if parsed is None:
            return self.get_response(request)
        request_id, spelled = parsed
        key = answers.raw_key(snapshot, "mcp-sent", spelled)
        sent = memo.get(key)
        if sent is not None:
            _learn(snapshot, body, headers, request_id, key)
            return sent.replay(b"".join((PREFIX, _id(request_id), sent.body)))
        response = self.get_response(request)
        head = PREFIX + _id(request_id)
        if (
            getattr(response, "remembered", False)
            and response.status_code == 200
            and not response.streaming
            and not response.cookies
            and not response.has_header("Vary")
            and response.content.startswith(head)
            and _known() == snapshot
        ):
            rest = response.content[len(head) :]
            memo.put(key, Sent(rest, 200, tuple(response.items())))
            _learn(snapshot, body, headers, request_id, key)
        return response

"""The response cache: the outermost middleware, for the listing, one row and the read tools.

A 200 of ``GET /api/v1/tenders``, ``GET /api/v1/tenders/<id>`` or of a ``tools/call`` of
``list_tenders`` or ``get_tender`` on ``POST /mcp`` depends only on the current snapshot and
the request. So this middleware keeps each such response as the whole stack sent it (status,
headers, body) and answers the same request again with it, before any other middleware runs,
without a query.

The key is the snapshot (pk and etag), the surface and the request in a canonical form:

- REST: the scheme, the path and the query string as sent;
- MCP: the scheme, the message parsed by the strict JSON parser without its id, dumped with
  sorted keys, and the headers the answer depends on (``HEADERS``). A hit writes the new id in.

Only a response the view marked (``response.cacheable``), a 200 without cookies or ``Vary``,
answered from one snapshot, is kept. The snapshot of a lookup is the one this process knows
current without a query (``tenders.read.current.kept_snapshot``: LISTEN/NOTIFY on PostgreSQL,
a marker file on SQLite); when it is not known, the request takes the whole way. A new
snapshot makes every older key unreachable; the least recently used entries leave first
(``tenders.read.answers.responses``, bounded by bytes).

A request with ``If-None-Match`` naming the kept snapshot gets a 304 made from the kept 200's
headers, as the whole stack makes it. Anything the middleware stack could answer otherwise (a
Host it refuses, user agents refused by settings, a redirect to www, a browser's ``Origin`` on
``/mcp``) takes the whole way.
"""

import json

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpResponse

from core.api import etag_matches, named_snapshots
from core.errors import ApiError
from core.jsonbody import parse_json
from tenders.read import answers, current

LISTING = "/api/v1/tenders"
ROW = "/api/v1/tenders/"
FACETS = "/api/v1/tenders/facets"
MCP = "/mcp"
# The tools whose result is a function of the snapshot and the arguments alone.
TOOLS = frozenset({"list_tenders", "get_tender"})
# The request headers (WSGI names) an MCP answer depends on besides the body.
HEADERS = (
    "CONTENT_TYPE",
    "HTTP_ACCEPT",
    "HTTP_MCP_PROTOCOL_VERSION",
    "HTTP_MCP_METHOD",
    "HTTP_MCP_NAME",
)
MAX_BODY = 16 * 1024
# How the MCP view writes a reply (json.dumps): the id follows these bytes.
REPLY_HEAD = b'{"jsonrpc": "2.0", "id": '
# Headers of a 200 that say what its body is.
BODY = frozenset({"content-type", "content-length"})


class Kept:
    """A response as the whole stack sent it. For MCP, ``body`` is what follows the id."""

    __slots__ = ("body", "headers")

    def __init__(self, body: bytes, headers: dict):
        self.body = body
        # As ResponseHeaders holds them (lower-case name: (name, value)), checked once.
        self.headers = headers

    def response(self, body: bytes | None = None) -> HttpResponse:
        """The 200 again; with ``body`` (and its length) instead of the kept one if given."""
        response = HttpResponse(self.body if body is None else body)
        headers = dict(self.headers)
        if body is not None:
            headers["content-length"] = ("Content-Length", str(len(body)))
        response.headers._store = headers
        return response

    def not_modified(self) -> HttpResponse:
        """The 304 the stack sends for the same snapshot: these headers, but the body's type
        and length (Django's default type, and an empty body)."""
        response = HttpResponse(status=304)
        store = response.headers._store
        store.update((name, pair) for name, pair in self.headers.items() if name not in BODY)
        store["content-length"] = ("Content-Length", "0")
        return response


def _key(snapshot: tuple[int, str], surface: str, request: str) -> str:
    return f"{snapshot[0]}:{snapshot[1]}:{surface}:{request}"


def _answered_alike(request) -> bool:
    """Whether the other middleware would answer this request as it answers any other of the
    same key: no user agents refused, no redirect to www, a Host it accepts."""
    if settings.DISALLOWED_USER_AGENTS or settings.PREPEND_WWW:
        return False
    try:
        request.get_host()
    except DisallowedHost:
        return False
    return True


def _rest_request(request) -> str | None:
    """The canonical form of a listing or row request, else None."""
    if request.method not in ("GET", "HEAD"):
        return None
    path = request.path_info
    if path != LISTING and not (path.startswith(ROW) and path != FACETS):
        return None
    return f"{request.scheme}:{path}?{request.META.get('QUERY_STRING', '')}"


def _mcp_call(request) -> tuple[str | int, str] | None:
    """(id, canonical form) of a read-tool call on ``/mcp``, else None."""
    meta = request.META
    if request.method != "POST" or request.path_info != MCP:
        return None
    if "HTTP_ORIGIN" in meta or "HTTP_TRANSFER_ENCODING" in meta:
        return None
    try:
        length = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None
    if not 0 < length <= MAX_BODY:
        return None
    try:
        message = parse_json(request.body)
    except ApiError:
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    params = message.get("params")
    if not isinstance(params, dict) or params.get("name") not in TOOLS:
        return None
    request_id = message.pop("id", None)
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        return None
    spelled = json.dumps(
        [request.scheme, message, [meta.get(name) for name in HEADERS]],
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    return request_id, spelled


def _keepable(response) -> bool:
    return (
        getattr(response, "cacheable", False)
        and response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not response.has_header("Vary")
    )


def _headers(response) -> dict:
    return dict(response.headers._store)


class ResponseCache:
    """The outermost middleware (see the module's docstring)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        spelled = _rest_request(request)
        if spelled is not None:
            return self._rest(request, spelled)
        call = _mcp_call(request)
        if call is not None:
            return self._mcp(request, *call)
        return self.get_response(request)

    def _rest(self, request, spelled: str):
        conditional = "HTTP_IF_NONE_MATCH" in request.META
        named = named_snapshots(request) if conditional else ()
        # Outside the request's database answer limit (core.middleware): no listener made.
        snapshot = current.kept_snapshot(naming=named, connect=False)
        if snapshot is not current.UNKNOWN and snapshot is not None:
            found = answers.responses().get(_key(snapshot, "rest", spelled))
            if found is not None and _answered_alike(request):
                if conditional and etag_matches(request, snapshot[1]):
                    return found.not_modified()
                return found.response()
        with current.serving() as served:
            response = self.get_response(request)
        if _keepable(response) and len(served) == 1:
            (snapshot,) = served
            if snapshot is not None:
                found = Kept(response.content, _headers(response))
                answers.responses().put(_key(snapshot, "rest", spelled), found)
        return response

    def _mcp(self, request, request_id: str | int, spelled: str):
        snapshot = current.kept_snapshot(connect=False)
        head = REPLY_HEAD + json.dumps(request_id, ensure_ascii=False).encode()
        if snapshot is not current.UNKNOWN and snapshot is not None:
            found = answers.responses().get(_key(snapshot, "mcp", spelled))
            if found is not None and _answered_alike(request):
                return found.response(head + found.body)
        with current.serving() as served:
            response = self.get_response(request)
        if _keepable(response) and len(served) == 1 and response.content.startswith(head):
            (snapshot,) = served
            if snapshot is not None:
                found = Kept(response.content[len(head) :], _headers(response))
                answers.responses().put(_key(snapshot, "mcp", spelled), found)
        return response

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
"""

import json

from django.http import HttpResponse

from config.errors import ApiError
from config.jsonbody import parse_json
from tenders import answers, current
from tenders.api.fast import Sent

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


def _call(request) -> tuple[str | int, str] | None:
    """(id, the call as a key) of a request this middleware may answer, else None."""
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
    try:
        message = parse_json(request.body)
    except ApiError:
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    request_id = message.pop("id", None)
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        return None
    headers = [meta.get(name) for name in HEADERS]
    spelled = json.dumps(
        [message, headers], ensure_ascii=False, sort_keys=True, separators=(",", ":")
    )
    return request_id, spelled


def _known() -> tuple[int, str] | None:
    # Outside the request's database answer limit (config.middleware): no listener made.
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
        request_id, spelled = call
        key = answers.raw_key(snapshot, "mcp-sent", spelled)
        sent = answers.memo().get(key)
        if sent is not None:
            body = b"".join((PREFIX, _id(request_id), sent.body))
            headers = dict(sent.headers)
            headers["Content-Length"] = str(len(body))
            return HttpResponse(body, status=sent.status, headers=headers)
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
            answers.memo().put(key, Sent(rest, 200, tuple(response.items())))
        return response

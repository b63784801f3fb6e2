"""HTTP face of the tool server: ``/mcp`` (Streamable HTTP) and ``/.well-known/mcp.json``.

Thin: the view enforces what belongs to HTTP (Origin, method, Content-Type, Accept, body size)
and hands the body to ``protocol``; JSON-RPC and MCP rules live there. We always answer a
request with one ``application/json`` object and never open a server-sent event stream, which
every revision allows; so no session id is issued either (see ``protocol``).
"""

import json

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt

from core import jsonbody
from core.api import read_only
from core.clients import client_info
from core.errors import ApiError
from core.http import negotiated_quality

from . import domain
from .protocol import (
    INVALID_REQUEST,
    METHOD_HEADER,
    NAME_HEADER,
    VERSION_HEADER,
    RpcError,
    error_response,
)
from .server import manifest, protocol

ALLOW = "GET, HEAD, POST, OPTIONS"


def _error(status: int, message: str, **headers: str) -> JsonResponse:
    # Refusals at the HTTP layer still carry a JSON-RPC error (with a null id, the request not
    # having been read), so a client can always show why.
    response = JsonResponse(error_response(None, RpcError(INVALID_REQUEST, message)), status=status)
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def accepts(header: str | None, media_type: str) -> bool:
    """Whether an Accept header allows ``media_type`` (no header allows everything).

    The most specific matching range decides, so ``*/*, application/json;q=0`` refuses JSON.
    """
    if header is None or not header.strip():
        return True
    family = media_type.split("/")[0] + "/*"
    quality = negotiated_quality(header, [media_type], [family, "*/*"])
    return quality is not None and quality > 0


def _same_origin(request: HttpRequest, origin: str) -> bool:
    return origin.lower() == f"{request.scheme}://{request.get_host()}".lower()


def origin_allowed(request: HttpRequest, origin: str | None) -> bool:
    """DNS-rebinding protection: a browser page may call only from this server's own origin or
    from one in ``MCP_ALLOWED_ORIGINS``. Non-browser clients send no Origin and pass."""
    if origin is None:
        return True
    allowed = {o.rstrip("/").lower() for o in settings.MCP_ALLOWED_ORIGINS}
    return origin.rstrip("/").lower() in allowed or _same_origin(request, origin)


def _endpoint_url(request: HttpRequest) -> str:
    path = reverse("mcp")
    if settings.PUBLIC_BASE_URL:
        return settings.PUBLIC_BASE_URL + path
    return request.build_absolute_uri(path)


@csrf_exempt
def mcp_endpoint(request: HttpRequest) -> HttpResponse:
    origin = request.META.get("HTTP_ORIGIN")
    if not origin_allowed(request, origin):
        return _error(403, f"Forbidden: requests from origin {origin[:100]!r} are not allowed.")
    if request.method == "POST":
        response = _post(request)
    elif request.method in ("GET", "HEAD"):
        response = _get(request)
    elif request.method == "OPTIONS":
        response = _preflight(request)
    else:
        response = _error(
            405,
            "Method Not Allowed: POST JSON-RPC messages; GET returns the discovery manifest. "
            "This server keeps no sessions, so there is none to delete.",
            Allow=ALLOW,
        )
    if origin is not None:
        response["Vary"] = "Origin"
        if not _same_origin(request, origin):
            response["Access-Control-Allow-Origin"] = origin
    return response


def _post(request: HttpRequest) -> HttpResponse:
    # The one strict body reader of POST /rfq too; the protocol parses with its parse_json.
    try:
        jsonbody.check_content_type(request.META.get("CONTENT_TYPE"))
        if not accepts(request.META.get("HTTP_ACCEPT"), "application/json"):
            return _error(
                406, "Not Acceptable: this server answers with application/json; accept it."
            )
        body = jsonbody.read_body(request, settings.MCP_MAX_BODY_BYTES)
    except ApiError as refusal:
        return _error(refusal.status, refusal.message)

    def caller() -> domain.Caller:  # asked for only by the tools that record or link
        site = settings.PUBLIC_BASE_URL or f"{request.scheme}://{request.get_host()}"
        return domain.Caller(client_info(request), base_url=site)

    with domain.calling(caller):
        reply = protocol().handle(body, mcp_headers(request))
    if reply.body is None:
        response = HttpResponse(status=reply.status)
        # A 202 has no body, so it has no content type either.
        del response["Content-Type"]
    else:
        raw = json.dumps(reply.body, ensure_ascii=False, cls=DjangoJSONEncoder).encode()
        response = HttpResponse(raw, status=reply.status, content_type="application/json")
        # A tool's result, not an error: the response cache may keep a read tool's.
        result = reply.body.get("result")
        response.cacheable = isinstance(result, dict) and result.get("isError") is False
    response["Cache-Control"] = "no-store"
    return response


def mcp_headers(request: HttpRequest) -> dict[str, str]:
    """The headers the protocol reads (the ones MCP defines), by their lower-case names."""
    meta = request.META
    return {
        name: meta[key]
        for name, key in (
            (VERSION_HEADER, "HTTP_MCP_PROTOCOL_VERSION"),
            (METHOD_HEADER, "HTTP_MCP_METHOD"),
            (NAME_HEADER, "HTTP_MCP_NAME"),
        )
        if key in meta
    }


def _get(request: HttpRequest) -> HttpResponse:
    accept = request.headers.get("Accept")
    if not accepts(accept, "application/json"):
        if accepts(accept, "text/event-stream"):
            # A client of 2025-06-18/2025-11-25 opening its optional listening stream: the
            # transport tells a server without one to answer 405.
            return _error(
                405,
                "Method Not Allowed: this server opens no event stream; POST JSON-RPC messages.",
                Allow=ALLOW,
            )
        return _error(406, "Not Acceptable: the discovery manifest is application/json.")
    response = JsonResponse(manifest(_endpoint_url(request)))
    response["Cache-Control"] = "public, max-age=300"
    return response


def _preflight(request: HttpRequest) -> HttpResponse:
    """CORS preflight for the browser origins allowed above (others were refused already)."""
    response = HttpResponse(status=204)
    del response["Content-Type"]
    response["Allow"] = ALLOW
    if request.headers.get("Origin") is not None:
        response["Access-Control-Allow-Methods"] = "GET, POST"
        requested = request.headers.get("Access-Control-Request-Headers")
        if requested:
            response["Access-Control-Allow-Headers"] = requested
        response["Access-Control-Max-Age"] = "600"
    return response


@read_only
def well_known(request: HttpRequest) -> HttpResponse:
    """``/.well-known/mcp.json``: the same manifest, for crawlers and client set-up."""
    response = JsonResponse(manifest(_endpoint_url(request)))
    response["Cache-Control"] = "public, max-age=300"
    response["Access-Control-Allow-Origin"] = "*"
    return response

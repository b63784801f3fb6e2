"""HTTP plumbing shared by the public JSON endpoints (tenders, sourcing, discovery).

- ``PublicView``: a keyless, read-only DRF view that always answers JSON (no content
  negotiation to fail), answers CORS preflights, and lists its methods in ``Allow``.
- ``read_only``: the same for a plain view of a public document (OpenAPI, schemas, llms.txt,
  the MCP manifest).
- ``exception_handler``: DRF's errors in the one error body of ``core.errors``.
- Conditional GETs: strong ETags and 304 on ``If-None-Match``.
"""

import logging
from functools import wraps

from django.conf import settings
from django.http import Http404, HttpResponse, JsonResponse
from django.utils.http import parse_etags, quote_etag
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from core.database import is_unavailable
from core.errors import DATABASE_RETRY_AFTER, ApiError, database_unavailable, error_body

log = logging.getLogger(__name__)

# Caches may keep a copy but must revalidate it (a cheap 304): an emergency withdrawal of a
# row has to reach every reader at once, so no copy may be served as fresh.
PUBLIC_CACHE = "public, no-cache"
NO_STORE = "no-store"

DRF_CODES = {
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.ParseError: "invalid_json",
    exceptions.Throttled: "rate_limited",
    exceptions.NotFound: "not_found",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotAuthenticated: "forbidden",
    exceptions.AuthenticationFailed: "forbidden",
    exceptions.ValidationError: "invalid_request",
}


class JsonOnly(BaseContentNegotiation):
    """These endpoints speak JSON whatever the client asks for, rather than answer 406."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class PublicView(APIView):
    http_method_names = ["get", "head", "options"]
    authentication_classes = []
    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JsonOnly

    def options(self, request, *args, **kwargs):
        # A CORS preflight needs only the headers (added by core.middleware).
        return HttpResponse(status=204)


READ_ONLY_METHODS = "GET, HEAD, OPTIONS"


def not_allowed_message(method: str, allowed: str) -> str:
    return f"Method {method} is not allowed here; use {allowed}."


def read_only(view):
    """GET and HEAD reach the view; OPTIONS answers the methods (a CORS preflight); any other
    method is a 405 JSON error with ``Allow``. Nothing here changes state, so CSRF does not
    apply: a POST gets that 405, not Django's CSRF failure page."""

    @csrf_exempt
    @wraps(view)
    def answer(request, *args, **kwargs):
        if request.method in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        if request.method == "OPTIONS":
            response = HttpResponse(status=204)
            del response["Content-Type"]
        else:
            message = not_allowed_message(request.method, READ_ONLY_METHODS)
            response = JsonResponse(error_body("method_not_allowed", message), status=405)
        response["Allow"] = READ_ONLY_METHODS
        return response

    return answer


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: every error as ``{"error": {code, message, param?}}``."""
    headers = {}
    if isinstance(exc, ApiError):
        body, status = exc.body(), exc.status
    elif isinstance(exc, Http404):
        body, status = error_body("not_found", "Nothing here."), 404
    elif is_unavailable(exc):
        log.warning("database unavailable: %s", exc)
        body, status = database_unavailable().body(), 503
        headers = {"Retry-After": str(DATABASE_RETRY_AFTER)}
    elif isinstance(exc, exceptions.APIException):
        status = exc.status_code
        code = next((c for t, c in DRF_CODES.items() if isinstance(exc, t)), "error")
        param = None
        if isinstance(exc, exceptions.ValidationError) and isinstance(exc.detail, dict):
            param, problems = next(iter(exc.detail.items()), (None, None))
            detail = problems[0] if isinstance(problems, list) and problems else problems
            message = f"{param}: {detail}" if param else str(detail)
        elif isinstance(exc, exceptions.MethodNotAllowed):
            view = context.get("view")
            allowed = ", ".join(view.allowed_methods) if view else "GET"
            message = not_allowed_message(context["request"].method, allowed)
        else:
            message = str(exc.detail)
        body = error_body(code, message, param)
        if getattr(exc, "wait", None):
            headers["Retry-After"] = str(int(exc.wait))
    else:
        return None
    return Response(body, status=status, headers=headers)


# --- conditional GET --------------------------------------------------------------------


def etag_matches(request, etag: str) -> bool:
    header = request.headers.get("If-None-Match")
    if not header or not etag:
        return False
    tags = parse_etags(header)
    if "*" in tags:
        return True
    ours = quote_etag(etag)
    return any(tag.removeprefix("W/") == ours for tag in tags)


def named_snapshots(request) -> frozenset[str]:
    """The snapshot etags a request's ``If-None-Match`` names (quotes, ``W/`` and a suffix
    such as ``-degraded`` dropped; ``*`` names none): the request knows of these snapshots."""
    header = request.headers.get("If-None-Match")
    if not header:
        return frozenset()
    tags = (tag.removeprefix("W/").strip('"') for tag in parse_etags(header) if tag != "*")
    return frozenset(tag.split("-", 1)[0] for tag in tags if tag)


def cache_headers(response, etag: str | None, cache_control: str = PUBLIC_CACHE):
    if etag:
        response["ETag"] = quote_etag(etag)
    response["Cache-Control"] = cache_control
    return response


def not_modified(etag: str, cache_control: str = PUBLIC_CACHE, vary: str | None = None):
    response = cache_headers(HttpResponse(status=304), etag, cache_control)
    if vary:
        response["Vary"] = vary
    return response


def query_params(request) -> dict:
    """Query parameters as a plain mapping; a name given more than once maps to a list."""
    return {name: v[0] if len(v) == 1 else v for name, v in request.GET.lists()}


def absolute_url(request, path: str) -> str:
    if settings.PUBLIC_BASE_URL:
        return settings.PUBLIC_BASE_URL + path
    return request.build_absolute_uri(path)


def base_url(request) -> str:
    return absolute_url(request, "/").rstrip("/")

"""Answer limits, JSON errors and CORS around every request, and where the admin lives.

- ``DatabaseAnswerLimit`` (outermost but for the response cache, ``tenders.api.cache``, which
  asks nothing of the database): each request waits on the database at most its answer limit
  (``core.database``), health probes least, staff pages most.
- ``PublicApiMiddleware``: Django renders its own HTML pages for a path that does not resolve,
  a method a plain view refuses, a bad ``Host`` or a crash. Under the JSON paths those become
  the error body of ``core.errors`` (the status and any ``Allow`` or ``Retry-After`` header
  are kept), so a client never has to parse HTML. Keyless GETs get
  ``Access-Control-Allow-Origin: *`` so browsers may read them.
- ``server_error`` (``handler500``): a database that does not answer is a 503 with
  ``Retry-After`` on every surface, not a 500.
- ``StaffAdminMiddleware``: the admin only on ``STAFF_ADMIN_HOST`` when set (404 on every other
  host name), and never indexed (``X-Robots-Tag``).
"""

import logging
import sys

from django.conf import settings
from django.http import Http404, HttpResponse, JsonResponse
from django.template import TemplateDoesNotExist, loader
from django.views import defaults

from core.database import answer_within, is_unavailable
from core.errors import DATABASE_RETRY_AFTER, database_unavailable, error_body

MCP_PATH = "/mcp"
# JSON-RPC 2.0's "Invalid Request": the tool server's refusals of a request it cannot read.
JSONRPC_INVALID_REQUEST = -32600

log = logging.getLogger("django.request")

JSON_PREFIXES = ("/api/", "/agent/", "/tender/", "/schema/")
JSON_PATHS = {"/healthz", "/openapi.json", "/.well-known/mcp.json", "/rfq", MCP_PATH}
CORS_PREFIXES = JSON_PREFIXES
CORS_PATHS = {"/healthz", "/openapi.json", "/llms.txt"}
READ_METHODS = {"GET", "HEAD", "OPTIONS"}

GENERIC = {
    400: (
        "bad_request",
        "The request could not be understood: check the URL, the headers and that the Host "
        "header names this service.",
    ),
    403: ("forbidden", "This request is not allowed."),
    404: ("not_found", "No such path. The API is described at /openapi.json and /llms.txt."),
    405: ("method_not_allowed", "This method is not allowed here; see the Allow header."),
    500: ("internal_error", "Something went wrong on our side; it has been logged."),
    503: ("service_unavailable", database_unavailable().message),
}
KEPT_HEADERS = ("Allow", "Retry-After")
HEALTH_PATHS = {"/api/v1/health", "/healthz"}
STAFF_PREFIX = "/admin/"


class DatabaseAnswerLimit:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with answer_within(settings.DATABASE_ANSWER_LIMITS[_kind(request.path_info)]):
            return self.get_response(request)


def _kind(path: str) -> str:
    if path in HEALTH_PATHS:
        return "health"
    return "staff" if path.startswith(STAFF_PREFIX) else "public"


def _is_json_path(path: str) -> bool:
    return path.startswith(JSON_PREFIXES) or path in JSON_PATHS


def _json_error(status: int, path: str) -> JsonResponse:
    code, message = GENERIC.get(status, ("error", "The request failed."))
    if path == MCP_PATH:
        # The tool server's own refusals carry a JSON-RPC error with a null id; so do these.
        error = {"code": JSONRPC_INVALID_REQUEST, "message": message}
        return JsonResponse({"jsonrpc": "2.0", "id": None, "error": error}, status=status)
    return JsonResponse(error_body(code, message), status=status)


class PublicApiMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        path = request.path_info
        if (
            _is_json_path(path)
            and response.status_code >= 400
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            replacement = _json_error(response.status_code, path)
            for header in KEPT_HEADERS:
                if response.has_header(header):
                    replacement[header] = response[header]
            response = replacement
        if request.method in READ_METHODS and (
            path.startswith(CORS_PREFIXES) or path in CORS_PATHS
        ):
            response["Access-Control-Allow-Origin"] = "*"
            response["Access-Control-Expose-Headers"] = "ETag, Retry-After"
            if request.method == "OPTIONS":
                response["Access-Control-Allow-Methods"] = "GET, HEAD, OPTIONS"
                response["Access-Control-Allow-Headers"] = "Accept, If-None-Match"
                response["Access-Control-Max-Age"] = "86400"
        return response

    def process_exception(self, request, exception):
        if not _is_json_path(request.path_info):
            return None
        if is_unavailable(exception):
            log.warning("database unavailable: %s %s: %s", request.method, request.path, exception)
            return _unavailable(JsonResponse(database_unavailable().body(), status=503))
        log.error(
            "Internal Server Error: %s",
            request.path,
            exc_info=exception,
            extra={"request": request},
        )
        return _json_error(500, request.path_info)


def _unavailable(response: HttpResponse) -> HttpResponse:
    response["Retry-After"] = str(DATABASE_RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    return response


def server_error(request):
    """``handler500``: the people's error page, or a 503 when the database does not answer
    (Django calls this while the exception is being handled, so ``sys.exc_info()`` has it)."""
    if not is_unavailable(sys.exc_info()[1]):
        return defaults.server_error(request)
    try:
        body = loader.select_template(["503.html", "500.html"]).render()
    except TemplateDoesNotExist:
        body = "<h1>Service unavailable</h1><p>Please try again in a minute.</p>"
    return _unavailable(HttpResponse(body, status=503))


class StaffAdminMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.prefix = "/" + settings.STAFF_ADMIN_PATH

    def __call__(self, request):
        if not request.path.startswith(self.prefix):
            return self.get_response(request)
        host = settings.STAFF_ADMIN_HOST
        if host and request.get_host().rsplit(":", 1)[0].lower() != host.lower():
            raise Http404("No such page.")
        response = self.get_response(request)
        response["X-Robots-Tag"] = "noindex, nofollow"
        return response

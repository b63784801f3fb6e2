"""JSON errors and CORS for the public, keyless paths.

Django renders its own HTML pages for a path that does not resolve, a method a plain view
refuses, or a crash. Under the JSON prefixes those become the error body of
``config.errors`` (the status and any ``Allow`` header are kept), so a client never has to
parse HTML. Keyless GETs get ``Access-Control-Allow-Origin: *`` so browsers may read them.
"""

import logging

from django.http import JsonResponse

from config.errors import error_body

log = logging.getLogger("django.request")

JSON_PREFIXES = ("/api/", "/agent/", "/tender/")
CORS_PREFIXES = (*JSON_PREFIXES, "/schema/")
CORS_PATHS = {"/healthz", "/openapi.json", "/llms.txt"}
READ_METHODS = {"GET", "HEAD", "OPTIONS"}

GENERIC = {
    400: ("bad_request", "The request could not be understood."),
    403: ("forbidden", "This request is not allowed."),
    404: ("not_found", "No such path. The API is described at /openapi.json and /llms.txt."),
    405: ("method_not_allowed", "This method is not allowed here; see the Allow header."),
    500: ("internal_error", "Something went wrong on our side; it has been logged."),
}


def _is_json_path(path: str) -> bool:
    return path.startswith(JSON_PREFIXES)


def _json_error(status: int) -> JsonResponse:
    code, message = GENERIC.get(status, ("error", "The request failed."))
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
            replacement = _json_error(response.status_code)
            if response.has_header("Allow"):
                replacement["Allow"] = response["Allow"]
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
        log.error(
            "Internal Server Error: %s",
            request.path,
            exc_info=exception,
            extra={"request": request},
        )
        return _json_error(500)

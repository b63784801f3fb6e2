"""JSON wherever JSON is promised: methods, HEAD, OPTIONS, TRACE, odd paths, a bad Host, and a
database that does not answer, on the paths outside the REST views too."""

import json

import pytest
from django.db import OperationalError
from django.test import Client
from django.urls import path

from config import urls as root_urls
from config.urls import handler500  # noqa: F401 (this module is a URLconf in some tests)
from tenders.read import selectors

pytestmark = pytest.mark.django_db

DOCUMENTS = [
    "/openapi.json",
    "/schema/service.tender.v1.json",
    "/.well-known/mcp.json",
    "/llms.txt",
]


def assert_json_error(response, status: int, code: str, message: str, allow: str | None = None):
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"error": {"code": code, "message": message}}
    assert response.get("Allow") == allow


@pytest.mark.parametrize("url", DOCUMENTS)
@pytest.mark.parametrize("method", ["POST", "PUT", "TRACE"])
def test_documents_refuse_other_methods_with_json_405_not_the_csrf_page(url, method):
    # A browser-like client that enforces CSRF: these documents never change state, so the
    # method is what is wrong.
    response = Client(enforce_csrf_checks=True).generic(method, url, b"{}", "application/json")
    assert_json_error(
        response,
        405,
        "method_not_allowed",
        f"Method {method} is not allowed here; use GET, HEAD, OPTIONS.",
        "GET, HEAD, OPTIONS",
    )


@pytest.mark.parametrize("url", DOCUMENTS)
def test_documents_answer_head_and_options(client, url):
    get = client.get(url)
    head = client.head(url)
    assert (get.status_code, head.status_code) == (200, 200)
    assert head["Content-Type"] == get["Content-Type"] and head.content == b""
    options = client.options(url)
    assert (options.status_code, options["Allow"]) == (204, "GET, HEAD, OPTIONS")
    assert options.content == b""


@pytest.mark.parametrize("url", ["/api/v1/tenders", "/rfq", "/api/v1/health"])
def test_trace_on_the_rest_paths_is_json_405(client, url):
    response = client.generic("TRACE", url)
    assert response.status_code == 405 and response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert response["Allow"] == ("POST, OPTIONS" if url == "/rfq" else "GET, HEAD, OPTIONS")


def test_the_tool_server_answers_head_like_get_and_trace_with_its_json_405(client):
    head = client.head("/mcp", HTTP_ACCEPT="application/json")
    assert head.status_code == 200 and head["Content-Type"] == "application/json"
    trace = client.generic("TRACE", "/mcp")
    assert trace.status_code == 405 and trace["Allow"] == "GET, HEAD, POST, OPTIONS"
    assert trace.json()["error"]["code"] == -32600


def test_schema_names_with_a_slash_get_the_schema_404(client):
    for url in ("/schema/a/b.json", "/schema/../settings.py", "/schema/x%0Ay.json"):
        assert_json_error(
            client.get(url),
            404,
            "not_found",
            "No such schema; see /llms.txt for the published ones.",
        )


def test_a_bad_host_on_the_intake_and_the_tool_server_is_a_json_400(client):
    message = (
        "The request could not be understood: check the URL, the headers and that the Host "
        "header names this service."
    )
    rfq = client.post("/rfq", b"{}", "application/json", HTTP_HOST="evil.example")
    assert_json_error(rfq, 400, "bad_request", message)
    mcp = client.post("/mcp", b"{}", "application/json", HTTP_HOST="evil.example")
    assert mcp.status_code == 400 and mcp["Content-Type"] == "application/json"
    assert mcp.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": message},
    }


# --- ids with line breaks ---------------------------------------------------------------


def test_an_id_with_a_line_break_is_gated_like_every_id(client, feed):
    plain = client.get("/api/v1/spec-coded/AT-0123456789")
    broken = client.get("/api/v1/spec-coded/AT-X%0AY")
    assert broken.status_code == 403
    assert broken.content == plain.content
    assert broken.json()["error"]["code"] == "SPEC_CODED_GATED"


def test_an_id_with_a_line_break_gets_the_rows_own_not_found(client, feed):
    absent = client.get("/api/v1/tenders/AT-0123456789")
    for url in ("/api/v1/tenders/AT-X%0AY", "/api/v1/tenders/%0A", "/api/v1/tenders/AT-X%0D%0A"):
        response = client.get(url)
        assert response.status_code == 404
        assert response.content == absent.content, url
    assert absent.json()["error"]["code"] == "not_found"


# --- a database that does not answer ----------------------------------------------------

UNAVAILABLE = {
    "error": {
        "code": "service_unavailable",
        "message": "The service cannot reach its database just now; try again in 10 seconds.",
    }
}


def unanswered(request):
    raise OperationalError("the database gave no answer within 2 s; gave up")


urlpatterns = [
    path("tender/unanswered", unanswered),
    path("elsewhere/unanswered", unanswered),
    # Spliced, not included: the people's pages use i18n_patterns, allowed only at the root.
    *root_urls.urlpatterns,
]


def test_a_database_that_does_not_answer_is_503_on_json_paths_and_pages(client, settings):
    settings.ROOT_URLCONF = __name__
    client.raise_request_exception = False
    json_path = client.get("/tender/unanswered")
    assert json_path.status_code == 503 and json_path.json() == UNAVAILABLE
    assert (json_path["Retry-After"], json_path["Cache-Control"]) == ("10", "no-store")
    page = client.get("/elsewhere/unanswered")
    assert page.status_code == 503 and page["Content-Type"].startswith("text/html")
    assert (page["Retry-After"], page["Cache-Control"]) == ("10", "no-store")
    # Any other crash stays a 500.
    settings.ROOT_URLCONF = "tests.api.test_http"
    assert client.get("/elsewhere/crash").status_code == 500


def test_a_tool_call_when_the_database_does_not_answer_is_a_tool_error(client, monkeypatch):
    def down(*args, **kwargs):
        raise OperationalError("the database gave no answer within 2 s; gave up")

    monkeypatch.setattr(selectors, "require_current_issue", down)
    message = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "list_tenders", "arguments": {}},
    }
    response = client.post("/mcp", json.dumps(message), "application/json")
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["isError"] is True
    assert json.loads(result["content"][0]["text"]) == UNAVAILABLE

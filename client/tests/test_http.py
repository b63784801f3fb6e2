"""The client over HTTP against a local stand-in of the service (a standard-library server on
127.0.0.1 that counts the connections it accepts): a whole export reuses one connection, and
every kind of failure gets its own exit code."""

import json
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from rows import make_row
from tenders_client import cli
from tenders_client.http import Api, ApiError, NotTheApi, Unreachable

ROWS = [make_row(i) for i in range(1, 61)]
META = {"issue_id": "2026-W48", "generated": "2026-11-23T06:00:00Z", "snapshot_etag": "e1"}


class Feed(BaseHTTPRequestHandler):
    """``GET /api/v1/tenders``: ROWS in pages of ``limit``, the cursor being the next offset."""

    protocol_version = "HTTP/1.1"  # keep-alive, as gunicorn and any proxy speak

    def setup(self):
        super().setup()
        self.server.connections += 1

    def log_message(self, *args):
        pass

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/html":
            return self.send(200, b"<html>login</html>", "text/html")
        if url.path != "/api/v1/tenders":
            body = {"error": {"code": "not_found", "message": "Nothing here."}}
            return self.send(404, json.dumps(body).encode())
        start, limit = int(query.get("cursor", 0)), int(query.get("limit", 50))
        page = ROWS[start : start + limit]
        more = start + limit < len(ROWS)
        meta = {
            "total": len(ROWS),
            "returned": len(page),
            "next_cursor": str(start + limit) if more else None,
            **META,
            "access": "public",
        }
        self.send(200, json.dumps({"data": page, "meta": meta}, ensure_ascii=False).encode())

    def send(self, status: int, body: bytes, kind: str = "application/json"):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serving() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Feed)
    server.connections = 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def url_of(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def test_an_export_of_many_pages_uses_one_connection(tmp_path, capsys):
    output = tmp_path / "rows.jsonl"
    with serving() as server:
        code = cli.main(["--base-url", url_of(server), "export", "--limit", "2", "-o", str(output)])
        connections = server.connections
    assert code == 0
    assert connections == 1  # 30 requests, one connection
    lines = output.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == ROWS
    assert capsys.readouterr().err == f"60 rows in 30 pages, issue 2026-W48, written to {output}\n"


def test_requests_share_the_connection_until_closed():
    with serving() as server:
        with Api(url_of(server)) as api:
            first = api.list_page({"limit": 1})
            second = api.list_page({"limit": 1, "cursor": first["meta"]["next_cursor"]})
            third = api.list_page({"limit": 1, "cursor": second["meta"]["next_cursor"]})
        assert server.connections == 1
        with Api(url_of(server)) as again:
            again.list_page({})
        assert server.connections == 2
    assert [page["data"] for page in (first, second, third)] == [[r] for r in ROWS[:3]]


def test_the_three_kinds_of_failure():
    with serving() as server, Api(url_of(server)) as api:
        with pytest.raises(ApiError) as refused:
            api.request("GET", "/nowhere")
        assert (refused.value.status, refused.value.code, str(refused.value)) == (
            404,
            "not_found",
            "error not_found: Nothing here.",
        )
        with pytest.raises(NotTheApi) as html:
            api.request("GET", "/html")
        assert str(html.value) == (
            f"{url_of(server)}/html answered HTTP 200 with text/html, not the API's JSON; is the "
            "base URL right?"
        )
        port = server.server_address[1]
    with pytest.raises(Unreachable) as gone, Api(f"http://127.0.0.1:{port}", timeout=5) as api:
        api.request("GET", "/api/v1/tenders")
    assert str(gone.value).startswith(f"cannot reach http://127.0.0.1:{port}: ")

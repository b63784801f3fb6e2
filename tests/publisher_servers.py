"""Local HTTP servers on 127.0.0.1 that speak the publishers' protocols, written from their
documentation (docs/sources.md), for the preset sources' tests. No mocked client: the importer
talks HTTP to these.

- ``OcdsWindowApi``: Find a Tender's ``ocdsReleasePackages`` (``updatedFrom``, ``stages``,
  ``limit``, an opaque ``cursor`` in ``links.next``), Contracts Finder's OCDS search and NSW
  eTendering's ``tender.search`` (``publishedFrom``, a date): releases filtered by their time,
  paged, cursors that can be made to expire (answered 400), a rate limit of N requests in a
  window answered 429 with ``Retry-After``, and a burst of 429s from before the run;
- ``TedApi``: the Search API v3 ``POST /v3/notices/search`` (expert query with
  ``publication-date >= YYYYMMDD``, ``scope`` ACTIVE, ``ITERATION`` paging with tokens that can
  expire) and ``GET /en/notice/{number}/xml``;
- ``FileFeed``: one file (CanadaBuys CSV, GLD XML) with ``ETag`` and ``Last-Modified``,
  answering 304 to a matching conditional request, whose content a test changes between runs.

A ``FakeClock`` shared by the importer's session and a server lets a test check spacing and
``Retry-After`` without waiting: the session sleeps by moving the clock.
"""

import json
import math
import re
import threading
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit, urlunsplit


class FakeClock:
    def __init__(self, start: float = 1000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class Publisher:
    """Answers requests; records them as (method, path with query, headers, body, clock)."""

    clock = None  # a FakeClock to read time from, when the test shares one

    def __init__(self):
        self.requests: list[dict] = []
        self.lock = threading.Lock()

    def answer(self, method: str, path: str, query: dict, body: bytes, headers) -> tuple:
        raise NotImplementedError

    def hold(self, query: dict) -> bool:
        """Called before answering, outside the lock: a test may keep a request waiting, and
        drop it (True: its client is gone) once released."""
        return False


class _Handler(BaseHTTPRequestHandler):
    publisher: Publisher

    def log_message(self, *args):
        pass

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        publisher = self.server.publisher
        if publisher.hold(query):
            return
        with publisher.lock:
            publisher.requests.append(
                {
                    "method": method,
                    "path": self.path,
                    "query": query,
                    "headers": dict(self.headers),
                    "body": json.loads(body) if body else None,
                    "at": publisher.clock() if publisher.clock else None,
                }
            )
            status, headers, content = publisher.answer(
                method, parts.path, query, body, self.headers
            )
            publisher.requests[-1]["status"] = status
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def do_GET(self):
        self._serve("GET")

    def do_POST(self):
        self._serve("POST")


@contextmanager
def serving(publisher: Publisher):
    """The publisher on 127.0.0.1 (a random port): yields its base URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.publisher = publisher
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def local(url: str, base: str) -> str:
    """A publisher's address with its host replaced by the local server's."""
    parts, here = urlsplit(url), urlsplit(base)
    return urlunsplit(parts._replace(scheme=here.scheme, netloc=here.netloc))


JSON = {"Content-Type": "application/json"}


class OcdsWindowApi(Publisher):
    """An OCDS release-package API with a date window (see the module docstring)."""

    def __init__(self, *, since_param: str, path: str, limit_param: str = "limit"):
        super().__init__()
        self.since_param, self.path, self.limit_param = since_param, path, limit_param
        self.releases: list[dict] = []  # each with "updated": an ISO date-time (UTC)
        self.cursors: dict[str, tuple[str, int]] = {}  # token: (window, offset)
        self.expired: set[str] = set()
        self.rate = None  # (requests, seconds): above it, 429 with Retry-After
        self.burst = 0  # this many first requests answer 429 (someone else's burst)
        self.burst_wait = 30
        self.burst_status = 429  # Contracts Finder answers 403 instead, without Retry-After
        self.served: list[float] = []
        self.held = ""  # a cursor whose request waits until ``released`` is set
        self.reached, self.released = threading.Event(), threading.Event()

    def hold(self, query: dict) -> bool:
        if self.held and query.get("cursor") == self.held and not self.released.is_set():
            self.reached.set()
            self.released.wait(60)
            return True
        return False

    def add(self, ocid: str, updated: datetime, *, title: str, stage: str = "tender") -> None:
        release = {
            "ocid": ocid,
            "id": f"{ocid}-{updated:%Y%m%d%H%M%S}",
            "date": updated.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "tag": [stage],
            "language": "en",
            "tender": {
                "id": ocid[-6:],
                "title": title,
                "status": "active",
                "tenderPeriod": {"endDate": "2027-03-01T12:00:00Z"},
                "items": [{"id": "1", "classification": {"scheme": "CPV", "id": "90910000"}}],
            },
            "buyer": {"id": "B1", "name": "Example Borough Council"},
        }
        if stage != "tender":
            release["awards"] = [{"id": "A1", "status": "active"}]
        self.releases.append({"updated": updated.strftime("%Y-%m-%dT%H:%M:%S"), **release})

    def _limited(self) -> int | None:
        if self.burst:
            self.burst -= 1
            return self.burst_wait
        if not self.rate or self.clock is None:
            return None
        count, window = self.rate
        now = self.clock()
        recent = [t for t in self.served if t > now - window]
        if len(recent) >= count:
            return math.ceil(recent[0] + window - now)
        self.served.append(now)
        return None

    def answer(self, method, path, query, body, headers):
        if path != self.path:
            return 404, {}, b""
        if self.burst and self.burst_status != 429:
            self.burst -= 1
            return self.burst_status, JSON, b'{"error": "Forbidden"}'
        wait = self._limited()
        if wait is not None:
            return 429, {"Retry-After": str(wait), **JSON}, b'{"error": "Too Many Requests"}'
        cursor = query.get("cursor")
        if cursor:
            if cursor in self.expired or cursor not in self.cursors:
                return 400, JSON, b'{"error": "invalid or expired cursor"}'
            since, offset = self.cursors[cursor]
        else:
            since, offset = query.get(self.since_param, ""), 0
        stages = query.get("stages")
        chosen = sorted(
            (r for r in self.releases if r["updated"][: len(since)] >= since),
            key=lambda r: (r["updated"], r["ocid"]),
        )
        if stages:
            chosen = [r for r in chosen if stages in r["tag"]]
        size = int(query.get(self.limit_param) or 100)
        page = chosen[offset : offset + size]
        package = {
            "uri": "local",
            "publishedDate": "2026-11-27T00:00:00Z",
            "releases": [{k: v for k, v in r.items() if k != "updated"} for r in page],
        }
        if offset + size < len(chosen):
            token = f"c{len(self.cursors) + 1}"
            self.cursors[token] = (since, offset + size)
            keep = {k: v for k, v in query.items() if k != "cursor"}
            following = "&".join(f"{k}={v}" for k, v in {**keep, "cursor": token}.items())
            package["links"] = {"next": f"http://{headers['Host']}{self.path}?{following}"}
        return 200, JSON, json.dumps(package).encode()


class TedApi(Publisher):
    """TED's Search API v3 and its notices' XML (see the module docstring)."""

    def __init__(self):
        super().__init__()
        self.notices: list[tuple[str, str, bytes]] = []  # (number, YYYYMMDD, xml)
        self.missing: set[str] = set()  # found by the search, but no XML (404)
        self.tokens: dict[str, tuple[str, int]] = {}
        self.expired: set[str] = set()
        self.page_size = None  # override the asked limit
        self.burst, self.burst_wait = 0, 30  # this many first searches answer 429

    def add(self, number: str, day: str, xml: bytes) -> None:
        self.notices.append((number, day, xml))

    def answer(self, method, path, query, body, headers):
        found = re.fullmatch(r"/en/notice/([^/]+)/xml", path)
        if method == "GET" and found:
            for number, _, xml in self.notices:
                if number == found.group(1) and number not in self.missing:
                    return 200, {"Content-Type": "application/xml"}, xml
            return 404, {}, b""
        if method != "POST" or path != "/v3/notices/search":
            return 404, {}, b""
        if self.burst:
            self.burst -= 1
            return 429, {"Retry-After": str(self.burst_wait), **JSON}, b'{"message": "slow down"}'
        asked = json.loads(body)
        if asked.get("scope") != "ACTIVE" or asked.get("paginationMode") != "ITERATION":
            return 400, JSON, b'{"message": "expected scope ACTIVE and ITERATION"}'
        token = asked.get("iterationNextToken")
        if token:
            if token in self.expired or token not in self.tokens:
                return 400, JSON, b'{"message": "iteration token expired"}'
            since, offset = self.tokens[token]
        else:
            since, offset = (
                re.search(r"publication-date\s*>=\s*(\d{8})", asked["query"]).group(1),
                0,
            )
        chosen = sorted((n for n in self.notices if n[1] >= since), key=lambda n: (n[1], n[0]))
        size = self.page_size or asked.get("limit", 100)
        page = chosen[offset : offset + size]
        following = f"t{len(self.tokens) + 1}"
        self.tokens[following] = (since, offset + size)  # TED gives one even after the last
        answer = {
            "notices": [
                {
                    "publication-number": number,
                    "publication-date": f"{day[:4]}-{day[4:6]}-{day[6:]}Z",
                    "links": {"xml": {"MUL": f"http://{headers['Host']}/en/notice/{number}/xml"}},
                }
                for number, day, _ in page
            ],
            "totalNoticeCount": len(chosen),
            "iterationNextToken": following,
            "timedOut": False,
        }
        return 200, JSON, json.dumps(answer).encode()


class FileFeed(Publisher):
    """One file with validators; ``publish`` replaces it (a new ETag and date)."""

    def __init__(self, path: str, content_type: str):
        super().__init__()
        self.path, self.content_type = path, content_type
        self.content, self.etag, self.modified, self.version = b"", "", "", 0
        self.burst, self.burst_wait = 0, 30  # this many first requests answer 429

    def publish(self, content: bytes) -> None:
        self.version += 1
        self.content = content
        self.etag = f'"v{self.version}"'
        self.modified = f"Fri, 27 Nov 2026 0{self.version}:00:00 GMT"

    def answer(self, method, path, query, body, headers):
        if path != self.path:
            return 404, {}, b""
        if self.burst:
            self.burst -= 1
            return 429, {"Retry-After": str(self.burst_wait)}, b"Too Many Requests"
        if headers.get("If-None-Match") == self.etag:
            return 304, {"ETag": self.etag}, b""
        return (
            200,
            {"Content-Type": self.content_type, "ETag": self.etag, "Last-Modified": self.modified},
            self.content,
        )

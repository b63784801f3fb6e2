"""The public HTTP API of the tender feed, from the outside: httpx and JSON, nothing else.

:class:`Api` sends requests to any base URL and returns parsed JSON bodies. It keeps its
connections open between requests (an export of a million rows is 5,000 requests on one
connection, not 5,000 connections); close it with :meth:`Api.close` or a ``with`` block.
Proxies come from the usual environment variables (``HTTPS_PROXY``, ``NO_PROXY``...).
Failures come in three kinds, because a caller (and its exit code) treats them differently:

- :class:`ApiError`: the service answered with its error body ``{"error": {code, message,
  param?}}`` (400 invalid_parameter, 404 not_found, 409 snapshot_changed, ...);
- :class:`Unreachable`: no answer (refused, unknown host, timed out, cut off);
- :class:`NotTheApi`: an answer that is not the API's JSON (a proxy's HTML page, a wrong URL).
"""

import json
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from . import __version__

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
DEFAULT_TIMEOUT = 30.0
LIST = "/api/v1/tenders"
# A page of 200 rows is about 200 KB; anything near this is not the API answering.
MAX_BODY = 64 * 1024 * 1024


class ClientError(Exception):
    """Anything that keeps a request from giving the body asked for."""


class ApiError(ClientError):
    """The service's own error answer."""

    def __init__(
        self, status: int, code: str, message: str, param: str | None = None, body: Any = None
    ):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.param = param
        self.body = body

    def __str__(self) -> str:
        param = f" (param {self.param})" if self.param else ""
        return f"error {self.code}: {self.message}{param}"


class Unreachable(ClientError):
    pass


class NotTheApi(ClientError):
    pass


@dataclass(frozen=True)
class Response:
    status: int
    body: Any
    headers: Mapping[str, str]


def check_base_url(url: str) -> str:
    """The base URL without a trailing slash; ValueError unless it is http(s) with a host."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"the base URL must look like http://host:port, not {url!r}")
    if parts.query or parts.fragment:
        raise ValueError(f"the base URL takes no query or fragment: {url!r}")
    return url.rstrip("/")


def query_string(params: Mapping[str, Any]) -> str:
    """Parameters as the API reads them: lists comma-separated, booleans true/false."""
    pairs = []
    for name, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            value = ",".join(value)
        pairs.append((name, str(value)))
    return urllib.parse.urlencode(pairs)


class Api:
    """The keyless API at ``base_url``, over one pool of kept-alive connections."""

    def __init__(self, base_url: str = DEFAULT_BASE_URL, *, timeout: float = DEFAULT_TIMEOUT):
        self.base_url = check_base_url(base_url)
        self.timeout = timeout
        self.user_agent = f"tenders-client/{__version__} (python httpx)"
        self._client: httpx.Client | None = None

    def __enter__(self) -> "Api":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    @property
    def client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(
                timeout=self.timeout,
                follow_redirects=True,
                headers={"Accept": "application/json", "User-Agent": self.user_agent},
            )
        return self._client

    def url(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        query = query_string(params or {})
        return self.base_url + path + (f"?{query}" if query else "")

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        payload: Any = None,
        headers: Mapping[str, str] | None = None,
        expect: tuple[int, ...] = (200,),
    ) -> Response:
        url = self.url(path, params)
        content = None
        sent = dict(headers or {})
        if payload is not None:
            content = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            sent["Content-Type"] = "application/json"
        try:
            with self.client.stream(method, url, content=content, headers=sent) as answer:
                status, received = answer.status_code, answer.headers
                raw = _read_at_most(answer, MAX_BODY + 1)
        except httpx.TimeoutException:
            raise Unreachable(f"{url} did not answer within {self.timeout:g} s") from None
        except httpx.ConnectError as exc:
            raise Unreachable(f"cannot reach {self.base_url}: {exc}") from None
        except (httpx.TransportError, OSError) as exc:
            raise Unreachable(f"{url}: the connection failed ({exc})") from None
        if len(raw) > MAX_BODY:
            raise NotTheApi(
                f"{url} answered more than {MAX_BODY // 2**20} MiB; is the base URL right?"
            )
        try:
            body = json.loads(raw)
        except ValueError:
            kind = received.get("Content-Type", "no content type").split(";")[0].strip()
            raise NotTheApi(
                f"{url} answered HTTP {status} with {kind}, not the API's JSON; "
                "is the base URL right?"
            ) from None
        if status in expect:
            return Response(status, body, received)
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            raise ApiError(
                status,
                error["code"],
                str(error.get("message", "")),
                error.get("param") if isinstance(error.get("param"), str) else None,
                body,
            )
        raise NotTheApi(f"{url} answered HTTP {status} without the API's error body")

    # --- operations -------------------------------------------------------------------

    def list_page(self, params: Mapping[str, Any]) -> dict:
        """One page of ``GET /api/v1/tenders``: ``{data, meta}``."""
        body = self.request("GET", LIST, params=params).body
        if not (
            isinstance(body, dict)
            and isinstance(body.get("data"), list)
            and isinstance(body.get("meta"), dict)
        ):
            raise NotTheApi(f"{self.url(LIST)} did not answer a page {{data, meta}}")
        return body

    def tender(self, at_id: str, lang: str | None = None) -> dict:
        path = f"{LIST}/{urllib.parse.quote(at_id, safe='')}"
        return self.request("GET", path, params={"lang": lang}).body

    def facets(self) -> dict:
        return self.request("GET", f"{LIST}/facets").body

    def health(self) -> Response:
        """The health record; 503 (unavailable) is an answer here, not an error."""
        return self.request("GET", "/api/v1/health", expect=(200, 503))

    def submit_rfq(self, payload: dict, *, idempotency_key: str | None = None) -> dict:
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        return self.request("POST", "/rfq", payload=payload, headers=headers).body


def _read_at_most(answer: httpx.Response, limit: int) -> bytes:
    """The body, or its first ``limit`` bytes: a wrong URL may stream without end."""
    chunks, size = [], 0
    for chunk in answer.iter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= limit:
            break
    return b"".join(chunks)

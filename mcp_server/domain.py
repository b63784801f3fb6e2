"""The one door from the tool server to the domain.

Every tool handler calls a function here, and every function here calls the selector or
service that the REST surface calls: one implementation of listing, filtering, cursors, RFQ
intake and access requests. Imports are lazy so that loading the tool definitions (for
``tools/list`` and the discovery documents) never touches the database layer.

Errors from the domain arrive as ``core.errors.ApiError`` and become tool errors unchanged.
"""

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from core.clients import ClientInfo

if TYPE_CHECKING:
    from tenders.read.answers import Answer


@dataclass(frozen=True)
class Caller:
    """Who is calling and where: the intake services rate-limit and record submissions per
    client exactly as for POST /rfq, and links in answers are absolute on the address the
    request reached."""

    client: ClientInfo
    base_url: str | None = None


# Set by the view for the span of one request (one request per thread or task): the caller,
# or a function that makes it (only the tools that record or link ask).
_caller: ContextVar[Caller | Callable[[], Caller] | None] = ContextVar("mcp_caller", default=None)


@contextmanager
def calling(caller: Caller | Callable[[], Caller]) -> Iterator[None]:
    token = _caller.set(caller)
    try:
        yield
    finally:
        _caller.reset(token)


def _current() -> Caller | None:
    caller = _caller.get()
    if callable(caller):
        caller = caller()
        _caller.set(caller)
    return caller


def _client() -> ClientInfo:
    caller = _current()
    return caller.client if caller else ClientInfo(ip=None)


def _base_url() -> str | None:
    caller = _current()
    return caller.base_url if caller else None


# --- tenders -------------------------------------------------------------------


def list_tenders(arguments: Mapping[str, Any]) -> "Answer":
    """The list envelope of ``GET /api/v1/tenders`` for these arguments.

    ``arguments`` are the tool's typed values (lists, booleans, integers); the listing's
    FilterSet judges them with the rules of REST's query strings, and the same cursor tokens
    work on both surfaces; the tool surface pages smaller and its messages name tools.
    Raises ApiError 400 ``invalid_parameter`` / ``invalid_cursor`` (with ``param``) and 409
    ``snapshot_changed``.
    """
    from tenders.read.query import TOOL
    from tenders.read.selectors import list_answer

    return list_answer(arguments, surface=TOOL)


def get_tender(at_id: str, arguments: Mapping[str, Any]) -> "Answer":
    """``{data: row, meta}`` of ``GET /api/v1/tenders/{at_id}``; ``arguments`` may hold
    ``lang``.

    Raises ApiError 404 ``not_found`` (identical for every absent id) or 400.
    """
    from tenders.read.query import TOOL
    from tenders.read.selectors import tender_answer

    return tender_answer(at_id, arguments, surface=TOOL)


def tender_facets() -> "Answer":
    """``{data, meta}`` of ``GET /api/v1/tenders/facets``, with the feed's state in meta."""
    from tenders.read.query import TOOL
    from tenders.read.selectors import facets_answer

    return facets_answer(surface=TOOL)


def spec_coded(at_id: str) -> NoReturn:
    """Raise the gated error of ``GET /api/v1/spec-coded/{at_id}``.

    Expected: ApiError(403, "SPEC_CODED_GATED", message, extra={"access_url": <absolute URL>}),
    for every id, existing or not.
    """
    from tenders.read.selectors import spec_coded as gated

    gated(at_id, base_url=_base_url())


# --- RFQ intake and access requests ---------------------------------------------


def request_tender_access(
    *, at_id: str | None, organisation: str, contact: str, purpose: str
) -> dict:
    """Store an access request through the intake service; ``{received: true, reference, next}``.

    Raises ApiError 400 ``invalid_parameter`` with ``param`` naming the field, 429 when the
    caller sends too many.
    """
    from rfq.services import access_request_submit

    payload = {"at_id": at_id, "organisation": organisation, "contact": contact, "purpose": purpose}
    return access_request_submit(payload=payload, client=_client()).as_dict()


def submit_rfq(
    *,
    product: str,
    quantity: str | None,
    target_market: str | None,
    buyer_contact: str,
    idempotency_key: str | None,
    asaptic_id: str | None = None,
) -> dict:
    """Store an RFQ through the service of ``POST /rfq``; ``{received: true, reference, next}``.

    Raises ApiError 400 ``invalid_parameter`` with ``param`` naming the field, 422
    ``idempotency_conflict``, 429 ``rate_limited``.
    """
    from rfq.services import rfq_submit

    payload = {
        "product": product,
        "quantity": quantity,
        "target_market": target_market,
        "buyer_contact": buyer_contact,
        "asaptic_id": asaptic_id,
    }
    receipt = rfq_submit(payload=payload, client=_client(), idempotency_key=idempotency_key)
    return receipt.as_dict()


# --- sourcing lanes and engagement (the selectors of /agent/capabilities.json) ----


def sourcing_lanes(market: str | None) -> list[dict]:
    """The active lanes, those serving ``market`` when one is given (400 naming the markets
    served when none does)."""
    from sourcing.selectors import list_lanes

    return list_lanes(base_url=_base_url(), market=market)


def lane_capability(lane_id: str) -> dict:
    """One lane by its id; 404 ``not_found`` naming the known ids."""
    from sourcing.selectors import get_lane

    return get_lane(lane_id, base_url=_base_url())


def engagement() -> dict:
    """The deposit-first engagement model."""
    from sourcing.selectors import get_engagement

    return get_engagement()

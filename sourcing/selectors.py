"""Reads of the sourcing offer: plain dicts for the capabilities document and the MCP tools.

``base_url`` (scheme and host) makes links absolute: interfaces pass the public address they
were reached at; without it the ``PUBLIC_BASE_URL`` setting is used.
"""

from django.conf import settings
from django.db.models import Prefetch

from core.errors import ApiError

from .models import ComplianceItem, Engagement, Lane, Market

SERVICE = {
    "name": "Public tender listing and sourcing service",
    "description": "A keyless, sanitized weekly feed of public-procurement opportunities in "
    "seven markets, and a sourcing service that supplies buyers and bidders along the lanes "
    "below on a deposit-first basis.",
}


def _base(base_url: str | None) -> str:
    return (base_url or settings.PUBLIC_BASE_URL).rstrip("/")


def _lanes():
    return Lane.objects.filter(active=True).prefetch_related(
        Prefetch("markets", queryset=Market.objects.filter(active=True)),
        Prefetch("compliance", queryset=ComplianceItem.objects.filter(active=True)),
    )


def _lane(lane: Lane, base_url: str) -> dict:
    return {
        "id": lane.slug,
        "name": lane.name,
        "summary": lane.summary,
        "sources": lane.sources,
        "markets": [m.code for m in lane.markets.all()],
        "compliance": [c.slug for c in lane.compliance.all()],
        "page": lane.page_url or f"{base_url}/lanes/{lane.slug}/",
    }


def list_lanes(*, base_url: str | None = None, market: str | None = None) -> list[dict]:
    """Active lanes, or those serving ``market`` (any case); a market no lane serves is a 400
    naming the markets served, so a caller can correct itself."""
    base = _base(base_url)
    lanes = [_lane(lane, base) for lane in _lanes()]
    if market is None:
        return lanes
    code = market.upper()
    served = sorted({m for lane in lanes for m in lane["markets"]})
    if code not in served:
        raise ApiError(
            400,
            "invalid_parameter",
            f"market: no sourcing lane serves {market!r}; markets served: {', '.join(served)}.",
            param="market",
        )
    return [lane for lane in lanes if code in lane["markets"]]


def get_lane(lane_id: str, *, base_url: str | None = None) -> dict:
    lane = _lanes().filter(slug=lane_id).first() if isinstance(lane_id, str) else None
    if lane is None:
        known = ", ".join(_lanes().values_list("slug", flat=True))
        raise ApiError(
            404,
            "not_found",
            f"lane_id: no sourcing lane {lane_id!r}; lanes: {known}.",
            param="lane_id",
        )
    return _lane(lane, _base(base_url))


def get_engagement() -> dict:
    """The deposit-first model: what is paid when, what the buyer gets, the reply promise."""
    engagement = Engagement.objects.prefetch_related("steps").order_by("pk").first()
    if engagement is None:
        raise ApiError(
            503, "service_unavailable", "The engagement terms are being updated; try later."
        )
    hours = engagement.reply_within_hours
    return {
        "model": "deposit-first",
        "name": engagement.name,
        "summary": engagement.summary,
        "reply": {
            "within_hours": hours,
            "promise": f"Every request for quote is answered within {hours} hours.",
            "note": engagement.reply_note,
        },
        "deposit": {"percent": engagement.deposit_percent, "terms": engagement.deposit_terms},
        "steps": [
            {
                "stage": step.stage,
                "buyer_pays": step.buyer_pays,
                "when": step.when,
                "buyer_gets": step.buyer_gets,
            }
            for step in engagement.steps.all()
        ],
    }


def capabilities(*, base_url: str | None = None) -> dict:
    """The capabilities document of ``/agent/capabilities.json``."""
    base_url = _base(base_url)
    lanes = list_lanes(base_url=base_url)
    markets = Market.objects.filter(active=True)
    compliance = ComplianceItem.objects.filter(active=True).prefetch_related(
        Prefetch("markets", queryset=Market.objects.filter(active=True))
    )
    return {
        "service": SERVICE,
        "lanes": lanes,
        "markets": [
            {
                "code": m.code,
                "name_en": m.name_en,
                "name_zh": m.name_zh,
                "name_zht": m.name_zht,
                "notes": m.notes,
                "lanes": [lane["id"] for lane in lanes if m.code in lane["markets"]],
            }
            for m in markets
        ],
        "compliance": [
            {
                "id": c.slug,
                "name": c.name,
                "description": c.description,
                "markets": [m.code for m in c.markets.all()],
            }
            for c in compliance
        ],
        "engagement": get_engagement(),
        "links": {
            "capabilities": f"{base_url}/agent/capabilities.json",
            "rfq": f"{base_url}/rfq",
            "mcp": f"{base_url}/mcp",
            "tenders": f"{base_url}/api/v1/tenders",
            "flat_file": f"{base_url}/tender/rows.json",
            "openapi": f"{base_url}/openapi.json",
            "llms_txt": f"{base_url}/llms.txt",
            "access": f"{base_url}/access/",
        },
    }

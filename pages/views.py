"""People's pages: thin views over the selectors every other public surface calls.

The listing page hands its query to ``tenders.read.selectors.list_tenders`` (the one parser, the
one cursor, the one answer cache) with the page's language as ``lang``; rows, totals and
errors are the API's (a refusal is worded for people by ``pages.messages``). Only two things
are the pages' own: an empty form field means "not given" (HTML forms send every field), and
the navigation parameters of ``pages.paging``.
"""

from django.conf import settings
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_safe

from core.api import base_url, query_params
from core.errors import ApiError
from sourcing import selectors as sourcing
from tenders.buckets import CLOSING_BUCKETS
from tenders.labels import API_LANG
from tenders.markets import MARKET_CODES
from tenders.read import selectors
from tenders.read.filters import parse_list_params
from tenders.read.query import BAND_VALUES, PAGES, ListQuery
from tenders.subscriptions import SEARCH_PARAMS

from . import paging
from .messages import listing_message


def api_lang(request) -> str:
    return API_LANG[request.LANGUAGE_CODE]


# --- unprefixed paths: pick a language ---------------------------------------------------


def _negotiated_redirect(request, name: str, **kwargs) -> HttpResponseRedirect:
    """Redirect to the page ``name`` in the language the request prefers (Accept-Language,
    else English). Temporary, since the answer depends on who asks."""
    language = translation.get_language_from_request(request)
    with translation.override(language):
        target = reverse(name, kwargs=kwargs)
    query = request.META.get("QUERY_STRING", "")
    response = HttpResponseRedirect(f"{target}?{query}" if query else target)
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response


@require_safe
def root(request):
    return _negotiated_redirect(request, "pages:home")


@require_safe
def old_lane(request, lane_id: str):
    """``/lanes/<id>/``, the ``page`` of every published lane."""
    return _negotiated_redirect(request, "pages:lane", lane_id=lane_id)


@require_safe
def old_access(request):
    """``/access/``, the ``access_url`` of every gated answer."""
    return _negotiated_redirect(request, "pages:access")


# --- the feed's pages ---------------------------------------------------------------------


def failure(request, error: ApiError, context: dict | None = None):
    """An error of the domain as a page, with the API's status and message."""
    return render(
        request,
        "pages/failure.html",
        {"error": error, **(context or {})},
        status=error.status,
    )


@require_safe
def home(request):
    issue = selectors.current_issue()
    context = {"issue": issue, "unpublished": PAGES.unpublished}
    if issue is not None:
        facets = selectors.tender_facets(issue=issue)
        context["markets"] = facets["data"]["markets"]
    return render(request, "pages/home.html", context)


def form_params(request) -> dict:
    """The query as the listing takes it, with the fields a form left empty taken out."""
    params = {}
    for name, value in query_params(request).items():
        values = [v for v in (value if isinstance(value, list) else [value]) if v.strip()]
        if values:
            params[name] = values[0] if len(values) == 1 else values
    return params


FILTER_NAMES = ("market", "category", "closing_bucket", "value_band", "new", "lead_ok")


def form_state(given: dict, query: ListQuery | None) -> dict:
    """What the form shows as chosen: the parsed query, or the raw values when it failed."""
    q = given.get("q")
    state = {"q": q if isinstance(q, str) else ""}
    if query is None:
        for name in FILTER_NAMES:
            value = given.get(name, [])
            values = value if isinstance(value, list) else [value]
            state[name] = {item for v in values for item in v.split(",")}
        return state
    given_buckets = "closing_bucket" in given
    state.update(
        market=set(query.markets),
        category=set(query.categories),
        closing_bucket=set(query.closing_buckets) if given_buckets else set(),
        value_band=set(query.value_bands),
        new={_word(query.new)},
        lead_ok={_word(query.lead_ok)},
    )
    return state


def _word(value: bool | None) -> str:
    return "" if value is None else str(value).lower()


@require_safe
def tender_list(request):
    given, position = paging.split_navigation(form_params(request))
    # The page decides the language and the page size; the rest is the listing's query.
    filters = {k: v for k, v in given.items() if k not in ("cursor", "lang", "limit")}
    context = {
        "filter_query": paging.first_query(filters),
        "filter_count": sum(name in filters for name in FILTER_NAMES),
        "market_codes": MARKET_CODES,
        "closing_values": CLOSING_BUCKETS,
        "band_values": BAND_VALUES,
        "position": position,
    }
    query = None
    status = 200
    try:
        issue = selectors.require_current_issue(PAGES)
        context["categories"] = selectors.tender_facets(issue=issue)["data"]["categories"]
        params = {**given, "lang": api_lang(request), "limit": str(paging.PAGE_SIZE)}
        query = parse_list_params(params, selectors.vocabulary(issue), PAGES)
        page = selectors.list_tenders(params, issue=issue, surface=PAGES)
    except ApiError as error:
        others = {k: v for k, v in filters.items() if k != error.param}
        context.update(error=error, message=listing_message(error))
        context["restart"] = paging.first_query(filters)
        context["other_filters"] = paging.first_query(others)
        status = error.status
    else:
        meta = page["meta"]
        saved = {k: v for k, v in filters.items() if k in SEARCH_PARAMS}
        context["saved_search"] = [
            (name, value)
            for name, values in saved.items()
            for value in (values if isinstance(values, list) else [values])
        ]
        context["feed_query"] = paging.first_query(saved)
        context.update(
            rows=page["data"],
            meta=meta,
            links=paging.links(filters, position, meta["next_cursor"]),
            pages=-(-meta["total"] // paging.PAGE_SIZE),
            first_row=None
            if position.number is None
            else (position.number - 1) * paging.PAGE_SIZE + 1,
        )
    context["state"] = form_state(given, query)
    return render(request, "pages/tender_list.html", context, status=status)


@require_safe
def tender_detail(request, at_id: str):
    try:
        # The row's answer is the API's own cache entry; only the 503 is the pages' own.
        issue = selectors.require_current_issue(PAGES)
        page = selectors.get_tender(at_id, {"lang": api_lang(request)}, issue=issue)
    except ApiError as error:
        if error.status == 404:
            raise Http404 from None
        return failure(request, error)
    return render(request, "pages/tender_detail.html", {"row": page["data"], "meta": page["meta"]})


# --- sourcing and access ------------------------------------------------------------------


@require_safe
def lane(request, lane_id: str):
    base = base_url(request)
    try:
        found = sourcing.get_lane(lane_id, base_url=base)
    except ApiError:
        raise Http404 from None
    capabilities = sourcing.capabilities(base_url=base)
    compliance = {c["id"]: c for c in capabilities["compliance"]}
    markets = {m["code"]: m for m in capabilities["markets"]}
    return render(
        request,
        "pages/lane.html",
        {
            "lane": found,
            "markets": [markets[c] for c in found["markets"] if c in markets],
            "compliance": [compliance[c] for c in found["compliance"] if c in compliance],
            "engagement": capabilities["engagement"],
        },
    )


@require_safe
def access(request):
    return render(request, "pages/access.html", {"portal_url": settings.TENDERS_PORTAL_URL})

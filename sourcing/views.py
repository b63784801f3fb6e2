"""The capabilities document (JSON) and the public page of a lane (HTML). Thin."""

import hashlib
import json

from django.http import Http404
from django.shortcuts import render
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from config.api import PublicView, base_url, cache_headers, etag_matches, not_modified
from config.errors import ApiError

from . import openapi, selectors


class Capabilities(PublicView):
    @extend_schema(**openapi.GET_CAPABILITIES)
    def get(self, request):
        body = selectors.capabilities(base_url=base_url(request))
        canonical = json.dumps(body, sort_keys=True, ensure_ascii=False).encode()
        etag = hashlib.sha256(canonical).hexdigest()[:32]
        if etag_matches(request, etag):
            return not_modified(etag)
        return cache_headers(Response(body), etag)


def lane_page(request, lane_id: str):
    try:
        lane = selectors.get_lane(lane_id, base_url=base_url(request))
    except ApiError:
        raise Http404("No such lane") from None
    capabilities = selectors.capabilities(base_url=base_url(request))
    compliance = {c["id"]: c for c in capabilities["compliance"]}
    markets = {m["code"]: m for m in capabilities["markets"]}
    return render(
        request,
        "sourcing/lane.html",
        {
            "lane": lane,
            "markets": [markets[c] for c in lane["markets"] if c in markets],
            "compliance": [compliance[c] for c in lane["compliance"] if c in compliance],
            "engagement": capabilities["engagement"],
            "links": capabilities["links"],
        },
    )

"""The capabilities document (JSON). Thin; the page of a lane is ``pages.views.lane``."""

import hashlib
import json

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from core.api import PublicView, base_url, cache_headers, etag_matches, not_modified

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

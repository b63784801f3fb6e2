"""The capabilities document (JSON). Thin; the page of a lane is ``pages.views.lane``."""

import hashlib
import json

from rest_framework.response import Response

from core.api import PublicView, base_url, cache_headers, etag_matches, not_modified
from core.openapi import public_get, ref

from . import selectors


class Capabilities(PublicView):
    @public_get("getCapabilities", "Sourcing capabilities", "sourcing", {200: ref("Capabilities")})
    def get(self, request):
        """Sourcing lanes, the markets served, compliance checks and the deposit-first
        engagement model (what is paid when, what the buyer gets, the reply promise), as staff
        keep them. Requests for quote go to the submit_rfq tool on /mcp or POST /rfq."""
        body = selectors.capabilities(base_url=base_url(request))
        canonical = json.dumps(body, sort_keys=True, ensure_ascii=False).encode()
        etag = hashlib.sha256(canonical).hexdigest()[:32]
        if etag_matches(request, etag):
            return not_modified(etag)
        return cache_headers(Response(body), etag)

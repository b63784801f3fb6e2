"""The front matter of the OpenAPI document and the hook that adds named components.

Each app describes its own operations next to its views (``tenders.api.openapi``,
``sourcing.openapi``); this drf-spectacular postprocessing hook adds their component schemas
and the document-wide description, tags and links.
"""

from sourcing.openapi import components as sourcing_components
from tenders.api.openapi import components as tender_components


def add_components(result, generator, request, public):
    """drf-spectacular postprocessing hook: named components and the document's front matter."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(tender_components())
    schemas.update(sourcing_components())
    result["components"]["schemas"] = dict(sorted(schemas.items()))
    result["info"]["description"] = API_DESCRIPTION
    result["tags"] = TAGS
    result["externalDocs"] = {"description": "Guide for agents (llms.txt)", "url": "/llms.txt"}
    return result


API_DESCRIPTION = """\
A keyless, sanitized, weekly feed of public-procurement opportunities in seven markets (HK, MO,
SG, GB, EU, AU, CA), with summaries in English (en), Simplified Chinese (zh) and Traditional
Chinese (zht). Buyer identity, reference numbers, exact deadlines, amounts and sources are
withheld: rows carry buckets and bands instead.

**Issues and snapshots.** The feed is published weekly; each publication is an issue
(`issue_id` = ISO week, e.g. `2026-W48`) with an immutable snapshot named by `snapshot_etag`.
A republish or an emergency withdrawal makes a new snapshot.

**Paging.** Lists are ordered by `sort_key`. Pass `meta.next_cursor` back as `cursor` with the
same filters; it is `null` on the last page. A cursor lives within one snapshot: after a
republish it answers 409 `snapshot_changed` and you start again from the first page.

**Errors** always have the body `{"error": {"code", "message", "param"?}}`: 400
`invalid_parameter` (unknown parameter or bad value; `param` names it), 400 `invalid_cursor`,
409 `snapshot_changed`, 404 `not_found`, 403 `SPEC_CODED_GATED` (adds `access_url`), 405
`method_not_allowed`, 503 `service_unavailable`.

**HTTP.** Listing, row, facets and the flat file carry `ETag` (the snapshot etag) and
`Cache-Control: public, no-cache`; send `If-None-Match` for a 304. Health is `no-store`. Every
keyless GET allows any origin (CORS). The front server refuses a request line over 8,190 bytes
(414) and headers over 8,190 bytes each or 100 in all; the longest valid URL (every filter, a
200-character `q`, a 147-character cursor) is far below.

**Schemas.** Every public shape is published as a JSON Schema (2020-12) file, the same ones
the components below embed and the MCP tools declare: a row at
`/schema/service.tender.v1.json`, a row in one language at `/schema/service.tender.v1.lang.json`,
the flat file at `/schema/service.tender.v1.rows.json`, a list page at
`/schema/service.tender.v1.page.json` and its meta at `/schema/service.tender.v1.meta.json`, one
row at `/schema/service.tender.v1.one.json`, the facets at
`/schema/service.tender.v1.facets.json`, the listing parameters at
`/schema/service.tender.v1.query.json`, health at `/schema/service.health.v1.json`, the error
body at `/schema/service.error.v1.json`, a lane at `/schema/service.lane.v1.json`, the
engagement model at `/schema/service.engagement.v1.json`, the capabilities at
`/schema/service.capabilities.v1.json` and the receipts at `/schema/service.rfq-receipt.v1.json`
and `/schema/service.access-receipt.v1.json`. The `tenders` command-line client and the
`tenders-validate` validator ship with them (see the README).

Also: the flat file of every row at `/tender/rows.json`, an MCP tool server at `/mcp`, and a
guide at `/llms.txt`.
"""

TAGS = [
    {"name": "tenders", "description": "The listing feed: rows, facets, the flat file."},
    {"name": "feed", "description": "Health of the feed."},
    {"name": "access", "description": "The gated spec-coded tier."},
    {"name": "sourcing", "description": "Sourcing lanes, markets, compliance, engagement."},
]

"""Warm the answer cache of a new snapshot: right after the switch, the publishing process
computes the answers of the commonest requests, so that every server process finds them in
the shared tier (``tenders.read.answers``) instead of reading rows for them."""

import logging

from tenders.read import current, selectors
from tenders.read.query import MAX_LIMIT, PAGES, REST, TOOL
from tenders.read.rows import LANGS

from ..markets import MARKET_CODES
from ..models import Issue

log = logging.getLogger(__name__)

# The first pages asked for most: no filter and each market; no filter in each language; at the
# defaults of REST, of the tool server (ten rows, English unless asked) and of the people's
# pages (twenty rows); and the Atom feeds' pages. Other first pages are computed on first use.
FIRST_PAGES = (
    {},
    *({"market": code} for code in MARKET_CODES),
    *({"lang": lang} for lang in LANGS),
)
FEEDS = (
    {"lang": "en", "limit": str(MAX_LIMIT)},
    {"lang": "en", "limit": str(MAX_LIMIT), "new": "true"},
)


def common_requests() -> list[tuple]:
    """(surface, parameters) of the first pages warmed at publication."""
    pages = [(surface, params) for surface in (REST, TOOL, PAGES) for params in FIRST_PAGES]
    return pages + [(REST, params) for params in FEEDS]


def warm_answers(issue: Issue) -> int:
    """Compute the common first pages and the facets of ``issue`` (this process keeps them
    too, and the issue record); returns how many answers. Never fails a publication: the
    snapshot is current already, and a cold cache only costs time."""
    done = 0
    try:
        issue = current.remember(issue)
        for surface, params in common_requests():
            selectors.list_answer(params, issue=issue, surface=surface)
            done += 1
        selectors.facets_answer(issue=issue)
        done += 1
    except Exception:
        log.warning(
            "Warming the answers of issue %s stopped after %d.", issue.issue_id, done, exc_info=True
        )
    return done

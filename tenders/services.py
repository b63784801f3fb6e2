"""Kept for callers written before ``tenders.publication``: import from there instead."""

from .publication import (  # noqa: F401
    PLAN_PHASE,
    PublicationError,
    PublicationSummary,
    publish_issue,
    withdraw_row,
)

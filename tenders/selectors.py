"""Reads of the public side. Public surfaces call these; nothing here touches private models."""

from .models import Issue


def current_issue() -> Issue | None:
    """The issue every public surface serves, or None before the first publication."""
    return Issue.objects.filter(is_current=True).first()

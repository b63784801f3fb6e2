import pytest

from tests.api.feed import publish_feed, snapshot_rows


@pytest.fixture
def feed(db, t0):
    """The published feed of tests.api.feed: (issue, every snapshot row in sort_key order)."""
    issue = publish_feed(t0)
    return issue, snapshot_rows(issue)


@pytest.fixture
def cache_in_memory(settings):
    """Per-process caches, so query counts show only the feed's own queries."""
    locmem = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    settings.CACHES = {"default": locmem, "answers": {**locmem, "LOCATION": "answers"}}
    from django.core.cache import caches

    for alias in settings.CACHES:
        caches[alias].clear()

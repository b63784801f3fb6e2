import pytest

from tests.api.feed import publish_feed, snapshot_rows


@pytest.fixture
def feed(db, t0):
    """The published feed of tests.api.feed: (issue, every snapshot row in sort_key order)."""
    issue = publish_feed(t0)
    return issue, snapshot_rows(issue)


@pytest.fixture
def cache_in_memory(settings):
    """A per-process cache, so query counts show only the feed's own queries."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    from django.core.cache import cache

    cache.clear()

"""The project's settings with the stock service's URLs (and django-filter) instead."""

from config.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "django_filters"]  # noqa: F405
ROOT_URLCONF = "bench.stock_drf.urls"
# A stock service waits for its database as long as it takes (no 503 after 2 s).
MIDDLEWARE = [m for m in MIDDLEWARE if m != "core.middleware.DatabaseAnswerLimit"]  # noqa: F405

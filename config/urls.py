"""Every public path in one list."""

from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path

from core.views import robots_txt
from mcp_server import views as mcp_views
from pages import urls as pages_urls
from rfq.api.views import SubmitRfqView
from tenders.api import views as tender_views

# A database that does not answer is a 503 on every surface (core.middleware).
handler500 = "core.middleware.server_error"

urlpatterns = [
    path("api/v1/health", tender_views.health, name="health"),
    path("healthz", tender_views.health, name="healthz"),
    path("rfq", SubmitRfqView.as_view(), name="submit-rfq"),
    # The staff admin, at STAFF_ADMIN_PATH (docs/staff-accounts.md).
    path(settings.STAFF_ADMIN_PATH, admin.site.urls),
    path("robots.txt", robots_txt, name="robots-txt"),
    path("mcp", mcp_views.mcp_endpoint, name="mcp"),
    path(".well-known/mcp.json", mcp_views.well_known, name="mcp-well-known"),
]

# --- Public REST contract (issue #3): listing, row, facets, flat file, capabilities, discovery
urlpatterns += [path("", include("config.public_urls"))]

# --- People's pages and Atom feeds (issue #13): /<lang>/..., /feeds/*.atom, redirects
urlpatterns += pages_urls.unprefixed
urlpatterns += i18n_patterns(path("", include((pages_urls.people, "pages"))))

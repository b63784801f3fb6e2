"""Every public path in one list."""

from django.contrib import admin
from django.urls import include, path

from tenders.api import views as tender_views

urlpatterns = [
    path("api/v1/health", tender_views.health, name="health"),
    path("healthz", tender_views.health, name="healthz"),
    path("admin/", admin.site.urls),
]

# --- Public REST contract (issue #3): listing, row, facets, flat file, capabilities, discovery
urlpatterns += [path("", include("config.public_urls"))]

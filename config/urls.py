"""Every public path in one list."""

from django.contrib import admin
from django.urls import path

from rfq.api.views import SubmitRfqView
from tenders.api import views as tender_views

urlpatterns = [
    path("api/v1/health", tender_views.health, name="health"),
    path("healthz", tender_views.health, name="healthz"),
    path("rfq", SubmitRfqView.as_view(), name="submit-rfq"),
    path("admin/", admin.site.urls),
]

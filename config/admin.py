"""The staff admin site: our titles, and an index ordered by how staff work.

Installed in place of ``django.contrib.admin`` (``StaffAdminConfig``), so ``admin.site`` and
``@admin.register`` in every app use this site unchanged.
"""

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig

# Apps first in this order, the rest alphabetically after them; within an app, models listed
# here come first in this order.
APP_ORDER = ("tenders", "sourcing", "rfq", "mcp_server", "auth")
MODEL_ORDER = {
    "tenders": ("SourceTender", "Issue", "Category", "CurrencyRate"),
}


class StaffAdminSite(admin.AdminSite):
    site_header = "Tender feed: staff"
    site_title = "Tender feed staff"
    index_title = "Curate, publish and answer"

    def get_app_list(self, request, app_label=None):
        apps = super().get_app_list(request, app_label)

        def app_key(app):
            label = app["app_label"]
            return (APP_ORDER.index(label) if label in APP_ORDER else len(APP_ORDER), app["name"])

        apps.sort(key=app_key)
        for app in apps:
            order = MODEL_ORDER.get(app["app_label"], ())
            app["models"].sort(
                key=lambda m, order=order: (
                    order.index(m["object_name"]) if m["object_name"] in order else len(order),
                    m["name"],
                )
            )
        return apps


class StaffAdminConfig(AdminConfig):
    default_site = "config.admin.StaffAdminSite"

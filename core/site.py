"""The staff admin site: our titles, an index ordered by how staff work, and query values
checked once for every admin page.

Installed in place of ``django.contrib.admin`` (``StaffAdminConfig``), so ``admin.site`` and
``@admin.register`` in every app use this site unchanged.
"""

from functools import wraps
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.apps import AdminConfig
from django.contrib.auth import logout
from django.http import HttpResponseRedirect
from django.urls import path, reverse
from django.utils.module_loading import import_string

# Apps first in this order, the rest alphabetically after them; within an app, models listed
# here come first in this order.
APP_ORDER = ("tenders", "sourcing", "rfq", "mcp_server", "auth")
MODEL_ORDER = {
    "tenders": ("SourceTender", "Issue", "ImportRun", "Job", "Category", "CurrencyRate"),
}


class StaffAdminSite(admin.AdminSite):
    site_header = "Tender feed: staff"
    site_title = "Tender feed staff"
    index_title = "Curate, publish and answer"
    index_template = "admin/staff_index.html"
    login_template = "admin/core/login.html"

    @property
    def login_form(self):
        from core.forms import StaffAuthenticationForm

        return StaffAuthenticationForm

    def get_urls(self):
        from core import views

        mine = [
            path(
                "second-factor/",
                self.admin_view(views.second_factor),
                name="core_second_factor",
            ),
            path(
                "reauthenticate/",
                self.admin_view(views.reauthenticate),
                name="core_reauthenticate",
            ),
        ]
        return mine + super().get_urls()

    def index(self, request, extra_context=None):
        """The index opens with what the health record says is wrong (its ``reasons``)."""
        feed_health = import_string(settings.STAFF_INDEX_HEALTH)
        return super().index(request, {"feed_health": feed_health(), **(extra_context or {})})

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

    def admin_view(self, view, cacheable=False):
        return super().admin_view(_staff_session(_without_nul_values(view)), cacheable)


# Pages a signed-in account that still lacks its required second factor may reach.
BEFORE_ENROLMENT = {"core_second_factor", "logout", "jsi18n"}


def _staff_session(view):
    """A staff session older than its limit signs in again; an account whose permissions need
    a second factor (core.signin) and that has not used one reaches only the enrolment page."""
    from core import signin
    from core.models import SignInEvent

    @wraps(view)
    def checked(request, *args, **kwargs):
        user = request.user
        if signin.session_expired(request):
            signin.record(request, SignInEvent.Kind.EXPIRED, user=user)
            logout(request)
            messages.info(request, "Your session has ended: please sign in again.")
            query = urlencode({"next": request.get_full_path()})
            return HttpResponseRedirect(f"{reverse('admin:login')}?{query}")
        name = request.resolver_match.url_name if request.resolver_match else None
        if (
            name not in BEFORE_ENROLMENT
            and signin.needs_second_factor(user)
            and not user.is_verified()
        ):
            if signin.has_second_factor(user):
                # Enrolled, but this session has not used the code (it predates enrolment).
                logout(request)
                query = urlencode({"next": request.get_full_path()})
                return HttpResponseRedirect(f"{reverse('admin:login')}?{query}")
            messages.warning(
                request,
                "Your account can publish, withdraw, import or allow: it needs a second factor "
                "before anything else. Enrol an authenticator app below.",
            )
            return HttpResponseRedirect(reverse("admin:core_second_factor"))
        return view(request, *args, **kwargs)

    return checked


def _without_nul_values(view):
    """PostgreSQL cannot compare text with a NUL character, so a filter or search value that
    holds one (``?status__exact=%00``) would fail the query with a 500 on any list. Such
    parameters are dropped with a message instead, on every admin page at once."""

    @wraps(view)
    def checked(request, *args, **kwargs):
        bad = [
            name
            for name, values in request.GET.lists()
            if "\x00" in name or any("\x00" in value for value in values)
        ]
        if not bad:
            return view(request, *args, **kwargs)
        shown = ", ".join(name.replace("\x00", "\\x00") for name in bad)
        messages.error(
            request,
            f"Ignored {shown}: filter and search values cannot contain NUL characters.",
        )
        query = request.GET.copy()
        for name in bad:
            del query[name]
        target = f"{request.path}?{query.urlencode()}" if query else request.path
        return HttpResponseRedirect(target)

    return checked


class StaffAdminConfig(AdminConfig):
    default_site = "core.site.StaffAdminSite"

    def ready(self):
        super().ready()  # autodiscover: every app's admin module is registered by now
        # One menu entry for jobs: "Jobs" tells staff who asked for what, its progress and
        # outcome; the queue's own rows (django_tasks_db's "Task results") say the same in a
        # machine's words, so they stay out of the admin.
        from django_tasks_db.models import DBTaskResult

        site = admin.site
        if site.is_registered(DBTaskResult):
            site.unregister(DBTaskResult)

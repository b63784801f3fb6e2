"""Where the admin lives: only on STAFF_ADMIN_HOST when set (404 on every other host name),
and never indexed (``X-Robots-Tag``)."""

from django.conf import settings
from django.http import Http404


class StaffAdminMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.prefix = "/" + settings.STAFF_ADMIN_PATH

    def __call__(self, request):
        if not request.path.startswith(self.prefix):
            return self.get_response(request)
        host = settings.STAFF_ADMIN_HOST
        if host and request.get_host().rsplit(":", 1)[0].lower() != host.lower():
            raise Http404("No such page.")
        response = self.get_response(request)
        response["X-Robots-Tag"] = "noindex, nofollow"
        return response

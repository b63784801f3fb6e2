"""The language of a people's page comes from its path, and only people's paths get one.

Django's ``LocaleMiddleware`` would pick a language for every request (from ``Accept-Language``
too), add ``Vary: Accept-Language`` and ``Content-Language`` to every response and redirect
unprefixed paths that 404. The JSON surfaces must not change, so this middleware acts only on
paths that start with a language prefix (``/en/``, ``/zh-hans/``, ``/zh-hant/``): it activates
that language for the request and says so in ``Content-Language``. Every other request runs
in ``LANGUAGE_CODE`` exactly as before. ``/`` picks a language itself (``pages.views.root``).
"""

from django.utils import translation


class PeopleLocaleMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        language = translation.get_language_from_path(request.path_info)
        if language is None:
            return self.get_response(request)
        # override() restores the previous state afterwards, so the language never leaks into
        # the next request served by this thread.
        with translation.override(language):
            request.LANGUAGE_CODE = language
            response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        return response

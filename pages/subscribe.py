"""Pages of saved searches: the listing page's subscribe form posts here, and the signed links
of the mails open these. Thin views over ``tenders.subscriptions``.

- The subscribe answer is the same page for every address (``sent``), whatever the address's
  state; only a bad address, a bad search or the network's own limit is refused.
- A link's GET shows a button and only its POST acts: mail scanners follow links, and a
  confirmation must be a person's. The unsubscribe URL also takes the RFC 8058 one-click POST
  from a mail client (no cookie, no CSRF token: the signed link is the authority).
- Every answer is personal: never cached.
"""

from urllib.parse import urlencode

from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from core.clients import client_info
from core.errors import ApiError
from tenders import subscriptions
from tenders.labels import API_LANG

from .messages import listing_message

# Each language named in itself, as the pages' language switch names them.
LANGUAGE_NAMES = {"en": "English", "zh": "简体中文", "zht": "繁體中文"}


def _page(request, mode: str, status: int = 200, **context):
    return render(request, "pages/subscription.html", {"mode": mode, **context}, status=status)


def _invalid_link(request):
    return _page(request, "invalid", status=404)


@never_cache
@require_POST
def subscribe(request):
    email = request.POST.get("email", "")
    search = {}
    for name in subscriptions.SEARCH_PARAMS:
        # As on the listing page: a field left empty means "not given".
        values = [v for v in request.POST.getlist(name) if v.strip()]
        if values:
            search[name] = values[0] if len(values) == 1 else values
    try:
        subscriptions.subscribe(
            email=email,
            params=search,
            lang=API_LANG[request.LANGUAGE_CODE],
            client=client_info(request),
        )
    except ApiError as error:
        if error.param == "email":
            message = _("Give an e-mail address such as buyer@example.com.")
        elif error.code == "rate_limited":
            message = _("Too many requests from your network. Try again later.")
        else:
            message = listing_message(error)
        back = reverse("pages:tender-list") + (
            "?" + urlencode(search, doseq=True) if search else ""
        )
        response = _page(
            request, "refused", status=error.status, message=message, back=back, email=email
        )
        if "retry_after" in error.extra:
            response["Retry-After"] = str(error.extra["retry_after"])
        return response
    return HttpResponseRedirect(reverse("pages:subscription-sent"), status=303)


@never_cache
@require_safe
def sent(request):
    from django.conf import settings

    return _page(request, "sent", days=settings.SUBSCRIPTION_CONFIRM_DAYS)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def confirm(request, token: str):
    if request.method != "POST":
        subscription = subscriptions.pending_confirmation(token)
        if subscription is None:
            return _invalid_link(request)
        return _page(request, "confirm", subscription=subscription, search=_search(subscription))
    subscription = subscriptions.confirm(token)
    if subscription is None:
        return _invalid_link(request)
    return _page(
        request,
        "confirmed",
        subscription=subscription,
        search=_search(subscription),
        manage_url=subscriptions.manage_url(subscription.email, subscription.lang),
    )


@never_cache
@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request, token: str):
    if request.method != "POST":
        subscription = subscriptions.subscription_of_unsubscribe(token)
        if subscription is None:
            # Already gone (or never valid): leaving is done either way.
            return _page(request, "left")
        return _page(request, "unsubscribe", search=_search(subscription))
    if not subscriptions.unsubscribe(token):
        return _invalid_link(request)
    return _page(request, "left")


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def manage(request, token: str):
    key = subscriptions.address_of_manage(token)
    if key is None:
        return _invalid_link(request)
    removed = None
    if request.method == "POST":
        ids = None
        if request.POST.get("delete") != "all":
            ids = [int(v) for v in request.POST.getlist("delete") if v.isdigit()]
        removed = subscriptions.delete_for_address(key, ids)
    found = subscriptions.subscriptions_of(key)
    rows = [
        {"subscription": s, "search": _search(s), "language": LANGUAGE_NAMES[s.lang]} for s in found
    ]
    email = found[0].email if found else ""
    return _page(request, "manage", email=email, rows=rows, removed=removed)


def _search(subscription) -> str:
    from tenders.digests import describe

    return describe(subscription.query) or _("every open tender")

"""Staff sign-in rules: who needs a second factor, how old a session or a sign-in may be, and
the log of what happened. The login form, the re-authentication and enrolment pages and the
admin site call these; nothing else decides them."""

import logging
import time
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django_otp import verify_token
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from core.clients import client_info

from .models import SignInEvent

log = logging.getLogger(__name__)

# Holding any of these needs a second factor: publishing and withdrawing (add issue),
# importing, and allowances (a gate allowance; a word added to the public vocabulary).
SENSITIVE_PERMISSIONS = (
    "tenders.add_issue",
    "tenders.run_import",
    "tenders.add_gateallowance",
    "tenders.add_vocabulary_word",
)
SIGNED_IN_AT = "core.signed_in_at"
AUTHENTICATED_AT = "core.authenticated_at"
RECOVERY_CODES = 10


def needs_second_factor(user) -> bool:
    if not (user.is_authenticated and user.is_staff):
        return False
    return settings.STAFF_SECOND_FACTOR_FOR_ALL or any(
        user.has_perm(p) for p in SENSITIVE_PERMISSIONS
    )


def has_second_factor(user) -> bool:
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()


def record(request: HttpRequest | None, kind: str, *, username="", user=None, detail="") -> None:
    info = client_info(request) if request is not None else None
    SignInEvent.objects.create(
        kind=kind,
        username=(username or (user.get_username() if user else ""))[:150],
        user=user if user is not None and user.pk else None,
        address=info.ip if info else None,
        user_agent=info.user_agent if info else "",
        detail=detail[:200],
    )


def prune_log(now=None) -> int:
    """Delete sign-in events older than STAFF_SIGN_IN_LOG_DAYS (run_schedules does, often)."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.STAFF_SIGN_IN_LOG_DAYS)
    return SignInEvent.objects.filter(at__lt=cutoff).delete()[0]


def client_ip(request: HttpRequest) -> str | None:
    return client_info(request).ip


# --- the session --------------------------------------------------------------------------


def mark_signed_in(request: HttpRequest) -> None:
    now = time.time()
    request.session[SIGNED_IN_AT] = now
    request.session[AUTHENTICATED_AT] = now


def mark_reauthenticated(request: HttpRequest) -> None:
    request.session[AUTHENTICATED_AT] = time.time()


def session_expired(request: HttpRequest, now: float | None = None) -> bool:
    """A staff session older than STAFF_SESSION_SECONDS since its sign-in (or with no record of
    one) must sign in again."""
    signed_in = request.session.get(SIGNED_IN_AT)
    now = time.time() if now is None else now
    if not isinstance(signed_in, int | float):
        return True
    return now - signed_in > settings.STAFF_SESSION_SECONDS


def recently_authenticated(request: HttpRequest, now: float | None = None) -> bool:
    at = request.session.get(AUTHENTICATED_AT)
    now = time.time() if now is None else now
    return isinstance(at, int | float) and now - at <= settings.STAFF_REAUTH_SECONDS


def require_recent_authentication(request: HttpRequest, back: str | None = None):
    """None when the user entered their password (and code) recently enough for a sensitive
    action; else a redirect to the re-authentication page, which returns to ``back`` (the
    page itself for a GET)."""
    if recently_authenticated(request):
        return None
    back = back or (request.get_full_path() if request.method == "GET" else None)
    query = urlencode({"next": back}) if back else ""
    target = reverse("admin:core_reauthenticate")
    return HttpResponseRedirect(f"{target}?{query}" if query else target)


# --- failures and lockouts ----------------------------------------------------------------


def account_for(username: str):
    User = get_user_model()
    return User._default_manager.filter(**{User.USERNAME_FIELD: username}).first()


def notify_locked(request: HttpRequest, user, until: float) -> None:
    """E-mail the account that it was locked (never says whether the password was right)."""
    if not user.email:
        return
    when = datetime.fromtimestamp(until, tz=UTC)
    address = client_ip(request) or "an unknown address"
    body = (
        f"Your staff account {user.get_username()} was locked after repeated failed sign-ins, "
        f"the last from {address}. It can sign in again after {when:%Y-%m-%d %H:%M} UTC.\n\n"
        "If this was not you, tell the other administrators: someone may be guessing your "
        "password. The sign-in log in the admin lists every attempt with its address."
    )
    try:
        send_mail("Staff account locked", body, None, [user.email])
    except Exception:  # a mail server that is down must not turn the refusal into a 500
        log.exception("could not send the lockout e-mail to %s", user.get_username())


# --- second factor ------------------------------------------------------------------------


def device_for_code(user, token: str):
    """The device that accepts ``token``: six digits are a code from the app, anything else a
    recovery code (each device keeps its own count of wrong codes; only the one asked counts)."""
    token = token.strip().replace(" ", "")
    model = TOTPDevice if token.isdigit() and len(token) == 6 else StaticDevice
    for device in model.objects.filter(user=user, confirmed=True):
        if verify_token(user, device.persistent_id, token):
            return device
    return None


def new_recovery_codes(user) -> list[str]:
    """Replace the account's recovery codes with RECOVERY_CODES new ones (each works once)."""
    StaticDevice.objects.filter(user=user).delete()
    device = StaticDevice.objects.create(user=user, name="recovery codes", confirmed=True)
    codes = []
    for _ in range(RECOVERY_CODES):
        code = device.token_set.model.random_token()
        device.token_set.create(token=code)
        codes.append(code)
    return codes


def recovery_codes_left(user) -> int:
    return sum(d.token_set.count() for d in StaticDevice.objects.filter(user=user))

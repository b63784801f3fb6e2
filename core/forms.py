"""The staff login form (password and, for an enrolled account, a code), the
re-authentication form and the enrolment form. Every failure gives one message, whether the
account exists, the password was wrong or the code was, and counts against the account and
the address (core.throttle)."""

import logging

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import authenticate
from django.core.exceptions import ValidationError
from django.utils import timezone

from . import signin, throttle
from .models import SignInEvent

log = logging.getLogger(__name__)

INVALID = (
    "Please enter the correct username and password of a staff account, and the code from "
    "your authenticator app (or a recovery code) if the account has a second factor. Both "
    "fields may be case-sensitive."
)

UNAVAILABLE = (
    "Signing in is unavailable for a moment: the count of failed sign-ins cannot be checked. "
    "Try again in a minute."
)


def wait_message(refusal: throttle.Refusal) -> str:
    unit = "second" if refusal.seconds == 1 else "seconds"
    if refusal.locked:
        minutes = (refusal.seconds + 59) // 60
        return (
            "Too many failed sign-ins: signing in is locked for this account or address. "
            f"Try again in {refusal.seconds} {unit} (about {minutes} min)."
        )
    return f"Too many failed sign-ins. Wait {refusal.seconds} {unit} before trying again."


def code_field() -> forms.CharField:
    return forms.CharField(
        label="Code",
        required=False,
        max_length=20,
        strip=True,
        help_text="Six digits from your authenticator app, or a recovery code. Leave empty if "
        "the account has no second factor yet.",
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )


class Checks:
    """Password (and code) checks shared by sign-in and re-authentication."""

    request = None

    def check(self, username: str, password: str, token: str):
        """The verified user, with ``otp_device`` set when a code was given; else raises
        ValidationError (counted, logged, and e-mailed on a lockout)."""
        try:
            with throttle.turn(username, signin.client_ip(self.request)) as mine:
                if not mine:  # other attempts for this account or address are being checked
                    signin.record(
                        self.request, SignInEvent.Kind.REFUSED, username=username, detail="busy"
                    )
                    raise ValidationError(
                        wait_message(throttle.Refusal(seconds=1, locked=False)), code="throttled"
                    )
                return self._check(username, password, token)
        except throttle.Unavailable as exc:
            log.error("staff sign-in refused: the shared cache does not answer (%s)", exc)
            signin.record(
                self.request, SignInEvent.Kind.REFUSED, username=username, detail="no cache"
            )
            raise ValidationError(UNAVAILABLE, code="unavailable") from None

    def _check(self, username: str, password: str, token: str):
        request = self.request
        ip = signin.client_ip(request)
        refused = throttle.refusal(username, ip)
        if refused is not None:
            signin.record(
                request, SignInEvent.Kind.REFUSED, username=username, detail=f"{refused.seconds} s"
            )
            raise ValidationError(wait_message(refused), code="throttled")
        user = authenticate(request, username=username, password=password)
        reason = None
        if user is None:
            reason = "wrong username or password"
        elif not (user.is_active and user.is_staff):
            reason = "not an active staff account"
        else:
            user.otp_device = None
            if signin.has_second_factor(user):
                device = signin.device_for_code(user, token) if token else None
                if device is None:
                    reason = "code missing" if not token else "wrong code"
                user.otp_device = device
        if reason is not None:
            self._fail(username, ip, reason)
        throttle.succeeded(username)
        return user

    def _fail(self, username: str, ip: str | None, reason: str):
        request = self.request
        account = signin.account_for(username)
        signin.record(
            request, SignInEvent.Kind.FAILED, username=username, user=account, detail=reason
        )
        count = throttle.failed(username, ip)
        if count.locked_until and count.failures == throttle.limits().lock_after:
            signin.record(
                request,
                SignInEvent.Kind.LOCKED,
                username=username,
                user=account,
                detail=f"{count.failures} failures",
            )
            if account is not None:
                signin.notify_locked(request, account, count.locked_until)
        refused = throttle.refusal(username, ip)
        if refused is not None and refused.locked:
            raise ValidationError(wait_message(refused), code="throttled")
        raise ValidationError(INVALID, code="invalid_login")


class StaffAuthenticationForm(Checks, AdminAuthenticationForm):
    otp_token = code_field()

    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is not None and password:
            self.user_cache = self.check(username, password, self.cleaned_data.get("otp_token"))
        return self.cleaned_data


class ReauthenticationForm(Checks, forms.Form):
    password = forms.CharField(
        strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )
    otp_token = code_field()

    def __init__(self, request, *args, **kwargs):
        self.request = request
        super().__init__(*args, **kwargs)
        if not signin.has_second_factor(request.user):
            del self.fields["otp_token"]

    def clean(self):
        data = super().clean()
        if data.get("password"):
            username = self.request.user.get_username()
            self.user = self.check(username, data["password"], data.get("otp_token", ""))
            if self.user.pk != self.request.user.pk:
                raise ValidationError(INVALID, code="invalid_login")
        return data


class EnrolForm(forms.Form):
    otp_token = forms.CharField(
        label="Code",
        max_length=6,
        min_length=6,
        help_text="The six digits your authenticator app shows for this account.",
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )

    def __init__(self, device, *args, **kwargs):
        self.device = device
        super().__init__(*args, **kwargs)

    def clean_otp_token(self):
        token = self.cleaned_data["otp_token"]
        allowed, why = self.device.verify_is_allowed()
        if not allowed and why.get("locked_until"):
            seconds = max(1, int((why["locked_until"] - timezone.now()).total_seconds() + 0.999))
            unit = "second" if seconds == 1 else "seconds"
            raise ValidationError(f"Too many wrong codes: wait {seconds} {unit}, then try again.")
        if not (token.isdigit() and self.device.verify_token(token)):
            raise ValidationError(
                "That code does not match. Check the time on your phone and type the code "
                "the app shows now."
            )
        return token

"""Every sign-in starts the session's clocks (core.signin) and is logged."""

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from . import signin
from .models import SignInEvent


@receiver(user_logged_in, dispatch_uid="core.signed_in")
def signed_in(sender, request, user, **kwargs):
    if request is None or not hasattr(request, "session"):
        return
    signin.mark_signed_in(request)
    with_code = getattr(user, "otp_device", None) is not None
    signin.record(
        request,
        SignInEvent.Kind.SIGNED_IN,
        user=user,
        detail="password and code" if with_code else "password",
    )

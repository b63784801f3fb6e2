"""The sign-in log: every staff sign-in, failure, refusal, lockout and second-factor
enrolment, with the address it came from (core.signin writes it; the admin shows it)."""

from django.conf import settings
from django.db import models


class SignInEvent(models.Model):
    class Kind(models.TextChoices):
        SIGNED_IN = "signed_in", "signed in"
        FAILED = "failed", "failed"
        REFUSED = "refused", "refused (waiting or locked)"
        LOCKED = "locked", "locked out"
        ENROLLED = "enrolled", "second factor enrolled"
        REAUTHENTICATED = "reauthenticated", "re-authenticated"
        EXPIRED = "expired", "session expired"

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    # As typed on the form (the account may not exist); the account when it does.
    username = models.CharField(max_length=150, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    address = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=300, blank=True)
    detail = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        verbose_name = "sign-in event"
        indexes = [models.Index(fields=["username", "-at"], name="core_signin_username_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.get_kind_display()} {self.username}"

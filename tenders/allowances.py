"""Curators' allow-lists of the sanitization gate: the one way allowances are added and removed.

A curator who reads a finding that is not a leak ("R410A" is a refrigerant, "HP LaserJet" a
printer) marks it: for this record, or (with the *Can add gate allowance* permission) for
every record. Each change leaves an admin log entry on the allowance and on the record: who,
when, what and why. The gate learns nothing by itself; it only reads these lists.
"""

from django.contrib.admin.models import ADDITION, DELETION, LogEntry
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import Model

from .models import GateAllowance, SourceTender
from .sanitize import KIND_LABELS, allowance_problem, clean_text

REASON_MAX = 300


class AllowanceError(ValueError):
    """The allowance was refused; nothing was written."""


def _log(user: AbstractBaseUser | None, obj: Model, flag: int, message: str) -> None:
    if user is None or not getattr(user, "pk", None):
        return
    LogEntry.objects.create(
        user_id=user.pk,
        content_type_id=ContentType.objects.get_for_model(obj).pk,
        object_id=str(obj.pk),
        object_repr=str(obj)[:200],
        action_flag=flag,
        change_message=message[:2000],
    )


def allowance_refusal(*, kind: str, phrase: str, reason: str, tender: SourceTender | None) -> str:
    """Why this allowance would be refused (empty when it would not), in words for staff."""
    if kind not in KIND_LABELS:
        return f"{kind or 'An empty kind'} is not a kind of finding."
    if problem := allowance_problem(kind, phrase, everywhere=tender is None):
        return problem
    if not reason:
        return "Say why this is not a leak: staff read it later in the history."
    if len(reason) > REASON_MAX:
        return f"Keep the reason under {REASON_MAX} characters."
    if GateAllowance.objects.filter(tender=tender, kind=kind, phrase__iexact=phrase).exists():
        return f"{phrase!r} is already allowed as {KIND_LABELS[kind]} here."
    return ""


@transaction.atomic
def allowance_add(
    *,
    kind: str,
    phrase: str,
    reason: str,
    tender: SourceTender | None,
    user: AbstractBaseUser | None,
) -> GateAllowance:
    """Allow findings of ``kind`` inside ``phrase``: for ``tender`` only, or everywhere (None)."""
    phrase = clean_text(phrase or "")
    reason = clean_text(reason or "")
    if refusal := allowance_refusal(kind=kind, phrase=phrase, reason=reason, tender=tender):
        raise AllowanceError(refusal)
    allowance = GateAllowance.objects.create(
        tender=tender, kind=kind, phrase=phrase, reason=reason, created_by=user
    )
    scope = f"for {tender.listing_id}" if tender else "for every record"
    message = f"Allowed {KIND_LABELS[kind]} {phrase!r} {scope}: {reason}"
    _log(user, allowance, ADDITION, message)
    if tender is not None:
        _log(user, tender, ADDITION, message)
    return allowance


@transaction.atomic
def allowance_remove(*, allowance: GateAllowance, user: AbstractBaseUser | None) -> None:
    """Remove an allowance; the gate finds what it allowed again."""
    message = f"Removed the allowance of {KIND_LABELS.get(allowance.kind, allowance.kind)} " + (
        f"{allowance.phrase!r} ({allowance.reason})"
    )
    _log(user, allowance, DELETION, message)
    if allowance.tender_id is not None:
        _log(user, allowance.tender, DELETION, message)
    allowance.delete()

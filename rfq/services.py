"""Writes of both intakes: the only way a request for quote or an access request is stored, and
the only way staff change their status.

Guarantees of ``rfq_submit`` and ``access_request_submit`` (every surface calls these with the
sender's arguments as a plain mapping):
- One validator (``rfq.validation``): bad input raises ``ApiError(400, ...)`` with the field in
  ``param``, and nothing is written. An RFQ's optional ``asaptic_id`` must also be a row of the
  current issue.
- Idempotency: a submission with an ``idempotency_key`` that was already used for the same
  content returns the first answer (same reference, ``replayed=True``) and stores nothing; the
  same key with different content raises 422 ``idempotency_conflict``. Keys are global per
  intake (not per client address: a retry may well come from another address) and the
  database's unique constraint decides races, so concurrent retries store one record.
- Rate limit: per client address, from settings, shared across processes (``core.ratelimit``).
  Only submissions that would be stored count; a refused one raises 429 ``rate_limited`` with
  ``retry_after`` seconds and stores nothing. Retries of a key, stored or still in flight, are
  never counted nor limited.
- The record is committed when the function returns (call it outside any transaction so that
  holds), and staff are e-mailed after the commit; a failing mail server is logged and never
  loses the record nor fails the call.
- A database that cannot be reached raises 503 ``service_unavailable``: nothing was stored and
  the sender is told to retry.
"""

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from django.conf import settings
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from core import ratelimit
from core.clients import ClientInfo, rate_limit_subject
from core.errors import ApiError

from . import notifications, references, timing, validation
from .models import AccessRequest, IntakeRecord, Rfq, Status

log = logging.getLogger(__name__)

REFERENCE_ATTEMPTS = 5
# The intake clock; surfaces pass no time, tests may set it.
clock = timezone.now


@dataclass(frozen=True)
class Receipt:
    """The answer to a submission. ``replayed`` is True when an idempotent retry returned the
    answer of the first submission instead of storing a new one."""

    reference: str
    next: str
    replayed: bool = False

    def as_dict(self) -> dict:
        return {"received": True, "reference": self.reference, "next": self.next}


@dataclass(frozen=True)
class _Intake:
    model: type[IntakeRecord]
    form: validation.Form
    prefix: str
    scope: str
    rate_setting: str
    noun: str

    def next_text(self, reference: str) -> str:
        return (
            f"Thank you: your {self.noun} is stored. We answer you at the contact you gave "
            f"within {timing.reply_hours()} hours. Quote {reference} in any follow-up."
        )


RFQ = _Intake(
    Rfq, validation.RFQ_FORM, references.RFQ_PREFIX, "rfq", "RFQ_RATE_LIMIT", "request for quote"
)
ACCESS = _Intake(
    AccessRequest,
    validation.ACCESS_REQUEST_FORM,
    references.ACCESS_REQUEST_PREFIX,
    "access",
    "ACCESS_REQUEST_RATE_LIMIT",
    "request for tender access",
)


def rfq_submit(
    *,
    payload: Mapping[str, object],
    client: ClientInfo,
    idempotency_key: str | None = None,
    now: datetime | None = None,
) -> Receipt:
    """Store a request for quote (fields of ``validation.RFQ_FORM``) and tell staff."""
    return _submit(RFQ, payload, client, idempotency_key, now)


def access_request_submit(
    *,
    payload: Mapping[str, object],
    client: ClientInfo,
    idempotency_key: str | None = None,
    now: datetime | None = None,
) -> Receipt:
    """Store a request for tender access (fields of ``validation.ACCESS_REQUEST_FORM``) and
    tell staff."""
    return _submit(ACCESS, payload, client, idempotency_key, now)


def _submit(
    intake: _Intake,
    payload: Mapping[str, object],
    client: ClientInfo,
    idempotency_key: str | None,
    now: datetime | None,
) -> Receipt:
    data = intake.form.clean(payload)
    if data.get("asaptic_id"):
        _check_listing(data["asaptic_id"])
    key = validation.clean_idempotency_key(idempotency_key)
    fingerprint = validation.fingerprint(data)
    now = now or clock()
    try:
        if key is not None:
            first = intake.model.objects.filter(idempotency_key=key).first()
            if first is not None:
                return _replay(intake, first, fingerprint)
        collision = None
        for _ in range(REFERENCE_ATTEMPTS):
            try:
                record = _store(intake, data, client, key, fingerprint, now)
            except IntegrityError as error:
                if key is not None:
                    # A concurrent submission with the same key committed first.
                    first = intake.model.objects.filter(idempotency_key=key).first()
                    if first is not None:
                        return _replay(intake, first, fingerprint)
                collision = error  # a reference collision: draw another
                continue
            return Receipt(reference=record.reference, next=intake.next_text(record.reference))
        raise RuntimeError(
            f"No {intake.prefix} reference stored in {REFERENCE_ATTEMPTS} draws"
        ) from collision
    except (OperationalError, InterfaceError):
        log.exception("Could not store a %s", intake.noun)
        raise unavailable(intake) from None


def _check_listing(at_id: str) -> None:
    """An RFQ's ``asaptic_id`` names a row of the current issue (decisions.md); the refusal is
    the same for every id that is not one, whatever the reason."""
    from tenders.read import selectors

    issue = selectors.current_issue()
    if issue is None or selectors.find_row(at_id, issue) is None:
        raise ApiError(
            400,
            "invalid_parameter",
            f"asaptic_id {at_id} is not a listing of the current issue: take the id from a row "
            "of the current listing, or leave asaptic_id out.",
            param="asaptic_id",
        )


def _store(
    intake: _Intake,
    data: dict[str, str],
    client: ClientInfo,
    key: str | None,
    fingerprint: str,
    now: datetime,
) -> IntakeRecord:
    with transaction.atomic():
        record = intake.model.objects.create(
            reference=references.new_reference(intake.prefix),
            received_at=now,
            reply_due_at=timing.reply_due(now),
            client_ip=client.ip,
            user_agent=client.user_agent,
            idempotency_key=key,
            fingerprint=fingerprint,
            **data,
        )
        # Counted only once the row is ours: a concurrent retry of the same key waits on the
        # key's unique index above until this commits, then replays it, so retries (stored or
        # in flight) never take a slot nor get 429. Refused here, the row is rolled back.
        _check_rate(intake, client, now)
        transaction.on_commit(partial(notifications.notify_staff, record))
    return record


def _replay(intake: _Intake, first: IntakeRecord, fingerprint: str) -> Receipt:
    if first.fingerprint != fingerprint:
        raise idempotency_conflict()
    return Receipt(reference=first.reference, next=intake.next_text(first.reference), replayed=True)


def _check_rate(intake: _Intake, client: ClientInfo, now: datetime) -> None:
    rate = ratelimit.parse_rate(getattr(settings, intake.rate_setting))
    if rate is None:
        return
    retry_after = ratelimit.take(
        scope=intake.scope, subject=rate_limit_subject(client.ip), rate=rate, now=now.timestamp()
    )
    if retry_after is not None:
        raise rate_limited(rate, retry_after)


# --- errors (also used to document them) ----------------------------------------------------


def rate_limited(rate: ratelimit.Rate, retry_after: int) -> ApiError:
    return ApiError(
        429,
        "rate_limited",
        f"Too many submissions from your network address: the limit is {rate}. Try again in "
        f"{timing.human_duration(retry_after)}.",
        extra={"retry_after": retry_after},
    )


def idempotency_conflict() -> ApiError:
    return ApiError(
        422,
        "idempotency_conflict",
        "This Idempotency-Key was already used for a different submission. Use a new key for "
        "a new submission, or send exactly the same content to retry.",
        param="Idempotency-Key",
    )


# Seconds a sender is asked to wait when the database cannot be reached.
UNAVAILABLE_RETRY_AFTER = 60


def unavailable(intake: _Intake) -> ApiError:
    return ApiError(
        503,
        "service_unavailable",
        f"Your {intake.noun} could not be stored just now and nothing was recorded. Please "
        "send it again in a minute.",
        extra={"retry_after": UNAVAILABLE_RETRY_AFTER},
    )


# --- staff actions --------------------------------------------------------------------------

# Which statuses each action applies to; items in other statuses are left as they are.
TRANSITIONS = {
    Status.ANSWERED: (Status.NEW,),
    Status.CLOSED: (Status.NEW, Status.ANSWERED),
}


def rfq_set_status(
    *, ids: list[int], status: Status, actor: AbstractBaseUser, now: datetime | None = None
) -> list[str]:
    """Mark requests for quote answered or closed; returns the references changed."""
    return _set_status(Rfq, ids=ids, status=status, actor=actor, now=now)


def access_request_set_status(
    *, ids: list[int], status: Status, actor: AbstractBaseUser, now: datetime | None = None
) -> list[str]:
    """Mark access requests answered or closed; returns the references changed."""
    return _set_status(AccessRequest, ids=ids, status=status, actor=actor, now=now)


@transaction.atomic
def _set_status(
    model: type[IntakeRecord],
    *,
    ids: list[int],
    status: Status,
    actor: AbstractBaseUser,
    now: datetime | None,
) -> list[str]:
    """One UPDATE and one bulk insert into the admin log, whatever the number of items; the
    log entries carry the actor and the same time as the change."""
    now = now or timezone.now()
    status = Status(status)
    if status not in TRANSITIONS:
        raise ValueError(f"Staff actions set answered or closed, not {status}")
    rows: QuerySet = (
        model.objects.select_for_update()
        .filter(pk__in=ids, status__in=TRANSITIONS[status])
        .order_by("pk")
    )
    changed = list(rows.values_list("pk", "reference"))
    stamp = {"answered_at": now} if status == Status.ANSWERED else {"closed_at": now}
    model.objects.filter(pk__in=[pk for pk, _ in changed]).update(status=status, **stamp)
    content_type = ContentType.objects.get_for_model(model)
    LogEntry.objects.bulk_create(
        LogEntry(
            action_time=now,
            user_id=actor.pk,
            content_type=content_type,
            object_id=str(pk),
            object_repr=reference,
            action_flag=CHANGE,
            change_message=f"Marked {status.value}.",
        )
        for pk, reference in changed
    )
    return [reference for _, reference in changed]

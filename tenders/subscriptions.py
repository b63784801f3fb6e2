"""Saved searches mailed each week: subscribing (double opt-in), confirming, leaving, managing,
erasing. Every surface (the listing page's form, the signed links in the mails, the admin)
calls these; the mails (the confirmation and the digest) are ``tenders.digests``, sent by a
worker (``tenders.tasks``).

Privacy rules kept here:
- ``subscribe`` answers the same way for every address (it returns nothing): whether the
  address was new, pending, already confirmed or over its own limit is never told. Only the
  per-network limit, which depends on the caller alone, is refused (429 ``rate_limited``).
- Nothing is mailed to an address before it confirmed, except the confirmation itself (at most
  ``SUBSCRIPTION_ADDRESS_RATE_LIMIT`` of them). Unconfirmed subscriptions expire after
  ``SUBSCRIPTION_CONFIRM_DAYS``.
- Links are signed (``django.core.signing``, the project's SECRET_KEY): confirm and manage links
  expire, unsubscribe links do not (RFC 8058 one-click must keep working).
"""

import logging
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.dispatch import Signal
from django.urls import reverse
from django.utils import timezone, translation

from core import ratelimit
from core.clients import ClientInfo, rate_limit_subject
from core.errors import ApiError
from tenders.read import selectors
from tenders.read.filters import parse_list_params
from tenders.read.query import PAGES, invalid
from tenders.read.rows import LANGS

from .labels import PAGE_LANG
from .models import Subscription
from .models.subscriptions import address_key

log = logging.getLogger(__name__)

# The listing's parameters a saved search keeps: not the page's position or size, not its
# language (the subscription has its own), not ``new`` (a digest is always the new rows).
SEARCH_PARAMS = ("market", "category", "closing_bucket", "value_band", "lead_ok", "q")

CONFIRM_SALT = "tenders.subscriptions.confirm"
UNSUBSCRIBE_SALT = "tenders.subscriptions.unsubscribe"
MANAGE_SALT = "tenders.subscriptions.manage"
MANAGE_DAYS = 60

_email = EmailValidator(allowlist=[])

# Sent with ``subscription_id`` when a confirmation mail is to be sent: ``tenders.tasks`` queues
# ``digests.send_confirmation`` for a worker.
confirmation_due = Signal()


# --- the address and the search --------------------------------------------------------------


def clean_email(value: Any) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if len(text) > 254:
        raise invalid("email", "email must be at most 254 characters.")
    try:
        _email(text)
    except ValidationError:
        raise invalid("email", "email must be an e-mail address, e.g. buyer@example.com.") from None
    local, _, domain = text.rpartition("@")
    return f"{local}@{domain.lower()}"


def clean_lang(value: Any) -> str:
    if value not in LANGS:
        raise invalid("lang", f"lang must be one of {', '.join(LANGS)}.")
    return value


def saved_search(params: Mapping[str, Any]) -> tuple[dict, str]:
    """The search as the listing parses it (the one parser: an invalid search cannot be saved),
    as the parameters to keep and its canonical key."""
    kept = {k: v for k, v in params.items() if k in SEARCH_PARAMS}
    issue = selectors.require_current_issue(PAGES)
    query = parse_list_params(kept, selectors.vocabulary(issue), PAGES)
    return kept, query.filters_key()


# --- links -----------------------------------------------------------------------------------


def public_base() -> str:
    """Where the links in mails point: ``PUBLIC_BASE_URL`` (set it in production)."""
    return settings.PUBLIC_BASE_URL or "http://localhost:8000"


def _link(name: str, lang: str, token: str) -> str:
    with translation.override(PAGE_LANG[lang]):
        return public_base() + reverse(name, kwargs={"token": token})


def confirm_token(subscription: Subscription) -> str:
    return signing.dumps(subscription.pk, salt=CONFIRM_SALT)


def unsubscribe_token(subscription: Subscription) -> str:
    return signing.dumps(subscription.pk, salt=UNSUBSCRIBE_SALT)


def manage_token(email: str) -> str:
    """Names the address by its keyed hash: the link never carries the address itself."""
    return signing.dumps(address_key(email), salt=MANAGE_SALT)


def confirm_url(subscription: Subscription) -> str:
    return _link("pages:subscription-confirm", subscription.lang, confirm_token(subscription))


def unsubscribe_url(subscription: Subscription) -> str:
    return _link(
        "pages:subscription-unsubscribe", subscription.lang, unsubscribe_token(subscription)
    )


def manage_url(email: str, lang: str) -> str:
    return _link("pages:subscription-manage", lang, manage_token(email))


def search_url(subscription: Subscription, *, only_new: bool = True) -> str:
    """The listing page of the saved search (its new rows), in the subscription's language."""
    from urllib.parse import urlencode

    query = dict(subscription.query)
    if only_new:
        query["new"] = "true"
    with translation.override(PAGE_LANG[subscription.lang]):
        path = reverse("pages:tender-list")
    return public_base() + path + ("?" + urlencode(query, doseq=True) if query else "")


def _loads(token: str, salt: str, max_age: timedelta | None = None):
    try:
        return signing.loads(token, salt=salt, max_age=max_age)
    except signing.BadSignature:  # SignatureExpired is one
        return None


# --- subscribing -----------------------------------------------------------------------------


def subscribe(
    *,
    email: Any,
    params: Mapping[str, Any],
    lang: str,
    client: ClientInfo,
    now: datetime | None = None,
) -> None:
    """Ask for the digest of a search: validate, limit the network, record it, and queue the
    confirmation mail. The request does the same work for every address (the mail is decided
    and sent by ``digests.send_confirmation``, in a worker), so neither its answer nor its time
    tells whether the address was new, waiting or already confirmed."""
    address = clean_email(email)
    lang = clean_lang(lang)
    query, key = saved_search(params)
    now = now or timezone.now()
    _limit("subscribe-net", rate_limit_subject(client.ip), "SUBSCRIPTION_RATE_LIMIT", now, True)
    try:
        with transaction.atomic():
            subscription, _ = Subscription.objects.get_or_create(
                email=address,
                search_key=key,
                lang=lang,
                defaults={"query": query, "created_at": now, "address_key": address_key(address)},
            )
    except IntegrityError:  # the same request twice at once: the other one queues the mail
        return
    confirmation_due.send(sender=Subscription, subscription_id=subscription.pk)


def to_confirm(subscription_id: int, now: datetime) -> Subscription | None:
    """The subscription a confirmation mail may go to now, taking one of its address's
    ``SUBSCRIPTION_ADDRESS_RATE_LIMIT``; None when it is gone or confirmed, or the address had
    its limit."""
    subscription = Subscription.objects.filter(pk=subscription_id).first()
    if subscription is None or subscription.confirmed:
        return None
    if not _limit(
        "subscribe-address", subscription.email.lower(), "SUBSCRIPTION_ADDRESS_RATE_LIMIT", now
    ):
        log.info("Confirmation of #%s not sent: address over its limit.", subscription_id)
        return None
    return subscription


def confirmation_sent(subscription: Subscription, now: datetime) -> None:
    Subscription.objects.filter(pk=subscription.pk).update(confirmation_sent_at=now)


def _limit(scope: str, subject: str, setting: str, now: datetime, refuse: bool = False) -> bool:
    rate = ratelimit.parse_rate(getattr(settings, setting))
    if rate is None:
        return True
    retry_after = ratelimit.take(scope=scope, subject=subject, rate=rate, now=now.timestamp())
    if retry_after is None:
        return True
    if refuse:
        raise ApiError(
            429,
            "rate_limited",
            f"Too many subscription requests from your network address: the limit is {rate}.",
            extra={"retry_after": retry_after},
        )
    return False


def confirm(token: str, *, now: datetime | None = None) -> Subscription | None:
    """Confirm the subscription of a confirmation link; None when the link is not valid any
    more (expired, altered, or the subscription has gone)."""
    pk = _loads(token, CONFIRM_SALT, timedelta(days=settings.SUBSCRIPTION_CONFIRM_DAYS))
    subscription = Subscription.objects.filter(pk=pk).first() if isinstance(pk, int) else None
    if subscription is None:
        return None
    if subscription.confirmed_at is None:
        subscription.confirmed_at = now or timezone.now()
        subscription.save(update_fields=["confirmed_at"])
    return subscription


def pending_confirmation(token: str) -> Subscription | None:
    """The subscription a confirmation link is for, without confirming it (the page a GET
    shows: mail scanners follow links, so only the button's POST confirms)."""
    pk = _loads(token, CONFIRM_SALT, timedelta(days=settings.SUBSCRIPTION_CONFIRM_DAYS))
    return Subscription.objects.filter(pk=pk).first() if isinstance(pk, int) else None


def subscription_of_unsubscribe(token: str) -> Subscription | None:
    pk = _loads(token, UNSUBSCRIBE_SALT)
    return Subscription.objects.filter(pk=pk).first() if isinstance(pk, int) else None


def unsubscribe(token: str) -> bool:
    """One-click leave: delete the subscription (and its history). True when the link was
    valid (also when it was already gone: leaving twice is leaving)."""
    pk = _loads(token, UNSUBSCRIBE_SALT)
    if not isinstance(pk, int):
        return False
    Subscription.objects.filter(pk=pk).delete()
    return True


def address_of_manage(token: str) -> str | None:
    """The address key a manage link names (None: expired or altered)."""
    key = _loads(token, MANAGE_SALT, timedelta(days=MANAGE_DAYS))
    return key if isinstance(key, str) else None


def subscriptions_of(key: str) -> list[Subscription]:
    return list(Subscription.objects.filter(address_key=key).order_by("created_at", "pk"))


def delete_for_address(key: str, ids: list[int] | None = None) -> int:
    """Delete some (``ids``) or all of an address's subscriptions; returns how many."""
    rows = Subscription.objects.filter(address_key=key)
    if ids is not None:
        rows = rows.filter(pk__in=ids)
    return rows.delete()[1].get("tenders.Subscription", 0)


def erase_address(email: str) -> int:
    """Erase an address with its history (every subscription, in any letter case of the local
    part, and every digest record); returns the number of subscriptions erased."""
    # By the address too: a key made under an earlier SECRET_KEY must not hide a row.
    rows = Subscription.objects.filter(
        Q(address_key=address_key(email)) | Q(email__iexact=email.strip())
    )
    return rows.delete()[1].get("tenders.Subscription", 0)


def expire_unconfirmed(*, now: datetime | None = None) -> int:
    """Delete subscriptions left unconfirmed longer than ``SUBSCRIPTION_CONFIRM_DAYS``."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.SUBSCRIPTION_CONFIRM_DAYS)
    rows = Subscription.objects.filter(confirmed_at__isnull=True, created_at__lt=cutoff)
    return rows.delete()[1].get("tenders.Subscription", 0)

"""The weekly digest: after each publication, every confirmed subscription gets the rows new in
the issue that match its search, in its language, plain text and HTML, at most
``DIGEST_MAX_ROWS`` rows with a link to the rest; nothing when nothing matched.

Rows come from the listing selector (``selectors.list_tenders`` with ``new=true``, the
subscription's ``lang`` and ``limit``), once per distinct (search, language) of the run.

Sent at most once per (subscription, issue): a ``DigestDelivery`` row is committed (the unique
pair claims it) before the mail is handed to the server, and marked sent after. A retry skips
every claimed pair, so a worker killed between the claim and the server's answer costs that
one reader this week's digest rather than sending anyone a mail twice; the job reports such
claims. A send that fails with an error (the server refused, the connection dropped) removes
its claim, so the retry sends it.
"""

import contextlib
import logging
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import make_msgid
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db import IntegrityError
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from core.errors import ApiError
from tenders.read import selectors

from . import subscriptions
from .models import DigestDelivery, Issue, Subscription
from .publication import Progress

log = logging.getLogger(__name__)

BATCH = 500
# Consecutive failed sends after which the run stops (the server is down): the job fails and a
# retry sends what is left.
MAX_FAILURES = 5
ONE_CLICK = "List-Unsubscribe=One-Click"


@dataclass
class DigestRun:
    sent: int = 0
    empty: int = 0
    skipped: int = 0  # already claimed by an earlier run of this issue
    refused: int = 0
    searches: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "sent": self.sent,
            "empty": self.empty,
            "skipped": self.skipped,
            "refused": self.refused,
            "searches": self.searches,
            "seconds": round(self.seconds, 1),
        }


class DigestStopped(Exception):
    """The mail server failed ``MAX_FAILURES`` times in a row; ``run`` is what was done."""

    def __init__(self, message: str, run: DigestRun):
        super().__init__(message)
        self.run = run


# --- mails -----------------------------------------------------------------------------------


def _domain() -> str:
    return urlsplit(subscriptions.public_base()).hostname or "localhost"


def describe(query: dict) -> str:
    """The saved search in a line, in the active language, with the pages' labels for codes
    (empty: every open tender; the templates say so)."""
    from django.utils.translation import gettext as _

    from .labels import API_LANG, BANDS, CLOSING, market_name

    lang = API_LANG.get(translation.get_language(), "en")
    parts = []
    for name, value in query.items():
        given = [str(v) for v in (value if isinstance(value, list) else [value])]
        if name == "q":
            parts.append(" ".join(f"“{v}”" for v in given))
            continue
        values = [v.strip() for item in given for v in item.split(",") if v.strip()]
        if name == "market":
            shown = [market_name(v.upper(), lang) for v in values]
        elif name == "closing_bucket":
            labels = {**CLOSING, "all": _("any closing date")}
            shown = [str(labels.get(v, v)) for v in values]
        elif name == "value_band":
            shown = [str(BANDS.get(v, v)) for v in values]
        elif name == "lead_ok":
            accepted = values[:1] in (["true"], ["1"])
            shown = [
                _("Supplier interest accepted") if accepted else _("Supplier interest not accepted")
            ]
        else:
            shown = values
        parts.append(", ".join(shown))
    return " · ".join(parts)


# Stand-ins for what differs between readers of the same search and language, so a digest's
# text and HTML are rendered once per search and language and then filled in per reader (no
# character in them is changed by HTML escaping).
UNSUBSCRIBE_MARK = "urn:x-tenders:unsubscribe"
MANAGE_MARK = "urn:x-tenders:manage"


def _render(subscription: Subscription, subject, template: str, context: dict) -> tuple:
    """(subject, text, html) with the per-reader links left as marks."""
    with translation.override(subscriptions.PAGE_LANG[subscription.lang]):
        context = {
            **context,
            "search": describe(subscription.query),
            "unsubscribe_url": UNSUBSCRIBE_MARK,
            "manage_url": MANAGE_MARK,
        }
        text = render_to_string(f"pages/mail/{template}.txt", context)
        html = render_to_string(f"pages/mail/{template}.html", context)
        subject = str(subject) % context.get("subject_values", {})
    return subject, text, html


def _message(
    subscription: Subscription, rendered: tuple, message_id: str | None = None
) -> EmailMultiAlternatives:
    subject, text, html = rendered
    unsubscribe = subscriptions.unsubscribe_url(subscription)
    manage = subscriptions.manage_url(subscription.email, subscription.lang)

    def fill(body: str) -> str:
        return body.replace(UNSUBSCRIBE_MARK, unsubscribe).replace(MANAGE_MARK, manage)

    message = EmailMultiAlternatives(
        subject=subject,
        body=fill(text),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[subscription.email],
        headers={
            # RFC 2369 and RFC 8058: one POST to this URL unsubscribes, no page in between.
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": ONE_CLICK,
            "Message-ID": message_id or make_msgid(domain=_domain()),
            "Content-Language": subscriptions.PAGE_LANG[subscription.lang],
            "Auto-Submitted": "auto-generated",
        },
    )
    message.attach_alternative(fill(html), "text/html")
    return message


def send_confirmation(subscription_id: int, *, now: datetime | None = None) -> bool:
    """Mail the confirmation link, the one mail an address gets before it confirmed, unless
    ``subscriptions.to_confirm`` says not to; True when it was sent. A failing server is
    logged: the person may ask again."""
    from django.utils.translation import gettext_lazy as _

    now = now or timezone.now()
    subscription = subscriptions.to_confirm(subscription_id, now)
    if subscription is None:
        return False
    rendered = _render(
        subscription,
        _("Confirm your weekly tender digest"),
        "confirm",
        {
            "confirm_url": subscriptions.confirm_url(subscription),
            "days": settings.SUBSCRIPTION_CONFIRM_DAYS,
        },
    )
    message = _message(subscription, rendered)
    try:
        message.send()
    except Exception:
        log.exception("Confirmation of subscription #%s not sent", subscription.pk)
        return False
    subscriptions.confirmation_sent(subscription, now)
    return True


def digest_message(
    subscription: Subscription, issue: Issue, page: dict, rendered: dict | None = None
) -> EmailMultiAlternatives:
    """The digest of ``issue`` for one reader; ``rendered`` keeps the bodies of each search
    and language across a run."""
    from django.utils.translation import gettext_lazy as _

    rendered = {} if rendered is None else rendered
    key = (subscription.search_key, subscription.lang)
    if key not in rendered:
        meta = page["meta"]
        with translation.override(subscriptions.PAGE_LANG[subscription.lang]):
            rows = [
                {
                    **row,
                    "url": subscriptions.public_base()
                    + reverse("pages:tender", kwargs={"at_id": row["asaptic_id"]}),
                }
                for row in page["data"]
            ]
        rendered[key] = _render(
            subscription,
            _("%(total)s new tenders for your search in issue %(issue)s"),
            "digest",
            {
                "rows": rows,
                "total": meta["total"],
                "more": meta["total"] - len(rows),
                "issue_id": issue.issue_id,
                "search_url": subscriptions.search_url(subscription),
                "subject_values": {"total": meta["total"], "issue": issue.issue_id},
            },
        )
    return _message(
        subscription,
        rendered[key],
        message_id=f"<digest.{subscription.pk}.{issue.pk}@{_domain()}>",
    )


# --- the run ---------------------------------------------------------------------------------


def digest_rows(subscription: Subscription, issue: Issue, answers: dict) -> dict | None:
    """The new matching rows (first ``DIGEST_MAX_ROWS``) of one search and language, computed
    once per run; None when the saved search is no longer valid in this issue."""
    key = (subscription.search_key, subscription.lang)
    if key not in answers:
        params = {
            **subscription.query,
            "new": "true",
            "lang": subscription.lang,
            "limit": str(settings.DIGEST_MAX_ROWS),
        }
        try:
            answers[key] = selectors.list_tenders(params, issue=issue)
        except ApiError as error:
            log.warning("Saved search %r not run on %s: %s", key, issue.issue_id, error)
            answers[key] = None
    return answers[key]


def send_digests(
    issue: Issue,
    *,
    progress: Progress | None = None,
    now: datetime | None = None,
    connection=None,
) -> DigestRun:
    """Send ``issue``'s digest to every confirmed subscription not yet claimed for it."""
    started = timezone.now()
    subscriptions.expire_unconfirmed(now=now)
    run = DigestRun()
    answers: dict = {}
    rendered: dict = {}
    pending = Subscription.objects.filter(confirmed_at__isnull=False).exclude(
        pk__in=DigestDelivery.objects.filter(issue=issue).values("subscription_id")
    )
    total = pending.count()
    run.skipped = DigestDelivery.objects.filter(issue=issue).count()
    connection = connection or get_connection()
    failures = 0
    done = 0
    last = 0
    try:
        connection.open()
    except Exception as error:
        raise DigestStopped(
            f"The mail server could not be reached ({type(error).__name__}: {error}); nothing "
            "was sent. Retry the job once it answers.",
            run,
        ) from error
    try:
        while True:
            batch = list(pending.filter(pk__gt=last).order_by("pk")[:BATCH])
            if not batch:
                break
            last = batch[-1].pk
            for subscription in batch:
                done += 1
                page = digest_rows(subscription, issue, answers)
                matched = page["meta"]["total"] if page else 0
                state = DigestDelivery.State.CLAIMED if matched else DigestDelivery.State.EMPTY
                try:
                    delivery = DigestDelivery.objects.create(
                        subscription=subscription, issue=issue, state=state, rows=matched
                    )
                except IntegrityError:  # another run claimed it meanwhile
                    run.skipped += 1
                    continue
                if not matched:
                    run.empty += 1
                    continue
                try:
                    connection.send_messages([digest_message(subscription, issue, page, rendered)])
                except Exception as error:
                    # Not handed over: the claim goes, so a retry sends it.
                    delivery.delete()
                    failures += 1
                    run.errors.append(f"{type(error).__name__}: {error}"[:300])
                    log.warning("Digest #%s not sent: %s", subscription.pk, error)
                    if failures >= MAX_FAILURES:
                        run.seconds = (timezone.now() - started).total_seconds()
                        raise DigestStopped(
                            f"The mail server failed {failures} times in a row "
                            f"({run.errors[-1]}); {run.sent:,} digests were sent. Retry the "
                            "job to send the rest.",
                            run,
                        ) from error
                    _reopen(connection)
                    continue
                failures = 0
                DigestDelivery.objects.filter(pk=delivery.pk).update(
                    state=DigestDelivery.State.SENT, sent_at=timezone.now()
                )
                run.sent += 1
                if progress is not None and done % 100 == 0:
                    progress("send digests", done, total)
    finally:
        with contextlib.suppress(Exception):
            connection.close()
    run.searches = len(answers)
    run.seconds = (timezone.now() - started).total_seconds()
    return run


def _reopen(connection) -> None:
    with contextlib.suppress(Exception):
        connection.close()
    try:
        connection.open()
    except Exception:
        log.warning("The mail server could not be reached again", exc_info=True)

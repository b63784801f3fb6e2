"""Staff curation: the services the admin (and anything else) calls to check, draft, approve and
withhold source records, and to preview, publish and withdraw from the admin with a log entry.

Every service takes keyword-only arguments and the acting user, works on many records in one
call (one query per step, never a save per row), is atomic where it writes, and leaves a
``LogEntry`` per touched object saying who did what. A refused request raises
``CurationError`` with a message for staff and changes nothing.

Policy on approval: a record with any sanitization finding, a missing summary or an amount in a
currency without a USD rate is *refused*, not approved with a warning. "Approved" then means
"will be published as it is"; the publication gate would withhold such a record anyway, and a
refusal tells staff now rather than at publication time.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import Model
from django.utils import timezone

from . import buckets
from .chinese import to_traditional
from .drafting import NEED_MAX_LENGTH, draft_summaries
from .ids import is_listing_id
from .models import CurrencyRate, Issue, SourceTender
from .publication import (
    Progress,
    PublicationError,
    PublicationSummary,
    publish_issue,
    record_passes,
    withdraw_row,
)
from .sanitize import Finding, Gate, RecordSecrets, clean_text
from .sanitize.loading import current_gate, gate_and_data

# The acting staff member; None for a caller with no user (a script), which logs nothing.
Actor = AbstractBaseUser | None

SUMMARY_FIELDS = {"en": "summary_en", "zh": "summary_zh", "zht": "summary_zht"}
REASON_MAX_LENGTH = 500


class CurationError(ValueError):
    """A curation request was refused; nothing was changed."""


@dataclass
class BulkResult:
    """What a bulk service did: the records it changed, and why it left others alone."""

    done: list[SourceTender] = field(default_factory=list)
    refused: dict[str, list[str]] = field(default_factory=dict)
    notes: dict[str, list[str]] = field(default_factory=dict)


# --- checks: one validator, used by the services, the admin form and publication ---------


def summaries_of(tender: SourceTender) -> dict[str, str]:
    return {lang: getattr(tender, name) for lang, name in SUMMARY_FIELDS.items()}


def tender_findings(
    tender: SourceTender, summaries: dict[str, str] | None = None, *, gate: Gate | None = None
) -> list[Finding]:
    """The gate's findings on a record's summaries (or on ``summaries`` about to replace them),
    with the directory and allow-lists publication uses (``gate``: when the caller has it)."""
    return (gate or current_gate()).scan_record(tender, summaries)


def approval_problems(
    tender: SourceTender,
    *,
    findings: Sequence[Finding] | None = None,
    rates: dict | None = None,
    gate: Gate | None = None,
) -> list[str]:
    """Why ``tender`` cannot be approved as it is; empty when it can."""
    problems = []
    missing = [lang for lang, text in summaries_of(tender).items() if not (text or "").strip()]
    if missing:
        problems.append("missing summary: " + ", ".join(f"summary_{lang}" for lang in missing))
    if findings is None:
        findings = tender_findings(tender, gate=gate)
    if findings:
        problems += [f"{f.label} in {f.field}: {f.excerpt}" for f in findings]
    if tender.amount is not None:
        try:
            buckets.value_band(
                tender.amount, tender.currency, rates if rates is not None else _rates()
            )
        except buckets.MissingRate as exc:
            problems.append(str(exc))
    return problems


def _rates() -> dict:
    return {r.currency: r.usd_per_unit for r in CurrencyRate.objects.all()}


def _locked(ids: Iterable[int]) -> list[SourceTender]:
    ids = list(ids)
    if not ids:
        raise CurationError("Select at least one record.")
    return list(
        SourceTender.objects.select_for_update(of=("self",))
        .select_related("category")
        .filter(pk__in=ids)
        .order_by("pk")
    )


def _log(user: Actor, entries: Iterable[tuple[Model, int, str]]) -> None:
    """One LogEntry per (object, action flag, message), written in one query."""
    if user is None or not getattr(user, "pk", None):
        return
    rows = []
    for obj, flag, message in entries:
        content_type = ContentType.objects.get_for_model(obj, for_concrete_model=False)
        rows.append(
            LogEntry(
                user_id=user.pk,
                content_type_id=content_type.pk,
                object_id=str(obj.pk),
                object_repr=str(obj)[:200],
                action_flag=flag,
                change_message=message,
            )
        )
    LogEntry.objects.bulk_create(rows)


# --- record services ----------------------------------------------------------------------


@transaction.atomic
def tender_check(*, ids: Iterable[int], user: Actor) -> dict[str, list[Finding]]:
    """Run the gate on each record now; the findings by listing id (logged for each record).
    An approved record it finds nothing in keeps its pass of the gate, as at approval, so
    publication need not ask the gate about it again (the records are locked meanwhile)."""
    ids = list(ids)
    tenders = _locked(ids) if ids else []
    gate, data = gate_and_data()
    results = {t.listing_id: tender_findings(t, gate=gate) for t in tenders}
    approved = SourceTender.Status.APPROVED
    record_passes(
        [t.pk for t in tenders if t.status == approved and not results[t.listing_id]], data
    )

    def message(findings: list[Finding]) -> str:
        if not findings:
            return "Checked: no findings."
        return f"Checked: {len(findings)} finding(s): " + "; ".join(f.describe() for f in findings)

    _log(user, [(t, CHANGE, message(results[t.listing_id])[:2000]) for t in tenders])
    return results


@transaction.atomic
def tenders_approve(*, ids: Iterable[int], user: Actor) -> BulkResult:
    """Approve the records that pass every check; refuse the others, with reasons."""
    result = BulkResult()
    rates = _rates()
    # The gate as publication will see it: a name added to the directory a moment ago counts.
    # Built with the data it is recorded with: each approved record keeps its pass, so that
    # publication need not run the gate on it again while nothing it depends on changes.
    gate, data = gate_and_data()
    for tender in _locked(ids):
        problems = approval_problems(tender, rates=rates, gate=gate)
        if problems:
            result.refused[tender.listing_id] = problems
        else:
            result.done.append(tender)
    if result.done:
        SourceTender.objects.filter(pk__in=[t.pk for t in result.done]).update(
            status=SourceTender.Status.APPROVED, withheld_reason="", updated_at=timezone.now()
        )
        record_passes([t.pk for t in result.done], data)
        _log(user, [(t, CHANGE, "Approved: the gate found nothing.") for t in result.done])
    return result


@transaction.atomic
def tenders_withhold(*, ids: Iterable[int], reason: str, user: Actor) -> BulkResult:
    """Withhold the records from publication with a reason staff can read later."""
    reason = clean_text(reason or "")
    if not reason:
        raise CurationError("Give a reason for withholding (staff read it in the history).")
    if len(reason) > REASON_MAX_LENGTH:
        raise CurationError(f"Keep the reason under {REASON_MAX_LENGTH} characters.")
    result = BulkResult(done=_locked(ids))
    SourceTender.objects.filter(pk__in=[t.pk for t in result.done]).update(
        status=SourceTender.Status.WITHHELD, withheld_reason=reason, updated_at=timezone.now()
    )
    _log(user, [(t, CHANGE, f"Withheld: {reason}") for t in result.done])
    return result


def clean_need(text: str, *, field_name: str) -> str:
    text = clean_text(text or "")
    if len(text) > NEED_MAX_LENGTH:
        raise CurationError(
            f"Keep the {field_name} under {NEED_MAX_LENGTH} characters: a short, generic "
            "description of what is bought."
        )
    return text


@transaction.atomic
def tenders_draft_summaries(
    *, ids: Iterable[int], user: Actor, need_en: str = "", need_zh: str = ""
) -> BulkResult:
    """Draft the three summaries of each record from its category, market and value band and
    the curator's short description of the need (the category's name when left empty).

    The need is checked by the gate against each record first: a need that names the buyer,
    a reference, a date or an amount is refused for that record. Approved records go back to
    draft, so a person reads the new text before it is published.
    """
    need_en = clean_need(need_en, field_name="English need")
    need_zh = clean_need(need_zh, field_name="Chinese need")
    gate = current_gate(fresh=True)
    needs = {"en": need_en, "zh": need_zh, "zht": to_traditional(need_zh)}
    generic = gate.scan(needs, RecordSecrets())
    if generic:
        raise CurationError(
            "The need must be generic; the gate found: "
            + "; ".join(f"{f.label}: {f.excerpt}" for f in generic)
        )
    result = BulkResult()
    rates = _rates()
    now = timezone.now()
    for tender in _locked(ids):
        secrets = RecordSecrets.of(tender)
        leaks = gate.scan(needs, secrets, record=tender.pk)
        if leaks:
            result.refused[tender.listing_id] = [
                f"the need contains {f.label}: {f.excerpt}" for f in leaks
            ]
            continue
        try:
            band = buckets.value_band(tender.amount, tender.currency, rates)
        except buckets.MissingRate as exc:
            band = None
            result.notes[tender.listing_id] = [f"drafted without a size: {exc}"]
        draft = draft_summaries(
            category_slug=tender.category.slug,
            category_en=tender.category.name_en,
            category_zh=tender.category.name_zh,
            market=tender.market,
            value_band=band,
            need_en=need_en,
            need_zh=need_zh,
        )
        tender.summary_en, tender.summary_zh, tender.summary_zht = draft.en, draft.zh, draft.zht
        if tender.status == SourceTender.Status.APPROVED:
            tender.status = SourceTender.Status.DRAFT
        tender.updated_at = now
        # Templates hold no secret, but the gate has the last word on every text we store.
        if findings := tender_findings(tender, gate=gate):
            result.refused[tender.listing_id] = [f"draft: {f.describe()}" for f in findings]
            continue
        result.done.append(tender)
    SourceTender.objects.bulk_update(
        result.done, ["summary_en", "summary_zh", "summary_zht", "status", "updated_at"]
    )
    _log(user, [(t, CHANGE, "Drafted the three summaries.") for t in result.done])
    return result


# --- publication from the admin -----------------------------------------------------------


def issue_preview(*, user: Actor, now: datetime | None = None) -> PublicationSummary:
    """What publishing now would do, writing nothing but a log line on the current issue."""
    summary = publish_issue(now=now, dry_run=True)
    current = Issue.objects.filter(is_current=True).first()
    if current is not None:
        _log(
            user,
            [
                (
                    current,
                    CHANGE,
                    f"Previewed the next publication ({summary.issue_id}): "
                    f"{summary.published} rows, {summary.withheld} withheld.",
                )
            ],
        )
    return summary


def issue_publish(
    *, user: Actor, now: datetime | None = None, progress: Progress | None = None
) -> PublicationSummary:
    """Publish this week's issue (the service the command calls) and log who did it."""
    summary = publish_issue(now=now, user=user, progress=progress)
    _log(
        user,
        [
            (
                summary.issue,
                ADDITION,
                f"Published {summary.issue_id}: {summary.published} rows "
                f"({summary.new} new, {summary.continuing} continuing, {summary.dropped} "
                f"dropped), {summary.withheld} withheld; etag {summary.snapshot_etag}.",
            )
        ],
    )
    return summary


def issue_withdraw_row(
    *, listing_id: str, reason: str, user: Actor, now: datetime | None = None
) -> Issue:
    """Take one row out of the current snapshot at once, and log it on the issue and record."""
    listing_id = (listing_id or "").strip().upper()
    if not is_listing_id(listing_id):
        raise CurationError(
            f"{listing_id or 'An empty value'} is not a listing id (AT- and 10 characters)."
        )
    reason = clean_text(reason or "")
    if len(reason) > REASON_MAX_LENGTH:
        raise CurationError(f"Keep the reason under {REASON_MAX_LENGTH} characters.")
    try:
        issue = withdraw_row(listing_id=listing_id, reason=reason, user=user, now=now)
    except PublicationError as exc:
        raise CurationError(str(exc)) from exc
    tender = SourceTender.objects.get(listing_id=listing_id)
    _log(
        user,
        [
            (issue, ADDITION, f"Withdrew {listing_id}: {reason}; etag {issue.snapshot_etag}."),
            (tender, CHANGE, f"Withdrawn from {issue.issue_id}: {reason}"),
        ],
    )
    return issue

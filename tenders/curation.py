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
from .drafting import draft
from .ids import is_listing_id
from .importers.classify import classify as classify_category
from .importers.service import stored_notice
from .models import Category, CurrencyRate, ImportedNotice, Issue, SourceTender
from .publication import (
    Progress,
    PublicationError,
    PublicationSummary,
    publish_issue,
    record_passes,
    withdraw_row,
)
from .sanitize import Finding, Gate, clean_text
from .sanitize.loading import current_gate, gate_and_data
from .vocabulary.classify import MAX_CONCEPTS
from .vocabulary.cpv import concept

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
                tender.amount, tender.currency, rates if rates is not None else currency_rates()
            )
        except buckets.MissingRate as exc:
            problems.append(str(exc))
    return problems


def currency_rates() -> dict:
    """The USD rate of each currency, as approval and publication read them."""
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
    rates = currency_rates()
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


def withhold_reason(reason: str) -> str:
    """The reason to withhold, cleaned; ``CurationError`` when there is none or it is long."""
    reason = clean_text(reason or "")
    if not reason:
        raise CurationError("Give a reason for withholding (staff read it in the history).")
    if len(reason) > REASON_MAX_LENGTH:
        raise CurationError(f"Keep the reason under {REASON_MAX_LENGTH} characters.")
    return reason


@transaction.atomic
def tenders_withhold(*, ids: Iterable[int], reason: str, user: Actor) -> BulkResult:
    """Withhold the records from publication with a reason staff can read later."""
    reason = withhold_reason(reason)
    result = BulkResult(done=_locked(ids))
    SourceTender.objects.filter(pk__in=[t.pk for t in result.done]).update(
        status=SourceTender.Status.WITHHELD, withheld_reason=reason, updated_at=timezone.now()
    )
    _log(user, [(t, CHANGE, f"Withheld: {reason}") for t in result.done])
    return result


def _notices(tenders: list[SourceTender]) -> dict[int, object]:
    """The stored notice of each imported record, built again (for its facts)."""
    found = ImportedNotice.objects.filter(tender__in=tenders).select_related("tender")
    return {n.tender_id: stored_notice(n) for n in found}


def _drafted(tender: SourceTender, notice, gate, now) -> list[str]:
    """Put the record's new draft in place; the gate's findings in it (none expected: the
    draft holds only vocabulary), as refusals."""
    summaries = draft(tender, notice)
    tender.summary_en = summaries["en"]
    tender.summary_zh = summaries["zh"]
    tender.summary_zht = summaries["zht"]
    if tender.status == SourceTender.Status.APPROVED:
        tender.status = SourceTender.Status.DRAFT
    tender.updated_at = now
    return [f"draft: {f.describe()}" for f in tender_findings(tender, gate=gate)]


DRAFT_FIELDS = [
    "concepts", "category", "summary_en", "summary_zh", "summary_zht", "status", "updated_at",
]  # fmt: skip


@transaction.atomic
def tenders_draft_summaries(*, ids: Iterable[int], user: Actor) -> BulkResult:
    """Draft the three summaries of each record from its own concepts and facts
    (``drafting.draft``): the vocabulary's words only, so nothing of the notice's text. Approved
    records go back to draft, so a person reads the new text before it is published."""
    gate = current_gate(fresh=True)
    result = BulkResult()
    now = timezone.now()
    tenders = _locked(ids)
    notices = _notices(tenders)
    for tender in tenders:
        if refused := _drafted(tender, notices.get(tender.pk), gate, now):
            result.refused[tender.listing_id] = refused
            continue
        if not tender.concepts:
            result.notes[tender.listing_id] = [
                "no concept: the summary names the category's broad concept; pick one"
            ]
        result.done.append(tender)
    SourceTender.objects.bulk_update(result.done, DRAFT_FIELDS)
    _log(user, [(t, CHANGE, "Drafted the three summaries.") for t in result.done])
    return result


def concept_problem(codes: Iterable[str]) -> str:
    """Why these codes cannot be a record's concepts (empty when they can)."""
    codes = list(codes)
    if len(codes) > MAX_CONCEPTS:
        return f"Pick at most {MAX_CONCEPTS} concepts: the main one first."
    unknown = [c for c in codes if concept(c) is None]
    if unknown:
        return f"Not CPV 2008 codes of the vocabulary: {', '.join(unknown)}."
    if len(set(codes)) != len(codes):
        return "Each concept once."
    return ""


@transaction.atomic
def tender_set_concepts(
    *, tender_id: int, codes: Iterable[str], user: Actor, keep_category: bool = False
) -> SourceTender:
    """Give a record its concepts (main first) and draft its summaries from them. The broad
    category follows the main concept, unless ``keep_category`` (a curator chose it)."""
    codes = list(codes)
    if problem := concept_problem(codes):
        raise CurationError(problem)
    tender = _locked([tender_id])[0]
    tender.concepts = codes
    if codes and not keep_category:
        slug, _ = classify_category([("CPV", codes[0], "")])
        tender.category = Category.objects.filter(slug=slug).first() or tender.category
    notice = _notices([tender]).get(tender.pk)
    refused = _drafted(tender, notice, current_gate(fresh=True), timezone.now())
    if refused:
        raise CurationError("; ".join(refused))
    SourceTender.objects.bulk_update([tender], DRAFT_FIELDS)
    labels = ", ".join(f"{c} {concept(c).en}" for c in codes) or "none"
    _log(user, [(tender, CHANGE, f"Concepts: {labels}; summaries drafted from them.")])
    return tender


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

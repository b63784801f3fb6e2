"""One imported record: its category and concepts, its three summaries drafted from the
vocabulary, and how a notice creates it or updates it under an import run
(``service.import_notices`` writes them in batches; ``redraft`` drafts them again).
"""

import hashlib
import json
from dataclasses import dataclass

from django.utils import timezone

from ..drafting import draft as draft_summaries
from ..models import Category, ImportedNotice, ImportRun, ImportSource, SourceTender
from ..sanitize import RecordSecrets, scan
from ..vocabulary.classify import classify as classify_concepts
from ..vocabulary.summaries import CATEGORY_CONCEPTS
from .classify import classify
from .notice import Notice, json_default


@dataclass
class ImportContext:
    """What a run writes its records under."""

    run: ImportRun
    fmt: str
    scheme: str
    market: str
    dry_run: bool
    source: ImportSource | None
    categories: dict[str, Category]


def canonical_json(items: dict) -> str:
    return json.dumps(items, sort_keys=True, ensure_ascii=False, default=json_default)


RECORD_FIELDS = [
    "market", "category", "buyer_name", "reference", "source_url", "deadline", "amount",
    "currency", "title", "description", "concepts", "summary_en", "summary_zh", "summary_zht",
    "status",
    "updated_at",
]  # fmt: skip
NOTICE_FIELDS = [
    "raw", "raw_hash", "state_at_source", "closed_reason", "notes", "draft_hash", "last_run",
    "source", "updated_at",
]  # fmt: skip


def categorize(
    categories: dict[str, Category], notice: Notice
) -> tuple[Category, tuple[str, ...], list[str]]:
    """The record's broad category, its concepts (CPV codes, main first) and notes for the
    curator: a concept found by the title alone is a guess, none found is listed."""
    notes = []
    found = classify_concepts(notice.classifications, f"{notice.title} {notice.need_zh}")
    if found.how == "title":
        notes.append(f"concept guessed from the title ({found.main}): check it")
    elif not found.codes:
        notes.append(
            "no specific concept found: the summary names the category's broad concept; "
            "pick a concept"
        )
    category = categories.get(notice.category)
    if category is None:
        if notice.category:
            notes.append(f"category {notice.category!r} is not one of ours: classified instead")
        codes = [("CPV", found.main, "")] if found.codes else notice.classifications
        words = f"{notice.title} {notice.need_zh}"
        slug, how = classify(codes, words=words, nature=notice.nature)
        if how in ("default", "keywords") or how.startswith("nature"):
            notes.append(f"category guessed ({how}): check it")
        category = categories.get(slug) or next(iter(categories.values()))
    broad = CATEGORY_CONCEPTS.get(category.slug)
    return category, found.codes or ((broad,) if broad else ()), notes


def _fill(tender: SourceTender, notice: Notice, category: Category) -> None:
    tender.market = notice.market
    tender.category = category
    tender.buyer_name = notice.buyer_name[:300]
    tender.reference = notice.reference[:120]
    tender.source_url = notice.source_url[:500]
    tender.deadline = notice.deadline
    tender.amount = notice.amount
    tender.currency = notice.currency if notice.amount is not None else ""
    tender.title = notice.title[:500]
    tender.description = notice.description


def draft_record(tender: SourceTender, notice: Notice) -> tuple[dict, list[str]]:
    """The three summaries, built from the vocabulary only (``vocabulary.summaries``): the
    record's concepts and the notice's enumerated facts, never its text. The gate still scans
    the draft as a second line; its findings become notes for the curator."""
    draft = draft_summaries(tender, notice)
    notes = []
    findings = scan(draft, RecordSecrets.of(tender))
    if findings:
        notes.append("the draft has findings: " + "; ".join(f.describe() for f in findings))
    return draft, notes


def draft_hash(summaries: dict) -> str:
    return hashlib.sha256(canonical_json(summaries).encode()).hexdigest()


def record_summaries(tender: SourceTender) -> dict:
    return {"en": tender.summary_en, "zh": tender.summary_zh, "zht": tender.summary_zht}


def _set_summaries(tender: SourceTender, summaries: dict) -> None:
    tender.summary_en, tender.summary_zh, tender.summary_zht = (
        summaries["en"],
        summaries["zh"],
        summaries["zht"],
    )


def new_record(context: ImportContext, notice: Notice) -> tuple[SourceTender, ImportedNotice]:
    category, concepts, notes = categorize(context.categories, notice)
    tender = SourceTender()
    _fill(tender, notice, category)
    tender.concepts = list(concepts)
    draft, draft_notes = draft_record(tender, notice)
    _set_summaries(tender, draft)
    closed = bool(notice.closed_reason)
    tender.status = SourceTender.Status.CLOSED if closed else SourceTender.Status.DRAFT
    imported = ImportedNotice(
        scheme=context.scheme,
        notice_id=notice.notice_id,
        source=context.source,
        state_at_source=notice.state,
        closed_reason=notice.closed_reason,
        notes=[*notice.notes, *notes, *draft_notes],
        draft_hash=draft_hash(draft),
        first_run=context.run if context.run.pk else None,
        last_run=context.run if context.run.pk else None,
    )
    return tender, imported


def update_record(context: ImportContext, imported: ImportedNotice, notice: Notice) -> str:
    """Update the record from the notice; returns its status before."""
    tender = imported.tender
    was = tender.status
    category, concepts, notes = categorize(context.categories, notice)
    if was != SourceTender.Status.DRAFT and (
        tender.category_id != category.pk or tender.concepts != list(concepts)
    ):
        # A curator may have corrected the category or the concepts; an update keeps them.
        category = tender.category
        concepts = tuple(tender.concepts)
        notes = []
    _fill(tender, notice, category)
    tender.concepts = list(concepts)
    draft, draft_notes = draft_record(tender, notice)
    edited = imported.draft_hash and draft_hash(record_summaries(tender)) != imported.draft_hash
    if edited:
        draft_notes.append("summaries were edited by staff: kept; check them against the update")
    elif record_summaries(tender) != draft:
        _set_summaries(tender, draft)
        if was == SourceTender.Status.APPROVED:
            tender.status = SourceTender.Status.DRAFT
    if notice.closed_reason:
        tender.status = SourceTender.Status.CLOSED
    elif was == SourceTender.Status.CLOSED:
        tender.status = SourceTender.Status.DRAFT
    tender.updated_at = imported.updated_at = timezone.now()
    imported.state_at_source = notice.state
    imported.closed_reason = notice.closed_reason
    imported.notes = [*notice.notes, *notes, *draft_notes]
    if not edited:
        imported.draft_hash = draft_hash(draft)
    imported.last_run = context.run if context.run.pk else imported.last_run
    imported.source = context.source or imported.source
    return was

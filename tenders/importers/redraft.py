"""Re-drafting imported records after a change of the vocabulary or of the drafting rules.

``redraft_imported`` classifies every imported record again and builds its summaries from the
vocabulary, as an import would (``records.categorize`` and ``records.draft_record``, from the
stored notice). Records whose summaries no person edited (their text is still the last draft's) get
the new concepts and summaries; an approved one stays approved when the gate, coverage check
included, finds nothing in the new text (it holds only vocabulary), and goes back to draft
otherwise. Records a person edited keep their text and are listed, with the new draft beside
them, for review. Batches of ``BATCH`` records commit on their own, so an interrupted run is
safe to run again.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import transaction

from ..models import Category, ImportedNotice, SourceTender
from ..sanitize.loading import current_gate
from .records import categorize, draft_hash, draft_record, record_summaries
from .service import stored_notice

BATCH = 500
APPROVED = SourceTender.Status.APPROVED
DRAFT = SourceTender.Status.DRAFT


@dataclass
class RedraftResult:
    redrafted: int = 0
    unchanged: int = 0
    back_to_draft: int = 0
    not_rebuilt: int = 0
    # (listing id, current English summary, new English summary) of records a person edited.
    edited: list[tuple[str, str, str]] = field(default_factory=list)


def redraft_imported(
    *, dry_run: bool = False, progress: Callable[[int, int], None] | None = None
) -> RedraftResult:
    result = RedraftResult()
    ids = list(ImportedNotice.objects.order_by("tender_id").values_list("tender_id", flat=True))
    categories = {c.slug: c for c in Category.objects.order_by("position", "pk")}
    gate = current_gate(fresh=True)
    for start in range(0, len(ids), BATCH):
        with transaction.atomic():
            batch = (
                ImportedNotice.objects.select_for_update(of=("self", "tender"))
                .select_related("tender", "tender__category")
                .filter(tender_id__in=ids[start : start + BATCH])
                .order_by("tender_id")
            )
            records, notices = [], []
            for imported in batch:
                if _redraft_one(imported, categories, gate, result):
                    records.append(imported.tender)
                    notices.append(imported)
            if records and not dry_run:
                SourceTender.objects.bulk_update(
                    records,
                    ["concepts", "category", "summary_en", "summary_zh", "summary_zht", "status"],
                )
                ImportedNotice.objects.bulk_update(notices, ["draft_hash", "notes"])
        if progress:
            progress(min(start + BATCH, len(ids)), len(ids))
    return result


def _redraft_one(imported: ImportedNotice, categories, gate, result: RedraftResult) -> bool:
    tender = imported.tender
    notice = stored_notice(imported)
    if notice is None:
        result.not_rebuilt += 1
        return False
    edited = (
        bool(imported.draft_hash) and draft_hash(record_summaries(tender)) != imported.draft_hash
    )
    category, concepts, notes = categorize(categories, notice)
    if edited or tender.status not in (DRAFT, SourceTender.Status.CLOSED):
        # A person may have chosen the category and concepts: keep them.
        category, concepts = tender.category, tuple(tender.concepts) or concepts
    tender.category = category
    tender.concepts = list(concepts)
    draft, draft_notes = draft_record(tender, notice)
    if edited:
        result.edited.append((tender.listing_id, tender.summary_en, draft["en"]))
        return False
    if record_summaries(tender) == draft:
        result.unchanged += 1
        return False
    tender.summary_en, tender.summary_zh, tender.summary_zht = (
        draft["en"],
        draft["zh"],
        draft["zht"],
    )
    if tender.status == APPROVED and gate.scan_record(tender):
        tender.status = DRAFT
        result.back_to_draft += 1
    imported.draft_hash = draft_hash(draft)
    imported.notes = [*notice.notes, *notes, *draft_notes]
    result.redrafted += 1
    return True

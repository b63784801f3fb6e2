"""Emergency withdrawal of one published row: a new snapshot of the same issue without it."""

from collections import Counter
from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.utils import timezone

from ..models import Issue, IssueCount, SnapshotRow, SourceTender, WithheldRecord
from ..models.feed import CELL_FIELDS
from .publish import build_and_switch
from .snapshots import PublicationError, discard_stale_builds, publication_lock
from .storage import snapshot_store


def withdraw_row(
    *,
    listing_id: str,
    reason: str,
    user=None,
    now: datetime | None = None,
    force_orm: bool = False,
) -> Issue:
    """Take one row out of the current snapshot at once (a row found to leak after publication).

    Makes a new snapshot of the same issue without the row: new ``generated``, new etag, so
    every cursor of the old snapshot answers ``snapshot_changed``. The source record is set to
    withheld with the reason, so the next publication keeps it out too.
    """
    reason = reason.strip()
    if not reason:
        raise PublicationError("Give a reason for the withdrawal (staff see it in the history).")
    generated = (now or timezone.now()).astimezone(UTC).replace(microsecond=0)
    with publication_lock():
        discard_stale_builds()
        current = Issue.objects.filter(is_current=True).first()
        if current is None:
            raise PublicationError("Nothing is published yet; there is nothing to withdraw.")
        row = SnapshotRow.objects.filter(issue=current, asaptic_id=listing_id).first()
        if row is None:
            raise PublicationError(
                f"{listing_id} is not in the current snapshot ({current.issue_id})."
            )
        tender = SourceTender.objects.get(listing_id=listing_id)
        issue = Issue.objects.create(
            issue_id=current.issue_id,
            generated=max(generated, current.generated + timedelta(seconds=1)),
            previous=current.previous,
            reason=Issue.Reason.WITHDRAW,
            note=f"Withdrew {listing_id}: {reason}",
            published_by=user,
            rows_total=current.rows_total - 1,
            withheld=current.withheld + 1,
            new_count=current.new_count - row.new_this_issue,
            continuing_count=current.continuing_count - (not row.new_this_issue),
            dropped_count=current.dropped_count,
            # Its rows are the current issue's, planned against the same gate.
            plan_gate=current.plan_gate,
        )
        build = snapshot_store(bulk=not force_orm).build(issue)

        def load() -> Counter:
            with transaction.atomic():
                build.start()
                build.copy_rows(current, except_listing=listing_id)
                build.finish_load()
                cells = Counter(
                    {
                        tuple(getattr(c, f) for f in CELL_FIELDS): c.rows
                        for c in current.counts.all()
                    }
                )
                cells[tuple(getattr(row, f) for f in CELL_FIELDS)] -= 1
                cells = +cells  # drop empty cells
                IssueCount.objects.bulk_create(
                    IssueCount(issue=issue, rows=n, **dict(zip(CELL_FIELDS, cell, strict=True)))
                    for cell, n in cells.items()
                )
                WithheldRecord.objects.bulk_create(
                    WithheldRecord(issue=issue, tender_id=w.tender_id, reasons=w.reasons)
                    for w in current.withheld_records.all()
                )
                WithheldRecord.objects.create(
                    issue=issue, tender=tender, reasons=[f"withdrawn by staff: {reason}"]
                )
            return cells

        def withhold() -> None:
            tender.status = SourceTender.Status.WITHHELD
            tender.withheld_reason = f"Withdrawn from {current.issue_id}: {reason}"
            tender.save(update_fields=["status", "withheld_reason", "updated_at"])

        build_and_switch(issue, build, {}, load=load, switching=withhold)
    return issue

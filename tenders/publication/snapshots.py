"""What publication and withdrawal share: the lock, counts and facets, the flat file, the
switch to a new snapshot, and the removal of snapshots nobody reads any more."""

import gzip
import hashlib
import json
import logging
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q

from .. import buckets, calendar
from ..calendar import rfc3339
from ..markets import MARKETS
from ..models import Category, Issue, SnapshotRow
from ..rows import ROW_COLUMNS, row_from_values
from .storage import snapshot_store

log = logging.getLogger(__name__)

# The filter dimensions of a row, in IssueCount field order (and a planned row's ``cell``).
CELL_FIELDS = (
    "market",
    "category_slug",
    "closing_bucket",
    "value_band",
    "lead_ok",
    "new_this_issue",
)
# Replaced snapshots keep their rows this long, so requests already reading them can finish.
REPLACED_GRACE = timedelta(minutes=10)


class PublicationError(Exception):
    """Publication refused or failed; the current snapshot is unchanged."""


@contextmanager
def publication_lock() -> Iterator[None]:
    """One publication or withdrawal at a time."""
    with snapshot_store().lock() as acquired:
        if not acquired:
            raise PublicationError("Another publication or withdrawal is running; try again.")
        yield


def facets_from_cells(cells: Counter) -> dict:
    """Vocabulary and counts of the four facet groups, from the per-combination counts."""
    by = {name: Counter() for name in ("market", "category", "bucket", "band")}
    for (market, slug, bucket, band, _lead, _new), n in cells.items():
        by["market"][market] += n
        by["category"][slug] += n
        by["bucket"][bucket] += n
        by["band"][band or "unspecified"] += n
    return {
        "markets": [
            {
                "code": m.code,
                "name_en": m.name_en,
                "name_zh": m.name_zh,
                "name_zht": m.name_zht,
                "count": by["market"][m.code],
            }
            for m in MARKETS.values()
        ],
        "categories": [
            {
                "slug": c.slug,
                "name_en": c.name_en,
                "name_zh": c.name_zh,
                "name_zht": c.name_zht,
                "count": by["category"][c.slug],
            }
            for c in Category.objects.order_by("position", "slug")
        ],
        "closing_buckets": [
            {"value": b, "count": by["bucket"][b]} for b in buckets.CLOSING_BUCKETS
        ],
        "value_bands": [
            {"value": b, "count": by["band"][b]} for b in (*buckets.VALUE_BANDS, "unspecified")
        ],
    }


def write_flat_file(issue: Issue) -> None:
    """Stream the issue's rows, ordered by sort_key, into a gzipped JSON file in storage.

    The snapshot etag is the SHA-256 of the uncompressed document (truncated to 32 hex digits),
    so the flat file's ETag names exactly its bytes.
    """
    digest = hashlib.sha256()
    head = (
        f'{{"generated": "{rfc3339(issue.generated)}", "issue_id": "{issue.issue_id}", '
        f'"total": {issue.rows_total}, "withheld": {issue.withheld}, "rows": ['
    )
    rows = SnapshotRow.objects.filter(issue=issue).order_by("sort_key").values_list(*ROW_COLUMNS)
    with tempfile.TemporaryFile() as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as gz:

            def emit(text: str) -> None:
                data = text.encode()
                digest.update(data)
                gz.write(data)

            emit(head)
            first = True
            with transaction.atomic():
                for values in rows.iterator(chunk_size=settings.TENDERS_PUBLISH_BATCH):
                    text = json.dumps(row_from_values(values), ensure_ascii=False)
                    emit(text if first else "," + text)
                    first = False
            emit("]}")
        issue.snapshot_etag = digest.hexdigest()[:32]
        raw.seek(0)
        name = default_storage.save(
            f"feeds/rows-{issue.issue_id}-{issue.snapshot_etag}.json.gz", File(raw)
        )
        issue.flat_file = name
        issue.flat_file_bytes = default_storage.size(name)


def switch_to(issue: Issue, when: datetime) -> None:
    """Make ``issue`` current in one short transaction; a same-week live issue is replaced."""
    with transaction.atomic():
        old = list(
            Issue.objects.select_for_update().filter(
                Q(is_current=True) | Q(state=Issue.State.LIVE, issue_id=issue.issue_id)
            )
        )
        for other in old:
            other.is_current = False
            if other.issue_id == issue.issue_id:
                other.state = Issue.State.REPLACED
                other.replaced_at = when
            other.save(update_fields=["is_current", "state", "replaced_at"])
        issue.state = Issue.State.LIVE
        issue.is_current = True
        issue.save()


def discard(issue: Issue) -> None:
    """Remove what a failed build left behind; the issue row stays, marked failed."""
    snapshot_store().drop_rows(issue)
    if issue.flat_file:
        default_storage.delete(issue.flat_file)
    Issue.objects.filter(pk=issue.pk).update(
        state=Issue.State.FAILED, is_current=False, rows_pruned=True
    )


def prune(now: datetime) -> list[str]:
    """Drop the rows of issues nobody reads any more. Issue records (history) are kept."""
    keep_from = calendar.weeks_before(
        calendar.issue_id_for(now), settings.TENDERS_ISSUE_RETENTION_WEEKS
    )
    stale = Issue.objects.filter(rows_pruned=False, is_current=False).filter(
        Q(state__in=[Issue.State.REPLACED], replaced_at__lt=now - REPLACED_GRACE)
        | Q(state=Issue.State.LIVE, issue_id__lt=keep_from)
    )
    store = snapshot_store()
    pruned = []
    for issue in stale:
        store.drop_rows(issue)
        if issue.flat_file:
            default_storage.delete(issue.flat_file)
        Issue.objects.filter(pk=issue.pk).update(rows_pruned=True, flat_file="")
        pruned.append(f"{issue.issue_id}#{issue.pk}")
    return pruned

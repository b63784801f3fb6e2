"""What publication and withdrawal share: the lock, counts and facets, the flat file, the
switch to a new snapshot, and the removal of snapshots nobody reads any more."""

import hashlib
import logging
import queue
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

import orjson
from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q
from zlib_ng import gzip_ng

from tenders.read import current
from tenders.read.rows import row_from_values

from .. import buckets, calendar
from ..calendar import rfc3339
from ..markets import MARKETS
from ..models import Category, Issue
from .storage import snapshot_store

log = logging.getLogger(__name__)

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


def write_flat_file(issue: Issue, batches: Iterable[list[tuple]]) -> None:
    """Write the issue's rows (batches of ``ROW_COLUMNS`` tuples, in sort_key order) as a
    gzipped JSON document to storage; sets the issue's etag and file.

    The snapshot etag is the SHA-256 of the uncompressed document (truncated to 32 hex digits),
    so the flat file's ETag names exactly its bytes. Rows are serialized here (orjson: several
    times faster than the standard encoder, and compact) while a thread hashes and compresses
    the previous chunk (both release the GIL; zlib-ng compresses about twice as fast as zlib, at
    the same level and size).
    """
    digest = hashlib.sha256()
    head = (
        f'{{"generated":"{rfc3339(issue.generated)}","issue_id":"{issue.issue_id}",'
        f'"total":{issue.rows_total},"withheld":{issue.withheld},"rows":['
    )
    with tempfile.TemporaryFile() as raw:
        with gzip_ng.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as gz:

            def emit(data: bytes) -> None:
                digest.update(data)
                gz.write(data)

            with _Pipe(emit) as pipe:
                pipe.put(head.encode())
                separator = b""
                for batch in batches:
                    pipe.put(separator + b",".join(map(orjson.dumps, map(row_from_values, batch))))
                    separator = b","
                pipe.put(b"]}")
        issue.snapshot_etag = digest.hexdigest()[:32]
        raw.seek(0)
        name = default_storage.save(
            f"feeds/rows-{issue.issue_id}-{issue.snapshot_etag}.json.gz", File(raw)
        )
        issue.flat_file = name
        issue.flat_file_bytes = default_storage.size(name)


class _Pipe:
    """Hands chunks to ``consume`` in a thread of its own, a few at a time, in order."""

    def __init__(self, consume: Callable[[bytes], None]):
        self.chunks: queue.Queue = queue.Queue(maxsize=4)
        self.error: BaseException | None = None

        def work() -> None:
            while (chunk := self.chunks.get()) is not None:
                if self.error is None:
                    try:
                        consume(chunk)
                    except BaseException as exc:
                        self.error = exc

        self.thread = threading.Thread(target=work, daemon=True)

    def __enter__(self) -> "_Pipe":
        self.thread.start()
        return self

    def put(self, chunk: bytes) -> None:
        if self.error is not None:
            raise self.error
        self.chunks.put(chunk)

    def __exit__(self, *exc) -> None:
        self.chunks.put(None)
        self.thread.join()
        if self.error is not None and exc[0] is None:
            raise self.error


def switch_to(issue: Issue, when: datetime, *, also: Callable[[], None] | None = None) -> None:
    """Make ``issue`` current in one short transaction (with ``also()``, e.g. attaching its
    tables); a same-week live issue is replaced."""
    with transaction.atomic():
        if also:
            also()
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
        current.changed()  # every process is told at commit
        transaction.on_commit(lambda: current.switched.send(sender=Issue, issue=issue))
    # After the switch (committed), before pruning: work that needs the new issue current.


def discard(issue: Issue) -> None:
    """Remove what a failed build left behind; the issue row stays, marked failed."""
    snapshot_store().drop_rows(issue)
    if issue.flat_file:
        default_storage.delete(issue.flat_file)
    # The etag goes too: it names a file that is gone, and the next build may make the same.
    with transaction.atomic():
        Issue.objects.filter(pk=issue.pk).update(
            state=Issue.State.FAILED,
            is_current=False,
            rows_pruned=True,
            snapshot_etag="",
            flat_file="",
        )
        current.changed()  # a build is never current, but this clears is_current all the same


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


def discard_stale_builds(*, since: datetime | None = None) -> list[str]:
    """Discard the builds a killed publication or withdrawal left behind (those begun
    ``since``, if given). Called with the lock held, so no build is running: every issue
    still building is one nobody will finish."""
    stale = Issue.objects.filter(state=Issue.State.BUILDING)
    if since is not None:
        stale = stale.filter(created_at__gte=since)
    stale = list(stale)
    for issue in stale:
        log.warning("Discarding issue %s (#%s), left building.", issue.issue_id, issue.pk)
        discard(issue)
    return [f"{issue.issue_id}#{issue.pk}" for issue in stale]


def discard_abandoned_builds(*, since: datetime) -> list[str]:
    """Discard at once what a publication whose worker died (begun ``since``) left building,
    unless a publication or withdrawal is running now (it discards them as it starts)."""
    with snapshot_store().lock() as acquired:
        return discard_stale_builds(since=since) if acquired else []

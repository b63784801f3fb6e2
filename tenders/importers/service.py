"""The one import service: a source's pieces in, source records upserted, each run recorded.

Entry points (the command, the admin and background jobs call these, nothing else):

- ``import_notices(fmt, path_or_url, *, market, since, user, progress, dry_run, source)``
- ``import_from_source(source, *, user, progress, dry_run)`` for a configured ``ImportSource``:
  it asks only for what is new since the source's checkpoint (``harvest``), spaced to the
  source's ``request_interval``, with a ``User-Agent`` naming ``TENDERS_IMPORT_CONTACT``; after
  each page or file is committed its checkpoint is saved, so a run that fails part-way resumes
  where it stopped

Both return the ``ImportRun``. ``progress(phase, done, total)`` is called with phase ``read``
(items read so far; total 0 while unknown) and then ``import`` (procedures done of total).

Guarantees:
- a record is keyed by (scheme, the notice's own id) and keeps its listing id forever;
- pieces already stored are not written again: re-importing unchanged data writes nothing but
  the run record; a rerun is idempotent, and an interrupted run is safe to retry (each batch
  of procedures commits on its own);
- a changed notice updates the private record and re-runs drafting and the gate; an approved
  record whose public summaries do not change stays approved; summaries staff edited are kept;
- cancelled, awarded, completed or withdrawn procedures get status ``closed`` (publication
  takes approved and staff-withheld records only, so they leave the next issue) with the reason
  on the imported notice;
- every buyer, department and contact name goes to the directory of public bodies;
- a bad item never stops the rest: it is a failure with its place and a message to act on.
"""

import hashlib
import json
import logging
import zlib
from collections.abc import Callable, Iterable, Iterator
from datetime import date
from decimal import Decimal
from itertools import islice
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from ..directory import BodyEntry, BodyName, remember_bodies
from ..markets import MARKETS
from ..models import (
    Category,
    ImportedNotice,
    ImportFormat,
    ImportRun,
    ImportSource,
    PublicBody,
    SourceTender,
)
from . import canadabuys, checkpoints, csvfile, eforms, gld, harvest, http, ocds, ted
from .checkpoints import Mark
from .http import HttpPolicy
from .notice import Failure, Notice, Piece, ReadError, Skip, iso_day
from .records import (
    NOTICE_FIELDS,
    RECORD_FIELDS,
    ImportContext,
    canonical_json,
    new_record,
    update_record,
)
from .sources import group_pieces

logger = logging.getLogger(__name__)

READERS = {
    "ocds": ocds, "eforms": eforms, "gld": gld, "csv": csvfile, "canadabuys": canadabuys,
    "ted": ted,
}  # fmt: skip
IMPLIED_MARKETS = {"eforms": "EU", "gld": "HK", "ted": "EU", "canadabuys": "CA"}
# The scheme records are kept under when a format reads another's notices: a TED notice and
# the same notice from an eForms file are one record.
SCHEMES = {"ted": "eforms"}
BATCH = 500
FAILURES_KEPT = 500
SINCE_REASON = "published before --since"
Progress = Callable[[str, int, int], None]


class ImportFailed(ValueError):
    """The import could not start (bad format, market or location); nothing was written."""


# --- entry points -------------------------------------------------------------------------


def import_from_source(
    source: ImportSource,
    *,
    user: AbstractBaseUser | None = None,
    progress: Progress | None = None,
    dry_run: bool = False,
    policy: HttpPolicy | None = None,
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] | None = None,
) -> ImportRun:
    """Import a configured source now: what is new since its checkpoint (see the module)."""
    if not source.enabled:
        raise ImportFailed(f"{source.name} is disabled; enable it first.")
    if source.preset and not settings.TENDERS_IMPORT_CONTACT:
        raise ImportFailed(
            f"{source.name} reads a publisher's public service: set TENDERS_IMPORT_CONTACT (an "
            "e-mail address the publisher can write to) so its requests say who is asking."
        )
    session = http.Session(
        policy=policy or HttpPolicy(),
        sleep=sleep,
        interval=source.request_interval,
        user_agent=user_agent(),
        retry_statuses=http.RETRY_STATUSES | set((source.options or {}).get("retry_statuses", [])),
        **({"clock": clock} if clock else {}),
    )
    return import_notices(
        source.format,
        source.url,
        market=source.market or None,
        user=user,
        progress=progress,
        dry_run=dry_run,
        source=source,
        session=session,
    )


def user_agent() -> str:
    """The service and whom to write to, as every request to a publisher says."""
    contact = settings.TENDERS_IMPORT_CONTACT
    if not contact:
        return http.USER_AGENT
    return f"{http.PRODUCT} (staff import of public notices; contact: {contact})"


def check_market(fmt: str, market: str | None) -> str:
    """The market an import goes to: implied by the format, or given; ImportFailed if not."""
    if fmt not in READERS:
        raise ImportFailed(f"Unknown format {fmt!r}: use one of {', '.join(READERS)}.")
    implied = IMPLIED_MARKETS.get(fmt)
    given = (market or "").strip().upper()
    if implied:
        if given and given != implied:
            raise ImportFailed(f"{fmt} notices are always {implied}, not {given}.")
        return implied
    if not given:
        raise ImportFailed(
            f"Say which market {fmt} notices are for (--market, one of {', '.join(MARKETS)})."
        )
    if given not in MARKETS:
        raise ImportFailed(f"Unknown market {given!r}: use one of {', '.join(MARKETS)}.")
    return given


# The names of the files each format reads (uploads, and the files of an uploaded zip).
UPLOAD_SUFFIXES = {
    "ocds": (".json", ".json.gz", ".jsonl", ".jsonl.gz"),
    "eforms": (".xml",),
    "gld": (".xml",),
    "csv": (".csv",),
    "canadabuys": (".csv",),
}


def shown_location(location: str) -> str:
    """A location as runs record it: a URL without any user or password in it."""
    parts = urlsplit(location)
    if parts.scheme in ("http", "https") and (parts.username or parts.password):
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        return urlunsplit(parts._replace(netloc=netloc))
    return location


def import_notices(
    fmt: str,
    path_or_url: str,
    *,
    market: str | None = None,
    since: date | None = None,
    user: AbstractBaseUser | None = None,
    progress: Progress | None = None,
    dry_run: bool = False,
    source: ImportSource | None = None,
    policy: HttpPolicy | None = None,
    sleep: Callable[[float], None] | None = None,
    shown_as: str | None = None,
    session: http.Session | None = None,
) -> ImportRun:
    """Import every notice of a file, folder or URL; the recorded run (unsaved on a dry run).

    ``shown_as`` is what the run says it read (an upload's own file name, not where the worker
    keeps its copy).

    A run that could not read its source ends ``failed`` with ``error`` saying why; items that
    failed inside a run that completed are in ``failures``.
    """
    market = check_market(fmt, market)
    location = (path_or_url or "").strip()
    if not location:
        raise ImportFailed("Give a file, a folder or an http(s) URL to import from.")
    run = ImportRun(
        source=source,
        format=fmt,
        location=(shown_as or shown_location(location))[:500],
        market=market,
        since=since,
        started_by=user if getattr(user, "pk", None) else None,
    )
    if not dry_run:
        run.save()
    context = ImportContext(
        run=run,
        fmt=fmt,
        scheme=SCHEMES.get(fmt, fmt),
        market=market,
        dry_run=dry_run,
        source=source,
        categories={c.slug: c for c in Category.objects.all()},
    )
    state = dict(source.checkpoint) if source is not None and session is not None else None
    started = run.started_at or timezone.now()  # a dry run is not saved
    try:
        if state is not None:
            items = harvest.pieces(
                READERS[fmt], fmt, location, options=source.options or {}, checkpoint=state,
                market=market, session=session, now=started,
            )  # fmt: skip
        else:
            items = READERS[fmt].pieces(location, market=market, policy=policy, sleep=sleep)
        _import_all(context, items, since, progress, state)
        run.state = ImportRun.State.COMPLETED
        if len(run.files) < 2:  # one file: the run's own counts say it all
            run.files = {}
        if state is not None:
            _save_checkpoint(context, checkpoints.finish(state, started=started))
    except (ReadError, OSError) as exc:
        run.state, run.error = ImportRun.State.FAILED, str(exc)
    except Exception as exc:
        logger.exception("import of %s failed", run.location)
        run.state = ImportRun.State.FAILED
        run.error = f"Unexpected error ({type(exc).__name__}: {exc}); tell the developers."
    run.finished_at = timezone.now()
    if not dry_run:
        run.save()
    return run


# --- the run ------------------------------------------------------------------------------


def _batched(groups: Iterable, size: int) -> Iterator[list]:
    iterator = iter(groups)
    while batch := list(islice(iterator, size)):
        yield batch


FILE_COUNTS = ("read", "created", "updated", "unchanged", "skipped", "failed")
PLACE_SEPARATORS = (" #", " line ", " record ")


def file_of(place: str) -> str:
    """The file named by a reader's place of an item ("a.json #3", "b.csv line 7")."""
    for separator in PLACE_SEPARATORS:
        if separator in place:
            return place.rsplit(separator, 1)[0]
    return place


def _count(run: ImportRun, place: str, what: str) -> None:
    """Count ``what`` in the file of ``place`` (the run's per-file counts)."""
    counts = run.files.setdefault(file_of(place), dict.fromkeys(FILE_COUNTS, 0))
    counts[what] += 1


def _fail(run: ImportRun, place: str, notice_id: str, message: str) -> None:
    _count(run, place, "failed")
    run.failed += 1
    if len(run.failures) < FAILURES_KEPT:
        run.failures.append({"place": place, "notice_id": notice_id, "message": message})


def _skip(run: ImportRun, reason: str) -> None:
    run.skipped[reason] = run.skipped.get(reason, 0) + 1


GONE_REASON = "no longer in the publisher's list of open notices (closed, cancelled or withdrawn)"


def _close_missing(context: ImportContext, listed: set[str]) -> None:
    """Close the source's open records whose notices its whole listing no longer has. Their
    stored hash is cleared, so a notice that comes back is read as changed and reopened."""
    if context.dry_run or context.source is None or not listed or context.run.failed:
        return  # an empty or partly unreadable file proves nothing
    gone = list(
        ImportedNotice.objects.select_related("tender")
        .filter(source=context.source, scheme=context.scheme)
        .exclude(notice_id__in=listed)
        .exclude(tender__status=SourceTender.Status.CLOSED)
    )
    now = timezone.now()
    for imported in gone:
        imported.tender.status = SourceTender.Status.CLOSED
        imported.tender.updated_at = imported.updated_at = now
        imported.state_at_source, imported.closed_reason, imported.raw_hash = (
            "withdrawn",
            GONE_REASON,
            "",
        )
    with transaction.atomic():
        SourceTender.objects.bulk_update([i.tender for i in gone], ["status", "updated_at"])
        ImportedNotice.objects.bulk_update(
            gone, ["state_at_source", "closed_reason", "raw_hash", "updated_at"]
        )
    context.run.closed += len(gone)


def _save_checkpoint(context: ImportContext, state: dict) -> None:
    if context.dry_run or context.source is None:
        return
    context.source.checkpoint = state
    ImportSource.objects.filter(pk=context.source.pk).update(checkpoint=state)


def _segments(items: Iterable) -> Iterator[tuple[Iterator, dict]]:
    """The items up to each ``Mark`` (or the end), and a box that holds that mark once the
    segment is read."""
    iterator = iter(items)
    while True:
        box: dict = {}

        def segment(box=box):
            for item in iterator:
                if isinstance(item, Mark):
                    box["mark"] = item
                    return
                yield item
            box["end"] = True

        yield segment(), box
        if "mark" not in box:
            return


def _import_all(
    context: ImportContext,
    items: Iterable[Piece | Failure | Mark],
    since: date | None,
    progress: Progress | None,
    state: dict | None = None,
) -> None:
    """Import every segment of ``items`` (the pieces up to each ``Mark``), committing each and
    then saving its mark's state into ``state`` and the source's checkpoint."""
    run = context.run
    since_day = since.isoformat() if since else ""
    listed: set[str] = set()

    def on_item(item: Piece | Failure) -> bool:
        if isinstance(item, Failure):
            _fail(run, item.place, item.notice_id, item.message)
            return False
        listed.add(item.notice_id)
        run.read += 1
        _count(run, item.place, "read")
        if progress and run.read % 1000 == 0:
            progress("read", run.read, 0)
        day = iso_day(item.published)
        if since_day and day and day < since_day:
            _skip(run, SINCE_REASON)
            _count(run, item.place, "skipped")
            return False
        return True

    total = [0]

    def on_grouped(count: int) -> None:
        total[0] += count
        if progress:
            progress("read", run.read, run.read)
            progress("import", done[0], total[0])

    done = [0]
    for segment, box in _segments(items):
        groups = group_pieces(segment, on_item=on_item, on_grouped=on_grouped)
        for batch in _batched(groups, BATCH):
            with transaction.atomic():
                _import_batch(context, batch)
                if not context.dry_run:
                    run.save()
            done[0] += len(batch)
            if progress:
                progress("import", done[0], total[0])
        mark = box.get("mark")
        if mark is not None and state is not None:
            if mark.listing and (context.source.options or {}).get("listing"):
                _close_missing(context, listed)
                if not context.dry_run:
                    run.save()
            state.update(mark.state)
            _save_checkpoint(context, state)
        listed.clear()
    if progress and not total[0]:
        progress("import", 0, 0)


def _import_batch(context: ImportContext, batch: list[tuple[str, list[Piece]]]) -> None:
    run, reader = context.run, READERS[context.scheme]
    existing = {
        n.notice_id: n
        for n in ImportedNotice.objects.select_for_update(of=("self",))
        .select_related("tender", "tender__category")
        .filter(scheme=context.scheme, notice_id__in=[notice_id for notice_id, _ in batch])
    }
    created: list[tuple[SourceTender, ImportedNotice]] = []
    changed: list[ImportedNotice] = []
    bodies: list[BodyEntry] = []
    for notice_id, pieces in batch:
        stored = existing.get(notice_id)
        items = json.loads(stored.raw_text(), parse_float=Decimal) if stored else {}
        for piece in pieces:
            items[piece.item_id] = piece.payload
        canonical = canonical_json(items)
        digest = hashlib.sha256(canonical.encode()).hexdigest()
        place = pieces[-1].place
        if stored and stored.raw_hash == digest:
            run.unchanged += 1
            _count(run, place, "unchanged")
            continue
        try:
            built = reader.build(notice_id, list(items.values()), market=context.market)
        except Exception as exc:  # a bad notice never stops the rest
            _fail(run, place, notice_id, _message(exc))
            continue
        if isinstance(built, Skip):
            _skip(run, built.reason)
            _count(run, place, "skipped")
            continue
        if built.deadline is None:
            _skip(run, "no closing date")
            _count(run, place, "skipped")
            continue
        bodies += _body_entries(built)
        raw = canonical.encode()
        if stored is None:
            tender, imported = new_record(context, built)
            imported.raw, imported.raw_hash = zlib.compress(raw, 6), digest
            created.append((tender, imported))
            run.created += 1
            _count(run, place, "created")
            run.closed += bool(built.closed_reason)
        else:
            was = update_record(context, stored, built)
            stored.raw, stored.raw_hash = zlib.compress(raw, 6), digest
            changed.append(stored)
            run.updated += 1
            _count(run, place, "updated")
            run.closed += bool(built.closed_reason) and was != SourceTender.Status.CLOSED
    if context.dry_run:
        return
    if created:
        SourceTender.objects.bulk_create([t for t, _ in created])
        for tender, imported in created:
            imported.tender = tender
        ImportedNotice.objects.bulk_create([i for _, i in created])
    if changed:
        SourceTender.objects.bulk_update([n.tender for n in changed], RECORD_FIELDS)
        ImportedNotice.objects.bulk_update(changed, NOTICE_FIELDS)
    if bodies:
        remember_bodies(bodies)


def _message(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, ValueError | KeyError | TypeError):
        return f"{text[:400]}; fix it at the source and import again"
    return f"{type(exc).__name__}: {text[:400]}; tell the developers"


def _body_entries(notice: Notice) -> list[BodyEntry]:
    groups: dict[str, list[BodyName]] = {}
    entries = []
    for name in notice.names:
        if name.kind == PublicBody.Kind.PERSON or not name.group:
            entries.append(
                BodyEntry(
                    market=notice.market, names=[BodyName(name.name, name.lang)], kind=name.kind
                )
            )
        else:
            groups.setdefault(name.group, []).append(BodyName(name.name, name.lang))
    entries += [BodyEntry(market=notice.market, names=names) for names in groups.values()]
    return entries


def stored_notice(imported: ImportedNotice) -> Notice | None:
    """The notice as its reader builds it again from the stored pieces (None if it no longer
    builds one): re-drafting needs its facts."""
    items = json.loads(imported.raw_text(), parse_float=Decimal)
    reader = READERS[imported.scheme]
    built = reader.build(imported.notice_id, list(items.values()), market=imported.tender.market)
    return built if isinstance(built, Notice) else None


__all__ = [
    "IMPLIED_MARKETS",
    "READERS",
    "ImportFailed",
    "ImportFormat",
    "check_market",
    "import_from_source",
    "import_notices",
]

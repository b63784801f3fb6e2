"""The feed's jobs: thin task wrappers that run the plain services in a worker, and the
services that queue them (the admin and the commands call these, never the tasks directly).

- Publication: one at a time (lock key ``publish``).
- Imports: one at a time per source (``import:<source id>``); scheduled sources are queued by
  ``imports_enqueue_due`` (the ``run_schedules`` command, from cron). An import is idempotent,
  so a failed or dead one is simply run again.
- Gate checks: after a change of the gate's rules (a deployment), ``run_schedules`` queues one
  check of the approved records, which records their passes off the Monday path
  (``gate_check_enqueue_due``; ``manage.py check_gate`` does the same by hand).
- Uploads: the file a curator uploads is kept in the default storage (which web servers and
  workers share, as for the flat files) until its import has run, then removed; a job that
  died keeps it, so *Retry* works.
"""

import contextlib
import hashlib
import logging
import secrets
import shutil
import tempfile
import zipfile
from datetime import date, datetime, timedelta
from pathlib import Path

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.files.storage import default_storage
from django.db.models import Max
from django.dispatch import receiver
from django.utils import timezone
from django_tasks import task

from tenders.read import current
from tenders.read.postings_store import PostingsError, build_postings

from . import bulk, curation, digests, findings, subscriptions
from .importers.service import (
    UPLOAD_SUFFIXES,
    ImportFailed,
    import_from_source,
    import_notices,
)
from .jobs import JobBusy, JobFailed, Outcome, Progress, job_abandoned, job_enqueue, run_job
from .models import (
    DigestDelivery,
    ImportRun,
    ImportSource,
    Issue,
    Job,
    SourceTender,
    Subscription,
)
from .publication import PublicationError, check_approved, discard_abandoned_builds, passes

log = logging.getLogger(__name__)

PUBLISH = "publish"
IMPORT = "import"
POSTINGS = "postings"
GATE_CHECK = "gate-check"
REDRAFT = "redraft"
BULK = "bulk"
DIGEST = "digest"


def publication_enqueue(*, user: AbstractBaseUser | None) -> Job:
    """Queue this week's publication; ``JobBusy`` names the one already queued or running."""
    return job_enqueue(
        task=publish_issue_task,
        kind=PUBLISH,
        label="Publish this week's issue",
        lock_key=PUBLISH,
        user=user,
    )


def _publish(job: Job, progress: Progress) -> Outcome:
    try:
        summary = curation.issue_publish(user=job.requested_by, progress=progress)
    except PublicationError as exc:
        raise JobFailed(f"Not published: {exc}") from exc
    return Outcome(
        message=(
            f"Published {summary.issue_id}: {summary.published:,} rows ({summary.new:,} new, "
            f"{summary.continuing:,} continuing, {summary.dropped:,} dropped), "
            f"{summary.withheld:,} withheld; etag {summary.snapshot_etag}."
        ),
        subject=summary.issue,
        data={
            "issue_id": summary.issue_id,
            "snapshot_etag": summary.snapshot_etag,
            "published": summary.published,
            "withheld": summary.withheld,
            "withheld_by_reason": dict(summary.withheld_by_reason.most_common()),
            "seconds_by_phase": {k: round(v, 1) for k, v in summary.timings.items()},
        },
    )


@task()
def publish_issue_task(job_id: int) -> dict:
    return run_job(job_id, _publish)


@receiver(job_abandoned)
def _publication_abandoned(sender, job: Job, **kwargs) -> None:
    """What the dead worker's publication left building is discarded now, not only when the
    next publication starts (the previous issue stayed current all along)."""
    if job.kind == PUBLISH and job.started_at:
        discard_abandoned_builds(since=job.started_at)


# --- jobs of each new current issue -------------------------------------------------------
# A job per issue, queued after the switch: its search postings, and its digests when anyone
# subscribed. Queueing never fails the publication, which is already current.


def _issue_enqueue(issue: Issue, *, task, kind: str, label: str) -> Job | None:
    """Queue the ``kind`` job of ``issue`` (None: one is queued or running for it)."""
    try:
        return job_enqueue(
            task=task,
            kind=kind,
            label=f"{label} of {issue.issue_id}",
            lock_key=f"{kind}:{issue.pk}",
            user=None,
            arguments={"issue": issue.pk},
        )
    except JobBusy:
        return None


def postings_enqueue(issue: Issue) -> Job | None:
    """Queue the build of ``issue``'s search postings (until they are built, counts read rows
    as before)."""
    return _issue_enqueue(issue, task=build_postings_task, kind=POSTINGS, label="Search postings")


def digests_enqueue(issue: Issue) -> Job | None:
    """Queue the mailing of ``issue``'s digests."""
    return _issue_enqueue(issue, task=send_digests_task, kind=DIGEST, label="Digests")


@contextlib.contextmanager
def _logged(what: str, issue: Issue):
    """An error of queueing is logged, never raised."""
    try:
        yield
    except Exception:
        log.exception("Queueing the %s of issue #%s failed.", what, issue.pk)


@receiver(current.switched)
def _jobs_after_switch(sender, issue: Issue, **kwargs) -> None:
    with _logged("search postings", issue):
        postings_enqueue(issue)
    with _logged("digests", issue):
        if Subscription.objects.filter(confirmed_at__isnull=False).exists():
            digests_enqueue(issue)


# --- search postings ----------------------------------------------------------------------


def _build_postings(job: Job, progress: Progress) -> Outcome:
    issue = Issue.objects.filter(pk=job.arguments["issue"]).first()
    if issue is None:
        raise JobFailed("Search postings not built: the issue was deleted.")
    try:
        done = build_postings(issue, progress=progress)
    except PostingsError as exc:
        raise JobFailed(f"Search postings not built: {exc}") from exc
    if done is None:
        return Outcome(
            message=f"Search postings of {issue.issue_id} not kept: its snapshot changed.",
            subject=issue,
        )
    return Outcome(
        message=(
            f"Search postings of {issue.issue_id}: {done.keys:,} keys over {done.rows:,} rows "
            f"in {done.seconds:.1f} s."
        ),
        subject=issue,
        data={"keys": done.keys, "rows": done.rows, "seconds": done.seconds},
    )


@task()
def build_postings_task(job_id: int) -> dict:
    return run_job(job_id, _build_postings)


# --- digests of saved searches -------------------------------------------------------------


def _send_digests(job: Job, progress: Progress) -> Outcome:
    issue = Issue.objects.filter(pk=job.arguments["issue"]).first()
    if issue is None:
        raise JobFailed("Digests not sent: the issue was deleted.")
    lost = DigestDelivery.objects.filter(issue=issue, state=DigestDelivery.State.CLAIMED).count()
    try:
        run = digests.send_digests(issue, progress=progress)
    except digests.DigestStopped as exc:
        raise JobFailed(f"Digests of {issue.issue_id} stopped: {exc}", subject=issue) from exc
    unsure = (
        f" {lost:,} claimed by a run that stopped were not sent again (never twice)."
        if lost
        else ""
    )
    return Outcome(
        message=(
            f"Digests of {issue.issue_id}: {run.sent:,} sent, {run.empty:,} with nothing new, "
            f"{run.skipped:,} done before, {len(run.errors):,} failed sends, over "
            f"{run.searches:,} searches in {run.seconds:.1f} s.{unsure}"
        ),
        subject=issue,
        data={**run.as_dict(), "claimed_before": lost},
    )


@task()
def send_digests_task(job_id: int) -> dict:
    return run_job(job_id, _send_digests)


@task()
def send_confirmation_task(subscription_id: int) -> bool:
    """A subscription's confirmation mail, sent off the request (see ``subscriptions``)."""
    return digests.send_confirmation(subscription_id)


@receiver(subscriptions.confirmation_due)
def _confirmation_by_mail(sender, subscription_id: int, **kwargs) -> None:
    send_confirmation_task.enqueue(subscription_id=subscription_id)


# --- gate checks --------------------------------------------------------------------------


def gate_check_enqueue_due(*, now: datetime | None = None) -> tuple[Job, bool] | None:
    """Queue a check of the approved records against the gate (``check_gate``'s work) when
    some hold no pass of today's rules and no check was queued for these rules yet: (job,
    queued now), or None. Once per version of the rules, so records with findings (they never
    get a pass) are not checked again every time; a failed check is retried by staff
    (*Run it again*), and records approved later are checked by approval or publication."""
    code = passes.gate_code()
    earlier = Job.objects.filter(kind=GATE_CHECK, arguments__code=code).order_by("-pk").first()
    if earlier is not None:
        return (earlier, False) if earlier.active else None
    if not passes.unchecked(now or timezone.now()).exists():
        return None
    try:
        job = job_enqueue(
            task=check_gate_task,
            kind=GATE_CHECK,
            label="Check approved records against the gate's rules",
            lock_key=GATE_CHECK,
            user=None,
            arguments={"code": code},
        )
    except JobBusy as busy:  # a check under the rules before is still running: after it
        return busy.job, False
    return job, True


def _check_gate(job: Job, progress: Progress) -> Outcome:
    checked, found = check_approved(progress=lambda done, total: progress("check", done, total))
    return Outcome(
        message=(
            f"Checked {checked:,} approved records against the gate: {checked - len(found):,} "
            f"passed, {len(found):,} with findings (publication withholds them; the admin's "
            "check says why)."
        ),
        data={"checked": checked, "with_findings": found[:100]},
    )


@task()
def check_gate_task(job_id: int) -> dict:
    return run_job(job_id, _check_gate)


# --- re-drafting --------------------------------------------------------------------------


def redraft_enqueue(*, user: AbstractBaseUser | None) -> Job:
    """Queue a re-draft of the imported records (``manage.py redraft_summaries``' work)."""
    return job_enqueue(
        task=redraft_task,
        kind=REDRAFT,
        label="Re-draft imported summaries from the vocabulary",
        lock_key=REDRAFT,
        user=user,
    )


def _redraft(job: Job, progress: Progress) -> Outcome:
    from .importers.redraft import redraft_imported
    from .management.commands.redraft_summaries import summary_text

    result = redraft_imported(progress=lambda done, total: progress("redraft", done, total))
    return Outcome(
        message=summary_text(result),
        data={"redrafted": result.redrafted, "edited": [e[0] for e in result.edited[:100]]},
    )


@task()
def redraft_task(job_id: int) -> dict:
    return run_job(job_id, _redraft)


# --- bulk curation ------------------------------------------------------------------------


def bulk_enqueue(
    *, action: str, ids: list[int], user: AbstractBaseUser | None, reason: str = ""
) -> Job:
    """Queue a bulk action of the admin on ``ids`` (``bulk.bulk_run``'s work) for a worker.
    The same selection is refused while its job is queued or running (a second click)."""
    ids = sorted(set(ids))
    digest = hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()[:16]
    verb = bulk.ACTIONS[action][0]
    return job_enqueue(
        task=bulk_task,
        kind=BULK,
        label=f"{verb} {len(ids):,} records",
        lock_key=f"{BULK}:{action}:{digest}",
        user=user,
        arguments={"action": action, "ids": ids, "reason": reason},
    )


def _bulk(job: Job, progress: Progress) -> Outcome:
    args = job.arguments
    try:
        outcome = bulk.bulk_run(
            action=args["action"],
            ids=args["ids"],
            user=job.requested_by,
            reason=args.get("reason", ""),
            progress=lambda done, total: progress(args["action"], done, total),
        )
    except curation.CurationError as exc:
        raise JobFailed(f"Nothing changed: {exc}") from exc
    refused = dict(list(outcome.refused.items())[:100])
    return Outcome(
        message=outcome.message(),
        data={
            "action": outcome.action,
            "selected": outcome.selected,
            "done": outcome.done,
            "refused_count": len(outcome.refused),
            "refused": refused,
        },
    )


@task()
def bulk_task(job_id: int) -> dict:
    return run_job(job_id, _bulk)


# --- imports ------------------------------------------------------------------------------


def import_enqueue(*, source: ImportSource, user: AbstractBaseUser | None) -> Job:
    """Queue an import of ``source``; ``JobBusy`` names the one of it queued or running."""
    return job_enqueue(
        task=import_source_task,
        kind=IMPORT,
        label=f"Import from {source.name}",
        lock_key=f"{IMPORT}:{source.pk}",
        user=user,
        arguments={"source_id": source.pk},
    )


def import_is_due(every_hours: int | None, last_started: datetime | None, now: datetime) -> bool:
    """Whether a source imported every ``every_hours`` (None: by hand only) is due at ``now``."""
    if not every_hours:
        return False
    return last_started is None or now - last_started >= timedelta(hours=every_hours)


def imports_enqueue_due(*, now: datetime | None = None) -> list[tuple[ImportSource, Job, bool]]:
    """Queue an import of each enabled, scheduled source that is due: (source, job, queued now)
    for each, where a job queued earlier and not finished is reported instead of a new one."""
    now = now or timezone.now()
    sources = (
        ImportSource.objects.filter(enabled=True, every_hours__isnull=False)
        .annotate(last_started=Max("runs__started_at"))
        .order_by("name")
    )
    due = []
    for source in sources:
        if import_is_due(source.every_hours, source.last_started, now):
            try:
                due.append((source, import_enqueue(source=source, user=None), True))
            except JobBusy as busy:
                due.append((source, busy.job, False))
    return due


def _import(job: Job, progress: Progress) -> Outcome:
    source = ImportSource.objects.filter(pk=job.arguments["source_id"]).first()
    if source is None:
        raise JobFailed("Not imported: the source was deleted after the job was queued.")
    try:
        run = import_from_source(source, user=job.requested_by, progress=progress)
    except ImportFailed as exc:
        raise JobFailed(f"Not imported: {exc}") from exc
    if run.state == ImportRun.State.FAILED:
        raise JobFailed(f"Import from {source.name} failed: {run.error}", subject=run)
    _scan_stale(progress)
    fields = ("read", "created", "updated", "unchanged", "closed", "failed")
    return Outcome(
        message=f"Imported from {source.name}: {run.summary()}.",
        subject=run,
        data={"run": run.pk, **{name: getattr(run, name) for name in fields}},
    )


@task()
def import_source_task(job_id: int) -> dict:
    return run_job(job_id, _import)


def upload_import_enqueue(
    *,
    uploads: list,
    fmt: str,
    market: str,
    since: date | None,
    dry_run: bool,
    user: AbstractBaseUser | None,
) -> Job:
    """Keep uploaded files (one, several, or zips of them) in storage, in one folder, and
    queue their import (or dry run) for a worker: one run for all of them."""
    folder = f"uploads/{secrets.token_hex(8)}"
    names, stored = [], []
    try:
        for upload in uploads:
            name = Path(upload.name).name
            stored.append(default_storage.save(f"{folder}/{name}", upload))
            names.append(Path(stored[-1]).name)  # the storage may rename a second a.json
        shown = upload_title(names)
        return job_enqueue(
            task=import_upload_task,
            kind=IMPORT,
            label=f"{'Dry run of' if dry_run else 'Import'} upload {shown}"[:200],
            lock_key=f"{IMPORT}:{folder}"[:200],
            user=user,
            arguments={
                "format": fmt,
                "market": market or None,
                "since": since.isoformat() if since else None,
                "dry_run": dry_run,
                "folder": folder,
                "files": stored,
                "name": shown,
            },
        )
    except Exception:
        _remove_upload(stored, folder)
        raise


def upload_title(names: list[str]) -> str:
    """How an upload is named in jobs and runs: its file, or the first ones and a count."""
    if len(names) == 1:
        return names[0]
    shown = ", ".join(names[:3])
    return f"{shown}{', …' if len(names) > 3 else ''} ({len(names)} files)"


def _remove_upload(stored: list[str], folder: str | None) -> None:
    for name in stored:
        default_storage.delete(name)
    if folder:
        with contextlib.suppress(OSError):  # the emptied folder, where storage has folders
            default_storage.delete(folder)


def _unpack(kept: str, into: Path, suffixes: tuple[str, ...]) -> None:
    """Copy a kept upload into the import's folder; a zip's notice files are unpacked there
    (by their own names only: nothing is written outside the folder). The storage's stream
    is copied first: a zip is read by seeking, which a file kept in the database cannot."""
    name = Path(kept).name
    local = into / name
    with default_storage.open(kept, "rb") as source, local.open("wb") as out:
        shutil.copyfileobj(source, out, 1 << 20)
    if not name.lower().endswith(".zip"):
        return
    with zipfile.ZipFile(local) as archive:
        for member in archive.infolist():
            inner = Path(member.filename).name
            if member.is_dir() or not inner.lower().endswith(suffixes):
                continue
            if "__MACOSX" in member.filename or inner.startswith("."):
                continue
            target, n = into / inner, 1
            while target.exists():  # the same name in two folders of the zip
                n += 1
                target = into / f"{Path(inner).stem}-{n}{''.join(Path(inner).suffixes)}"
            with archive.open(member) as packed, target.open("wb") as out:
                shutil.copyfileobj(packed, out, 1 << 20)
    local.unlink()


def _import_upload(job: Job, progress: Progress) -> Outcome:
    args = job.arguments
    if "stored" in args:  # a job queued before uploads of several files
        stored, folder = [args["stored"]], None
    else:
        stored, folder = args["files"], args["folder"]
    where, dry_run = f"upload {args['name']}", args["dry_run"]
    if not all(default_storage.exists(name) for name in stored):
        raise JobFailed(f"Not imported: the files of {where} are gone; upload them again.")
    with tempfile.TemporaryDirectory(prefix="tenders-upload-") as temp:
        local = Path(temp) / "files"
        local.mkdir()
        for name in stored:
            _unpack(name, local, UPLOAD_SUFFIXES[args["format"]])
        found = sorted(local.iterdir())
        # Readers tell formats by the file's suffix: one file is read as itself.
        location = found[0] if len(found) == 1 else local
        try:
            run = import_notices(
                args["format"],
                str(location),
                market=args["market"],
                since=date.fromisoformat(args["since"]) if args["since"] else None,
                user=job.requested_by,
                progress=progress,
                dry_run=dry_run,
                shown_as=where,
            )
        except ImportFailed as exc:
            raise JobFailed(f"Not imported: {exc}") from exc
    _remove_upload(stored, folder)  # run: the files would give the same outcome again
    subject = run if run.pk else None
    if run.state == ImportRun.State.FAILED:
        raise JobFailed(f"Import of {where} failed: {run.error}", subject=subject)
    if not dry_run:
        _scan_stale(progress)
    fields = ("read", "created", "updated", "unchanged", "closed", "failed")
    if dry_run:
        message = f"Dry run of {where}, nothing was written: {run.summary()}."
    elif run.failed:
        message = f"Imported {where}: {run.summary()}. Open run {run.pk} for the failures."
    else:
        message = f"Imported {where}: {run.summary()}."
    return Outcome(
        message=message,
        subject=subject,
        data={"run": run.pk, **{name: getattr(run, name) for name in fields}, "files": run.files},
    )


def _scan_stale(progress: Progress) -> None:
    """After an import, keep the gate's findings of the records whose kept counts are stale,
    here in the worker: those the run created or changed, and every other one when the run
    changed the gate's data (importers add the names they see to the directory). The admin's
    "has findings" filter then reads counts instead of scanning in a request."""
    records = SourceTender.objects.exclude(status=SourceTender.Status.CLOSED)
    findings.findings_refresh(records, progress=lambda done, total: progress("scan", done, total))


@task()
def import_upload_task(job_id: int) -> dict:
    return run_job(job_id, _import_upload)


@receiver(job_abandoned)
def _import_abandoned(sender, job: Job, **kwargs) -> None:
    """The run of an import whose worker died still says running: it failed, for that reason."""
    if job.kind == IMPORT and job.started_at:
        if "name" in job.arguments:
            runs = ImportRun.objects.filter(source=None, location=f"upload {job.arguments['name']}")
        else:
            runs = ImportRun.objects.filter(source_id=job.arguments.get("source_id"))
        runs.filter(state=ImportRun.State.RUNNING, started_at__gte=job.started_at).update(
            state=ImportRun.State.FAILED, finished_at=job.finished_at, error=job.message
        )

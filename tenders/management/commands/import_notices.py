"""Import public notices into source records (see tenders.importers.service).

    manage.py import_notices {ocds,eforms,gld,csv} PATH_OR_URL [--market XX] [--since DATE]
                             [--dry-run]

Guarantees: records keyed by (scheme, notice id) keep their listing id; unchanged notices write
nothing; a rerun is idempotent and an interrupted run safe to retry; closed procedures leave the
next issue. --market is required where the format does not imply it (eForms is EU, GLD is HK).
--dry-run reads, merges, classifies and drafts everything and reports, writing nothing.

Exit status: 0 when the run completed (even with failed items, listed in the summary); 1 when
the run itself failed (unreadable source, bad arguments).
"""

import time
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from tenders.importers.service import READERS, ImportFailed, import_notices
from tenders.models import ImportRun

FAILURES_SHOWN = 20


def parse_since(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise CommandError(f"--since {value!r} is not a date; write it as 2026-11-01") from exc


class Command(BaseCommand):
    help = "Import public notices (OCDS, eForms, HK GLD, CSV) from a file, a folder or a URL."

    def add_arguments(self, parser):
        parser.add_argument(
            "fmt", metavar="format", choices=sorted(READERS), help="The source's format."
        )
        parser.add_argument("location", metavar="PATH_OR_URL", help="File, folder or http(s) URL.")
        parser.add_argument(
            "--market", help="Market code (HK MO SG GB EU AU CA); implied for eforms and gld."
        )
        parser.add_argument(
            "--since", help="Only items published on or after this date (YYYY-MM-DD)."
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Read and report; write nothing."
        )

    def handle(self, *args, fmt, location, market, since, dry_run, verbosity, **options):
        since_day = parse_since(since) if since else None
        started = time.monotonic()
        on_terminal = self.stdout.isatty()
        last = [0.0]

        def progress(phase: str, done: int, total: int) -> None:
            if verbosity < 1:
                return
            moment = time.monotonic()
            finished = total and done >= total
            if not finished and moment - last[0] < 1.0:
                return
            last[0] = moment
            if phase == "read":
                line = f"  read {done:,} items" + (" (done)" if finished else " …")
            else:
                percent = 100 * done // total if total else 100
                line = f"  imported {done:,} of {total:,} procedures ({percent}%)"
            if on_terminal:
                self.stdout.write("\r" + line.ljust(60), ending="\n" if finished else "")
            elif finished or phase == "import":
                self.stdout.write(line)

        try:
            run = import_notices(
                fmt, location, market=market, since=since_day, progress=progress,
                dry_run=dry_run,
            )  # fmt: skip
        except ImportFailed as exc:
            raise CommandError(str(exc)) from exc
        if verbosity >= 1:
            self._report(run, dry_run, time.monotonic() - started)
        if run.state == ImportRun.State.FAILED:
            raise CommandError(f"The import failed: {run.error}")

    def _report(self, run: ImportRun, dry_run: bool, elapsed: float) -> None:
        if run.state == ImportRun.State.COMPLETED:
            title = "Dry run, nothing was written" if dry_run else f"Import run {run.pk} completed"
            self.stdout.write(self.style.SUCCESS(title))
        rows = [
            ("source", f"{run.format} {run.location}"),
            ("market", run.market),
            ("items read", f"{run.read:,}"),
            ("created", f"{run.created:,}"),
            ("updated", f"{run.updated:,}"),
            ("unchanged", f"{run.unchanged:,}"),
            ("closed at source", f"{run.closed:,}"),
            *(
                (f"skipped: {reason}", f"{count:,}")
                for reason, count in sorted(run.skipped.items())
            ),
            ("failed", f"{run.failed:,}"),
            ("time", f"{elapsed:.1f} s"),
        ]
        width = max(len(label) for label, _ in rows)
        for label, value in rows:
            self.stdout.write(f"  {label.ljust(width)}  {value}")
        for failure in run.failures[:FAILURES_SHOWN]:
            who = f" {failure['notice_id']}" if failure["notice_id"] else ""
            self.stdout.write(
                self.style.WARNING(f"  failed: {failure['place']}{who}: {failure['message']}")
            )
        if run.failed > FAILURES_SHOWN:
            self.stdout.write(
                f"  … and {run.failed - FAILURES_SHOWN} more failures (see the admin)"
            )

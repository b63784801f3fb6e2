"""Publish this week's issue of the feed from the approved source records.

Guarantees (see tenders.publication):
- approved records only; each passes the sanitization gate or is withheld and counted;
- buckets against the publication time; new_this_issue against the previous issue;
- the current snapshot switches atomically at the end; a failure leaves the old one current;
- a second publication in the same ISO week replaces that week's snapshot.

--dry-run plans everything and prints the same summary without writing anything.
--at sets the publication clock (RFC 3339 / ISO 8601, e.g. 2026-11-23T06:00:00Z).
--enqueue queues the publication for a worker instead (staff follow it in the admin) and
returns at once; refused while a publication is queued or running.
"""

import sys
import time

from django.core.management.base import BaseCommand, CommandError
from django.utils.dateparse import parse_datetime

from tenders.calendar import rfc3339
from tenders.jobs import JobBusy
from tenders.publication import PLAN_PHASE, PublicationError, publish_issue
from tenders.tasks import publication_enqueue


def parse_at(value: str):
    moment = parse_datetime(value)
    if moment is None:
        raise CommandError(f"--at {value!r} is not a date-time; use e.g. 2026-11-23T06:00:00Z")
    if moment.tzinfo is None:
        raise CommandError(f"--at {value!r} has no timezone; add Z or an offset like +08:00")
    return moment


class Command(BaseCommand):
    help = "Publish this week's issue of the tender feed (use --dry-run to preview)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Plan and report; write nothing."
        )
        parser.add_argument("--at", help="Publication time (ISO 8601 with timezone). Default: now.")
        parser.add_argument(
            "--enqueue",
            action="store_true",
            help="Queue the publication for a worker (manage.py run_worker) and return at once; "
            "staff follow its progress in the admin.",
        )

    def handle(self, *args, dry_run: bool, at: str | None, enqueue: bool, verbosity, **options):
        if enqueue:
            return self.enqueue(dry_run or at)
        now = parse_at(at) if at else None
        started = time.monotonic()
        show_progress = self.stdout.isatty()
        last = [0.0]

        def progress(phase: str, done: int, total: int) -> None:
            if verbosity < 1:
                return
            moment = time.monotonic()
            if done < total and moment - last[0] < 1.0 and phase == PLAN_PHASE:
                return
            last[0] = moment
            if phase != PLAN_PHASE:
                if done < total:
                    self.stdout.write(f"  {phase} …")
                return
            percent = 100 * done // total if total else 100
            line = f"  planned {done:,} of {total:,} records ({percent}%)"
            if show_progress:
                self.stdout.write("\r" + line, ending="")
                if done >= total:
                    self.stdout.write("")
            else:
                self.stdout.write(line)

        try:
            summary = publish_issue(now=now, dry_run=dry_run, progress=progress)
        except PublicationError as exc:
            raise CommandError(str(exc)) from exc
        elapsed = time.monotonic() - started
        if verbosity < 1:
            return
        title = "Dry run: nothing was written" if dry_run else "Published"
        self.stdout.write(self.style.SUCCESS(f"{title}: issue {summary.issue_id}"))
        rows = [
            ("issue", summary.issue_id),
            ("generated", rfc3339(summary.generated)),
            ("previous issue", summary.previous_issue_id or "(none)"),
            ("replaces same week", "yes" if summary.replaces_same_week else "no"),
            ("eligible", f"{summary.eligible:,}"),
            ("published", f"{summary.published:,}"),
            ("new", f"{summary.new:,}"),
            ("continuing", f"{summary.continuing:,}"),
            ("dropped", f"{summary.dropped:,}"),
            ("withheld", f"{summary.withheld:,}"),
            ("reused", f"{summary.reused:,} rows copied from the last issue"),
            (
                "affected",
                f"{summary.affected:,} unchanged records planned again "
                "for a change of the directory or allow-lists",
            ),
            (
                "gate passed",
                f"{summary.passed:,} records planned without the gate: they passed it "
                "(approval or check_gate) and nothing since affects that",
            ),
        ]
        if not dry_run:
            rows.append(("snapshot etag", summary.snapshot_etag))
        rows.append(("time", f"{elapsed:.1f} s"))
        width = max(len(k) for k, _ in rows)
        for key, value in rows:
            self.stdout.write(f"  {key.ljust(width)}  {value}")
        if summary.withheld_by_reason:
            self.stdout.write("  withheld by reason:")
            for reason, count in summary.withheld_by_reason.most_common():
                self.stdout.write(f"    {reason.ljust(width)}  {count:,}")
        if summary.timings:
            self.stdout.write("  time by phase:")
            for phase, seconds in summary.timings.items():
                self.stdout.write(f"    {phase.ljust(width + 12)}  {seconds:7.1f} s")
        if verbosity >= 2:
            for listing_id, reasons in summary.withheld_samples:
                self.stdout.write(f"    {listing_id}: {'; '.join(reasons)}")
        sys.stdout.flush()

    def enqueue(self, clashing) -> None:
        if clashing:
            raise CommandError("--enqueue publishes now, for real: leave out --dry-run and --at.")
        try:
            job = publication_enqueue(user=None)
        except JobBusy as busy:
            raise CommandError(
                f"A publication is already {busy.job.get_state_display().lower()}: job "
                f"#{busy.job.pk}, asked for at {rfc3339(busy.job.enqueued_at)}."
            ) from None
        self.stdout.write(
            f"Queued the publication as job #{job.pk}; a worker (manage.py run_worker) runs it."
        )

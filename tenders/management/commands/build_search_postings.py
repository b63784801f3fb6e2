"""Build the search postings of the current issue (or ``--issue PK``) here and now, as the job
queued after each publication does; prints progress, wall and CPU time and peak memory."""

import resource
import time

from django.core.management.base import BaseCommand, CommandError

from tenders.models import Issue
from tenders.read.postings_store import PostingsError, build_postings


class Command(BaseCommand):
    help = "Build the search postings (exact counts of q) of the current issue."

    def add_arguments(self, parser):
        parser.add_argument("--issue", type=int, help="Issue primary key (default: current).")

    def handle(self, *args, issue: int | None, verbosity, **options):
        found = Issue.objects.filter(pk=issue) if issue else Issue.objects.filter(is_current=True)
        chosen = found.first()
        if chosen is None:
            raise CommandError("No such issue." if issue else "No issue is current.")
        wall, cpu = time.monotonic(), time.process_time()

        def progress(phase: str, done: int, total: int) -> None:
            if verbosity > 1:
                self.stderr.write(f"{phase}: {done:,} of {total:,}")

        try:
            done = build_postings(chosen, progress=progress)
        except PostingsError as exc:
            raise CommandError(f"Search postings not built: {exc}") from exc
        if done is None:
            raise CommandError(f"Issue {chosen.issue_id} no longer has its snapshot; not kept.")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        self.stdout.write(
            f"Search postings of {chosen.issue_id} (#{chosen.pk}, {done.snapshot_etag}): "
            f"{done.keys:,} keys over {done.rows:,} rows; wall {time.monotonic() - wall:.1f} s, "
            f"CPU {time.process_time() - cpu:.1f} s, peak memory {peak:,.0f} MB."
        )

"""Check approved records against the publication gate and record passes for the clean ones,
as approval does (``tenders.publication.passes``)."""

import time

from django.core.management.base import BaseCommand

from tenders.management.commands.publish_issue import parse_at
from tenders.publication import check_approved

SHOWN = 20


class Command(BaseCommand):
    help = (
        "Run the sanitization gate on approved records that hold no pass of it (records "
        "approved without curation, or all after a change of the gate's rules) and record "
        "passes for those it finds nothing in, so that publication need not check them again."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--all",
            action="store_true",
            dest="everything",
            help="Check every approved record, not only those without a current pass.",
        )
        parser.add_argument(
            "--at",
            help="The publication clock that says which records are still published (ISO 8601 "
            "with timezone, as publish_issue takes it). Default: now.",
        )

    def handle(self, *args, everything: bool, at: str | None, verbosity, **options):
        now = parse_at(at) if at else None
        started, cpu = time.monotonic(), time.process_time()
        reported = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.monotonic()
            if verbosity > 0 and (done == total or now - reported[0] >= 5):
                reported[0] = now
                self.stderr.write(f"checked {done:,} of {total:,} approved records")

        checked, found = check_approved(everything=everything, progress=progress, now=now)
        if verbosity < 1:
            return
        self.stdout.write(
            f"Checked {checked:,} approved records: {checked - len(found):,} passed, "
            f"{len(found):,} with findings; wall {time.monotonic() - started:.1f} s, "
            f"CPU {time.process_time() - cpu:.1f} s."
        )
        if found:
            self.stdout.write(
                "Publication withholds the records with findings; the admin's check says why: "
                + ", ".join(found[:SHOWN])
                + (f" and {len(found) - SHOWN:,} more" if len(found) > SHOWN else "")
            )

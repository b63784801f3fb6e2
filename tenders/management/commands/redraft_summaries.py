"""Re-draft imported records from the vocabulary (``importers.redraft``)."""

from django.core.management.base import BaseCommand

from tenders.importers.redraft import redraft_imported

SHOWN = 20


class Command(BaseCommand):
    help = (
        "Classify every imported record again and build its three summaries from the public "
        "vocabulary, as an import would. Records whose summaries a person edited keep them "
        "and are listed with the new draft beside them. Run it after an upgrade that changes "
        "the vocabulary or the drafting rules; the admin's Jobs page can run it too."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Report what would change; write nothing."
        )

    def handle(self, *args, dry_run: bool, verbosity, **options):
        def progress(done: int, total: int) -> None:
            if verbosity > 1 or (verbosity > 0 and (done == total or done % 5000 == 0)):
                self.stderr.write(f"re-drafted {done:,} of {total:,} imported records")

        result = redraft_imported(dry_run=dry_run, progress=progress)
        self.stdout.write(summary_text(result, dry_run=dry_run))
        for listing_id, current, new in result.edited[:SHOWN]:
            self.stdout.write(f"  {listing_id} (edited)\n    now: {current}\n    new: {new}")
        if len(result.edited) > SHOWN:
            self.stdout.write(f"  … and {len(result.edited) - SHOWN:,} more edited records.")


def summary_text(result, *, dry_run: bool = False) -> str:
    verb = "would re-draft" if dry_run else "re-drafted"
    return (
        f"Imported records: {verb} {result.redrafted:,} ({result.back_to_draft:,} of them back "
        f"to draft), {result.unchanged:,} unchanged, {len(result.edited):,} edited by a person "
        f"(kept; review them against the new draft), {result.not_rebuilt:,} whose stored "
        "notice no longer builds."
    )

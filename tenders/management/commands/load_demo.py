"""Load synthetic source records (``AT-TEST-`` ids) for the demo and for load tests.

Guarantees:
- deterministic: the same --seed and --at give the same records;
- touches only synthetic records: --replace deletes earlier ``AT-TEST-`` records first and
  never a real one; without --replace, an existing demo set is an error, not a silent merge;
- bulk inserts in batches with progress output; 100,000 records take well under a minute.
"""

import time

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from tenders.demo import demo_records
from tenders.ids import TEST_PREFIX
from tenders.management.commands.publish_issue import parse_at
from tenders.models import Category, SourceTender

BATCH = 5000


class Command(BaseCommand):
    help = "Create synthetic tender records (AT-TEST- ids) across all markets and categories."

    def add_arguments(self, parser):
        parser.add_argument("--rows", type=int, default=2000, help="How many (default 2000).")
        parser.add_argument("--seed", type=int, default=7, help="Random seed (default 7).")
        parser.add_argument(
            "--at", help="Reference time deadlines are spread around (ISO 8601). Default: now."
        )
        parser.add_argument(
            "--replace", action="store_true", help="Delete existing AT-TEST- records first."
        )

    def handle(self, *args, rows: int, seed: int, at: str | None, replace: bool, verbosity, **_):
        if rows < 1:
            raise CommandError("--rows must be at least 1.")
        moment = parse_at(at) if at else timezone.now()
        synthetic = SourceTender.objects.filter(listing_id__startswith=TEST_PREFIX)
        if synthetic.exists() and not replace:
            raise CommandError(
                f"{synthetic.count():,} demo records exist already; pass --replace to swap them."
            )
        categories = {c.slug: c for c in Category.objects.all()}
        started = time.monotonic()
        done = 0
        with transaction.atomic():
            if replace:
                deleted, _ = synthetic.delete()
                if verbosity:
                    self.stdout.write(f"Deleted {deleted:,} earlier demo objects.")
            batch = []
            for record in demo_records(rows, seed=seed, at=moment):
                fields = record.__dict__.copy()
                category = categories.get(fields.pop("category_slug"))
                if category is None:
                    raise CommandError("The category vocabulary is missing; run migrate first.")
                batch.append(SourceTender(category=category, **fields))
                if len(batch) == BATCH:
                    SourceTender.objects.bulk_create(batch)
                    done += len(batch)
                    batch = []
                    if verbosity:
                        self.stdout.write(f"  created {done:,} of {rows:,}")
            SourceTender.objects.bulk_create(batch)
            done += len(batch)
        if verbosity:
            elapsed = time.monotonic() - started
            self.stdout.write(
                self.style.SUCCESS(
                    f"Created {done:,} demo records in {elapsed:.1f} s (seed {seed})."
                )
            )

"""The ready-made import sources for the publishers' public endpoints.

    manage.py import_sources --presets            list every preset and whether it is set up
    manage.py import_sources --install [SLUG ...]  create the missing ones (disabled) and update
                                                   the others from their preset

Guarantees: installing creates sources disabled (staff enable them in the admin once
TENDERS_IMPORT_CONTACT is set); installing again changes only what the preset defines (address,
format, market, spacing, note, missing options): names, schedules, enabled flags, checkpoints
and staff's own options are kept. Unknown slugs are refused and nothing is written.
"""

from django.core.management.base import BaseCommand, CommandError

from tenders.importers.presets import PRESETS, UnknownPreset, presets_install
from tenders.models import ImportSource


class Command(BaseCommand):
    help = "List the ready-made sources of the publishers' public endpoints, or install them."

    def add_arguments(self, parser):
        parser.add_argument("--presets", action="store_true", help="List every preset.")
        parser.add_argument(
            "--install",
            nargs="*",
            metavar="SLUG",
            help="Create (disabled) or update these presets' sources; all when none is named.",
        )

    def handle(self, *args, presets, install, verbosity, **options):
        if install is None and not presets:
            raise CommandError("Say --presets (list them) or --install [SLUG ...].")
        if install is not None:
            try:
                done = presets_install(slugs=install or None)
            except UnknownPreset as exc:
                raise CommandError(str(exc)) from exc
            for source, created in done:
                what = "created (disabled)" if created else "updated"
                self.stdout.write(f"{source.preset}: {what} as “{source.name}”")
        if presets:
            self._list()

    def _list(self) -> None:
        installed = {s.preset: s for s in ImportSource.objects.exclude(preset="")}
        for preset in PRESETS:
            source = installed.get(preset.slug)
            if source is None:
                state = "not installed"
            else:
                state = (
                    f"installed as “{source.name}”, {'enabled' if source.enabled else 'disabled'}"
                )
            self.stdout.write(f"{preset.slug}  [{state}]")
            rows = (
                ("market", preset.market),
                ("endpoint", preset.url),
                ("format", preset.format),
                ("limit", f"{preset.limit}; spaced {preset.interval:g} s"),
                ("licence", preset.licence),
            )
            for label, value in rows:
                self.stdout.write(f"  {label:<9} {value}")

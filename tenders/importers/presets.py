"""Ready-made import sources for the publishers' public endpoints (see docs/sources.md for
where each endpoint, parameter and limit was found).

``presets_install`` creates the missing ones **disabled** (staff enable them) and brings
existing ones back to the preset's address, format, spacing and options; a source's name,
schedule, enabled flag, a TED query staff wrote and the checkpoint's window are left alone
(a cursor or a file's validators belong to the address, and go when it changes).
"""

from dataclasses import dataclass, field

from django.db import transaction

from ..models import ImportSource
from . import checkpoints


@dataclass(frozen=True)
class Preset:
    slug: str
    name: str
    market: str
    format: str
    url: str
    interval: float  # seconds between requests: the publisher's limit as a spacing
    limit: str  # the limit as the publisher states it
    licence: str
    every_hours: int
    options: dict = field(default_factory=dict)
    note: str = ""

    def describe(self) -> str:
        return f"Licence: {self.licence}. Limit: {self.limit}. {self.note}".strip()


PRESETS = (
    Preset(
        slug="gb-find-a-tender",
        name="UK Find a Tender: open opportunities",
        market="GB",
        format="ocds",
        url="https://www.find-tender.service.gov.uk/api/1.0/ocdsReleasePackages"
        "?stages=tender&limit=100",
        interval=10.0,
        limit="12 requests in 2 minutes (HTTP 429 above it)",
        licence="Open Government Licence v3.0",
        every_hours=6,
        options={"since_param": "updatedFrom", "since_format": "datetime", "first_days": 7},
        note="Releases updated since the last run, paged by links.next (cursor).",
    ),
    Preset(
        slug="gb-contracts-finder",
        name="UK Contracts Finder: open opportunities",
        market="GB",
        format="ocds",
        url="https://www.contractsfinder.service.gov.uk/Published/Notices/OCDS/Search"
        "?stages=tender&limit=100",
        interval=6.0,
        limit="undocumented; answers 403 or 429 when asked too often (one request at a time)",
        licence="Open Government Licence v3.0",
        every_hours=12,
        options={
            "since_param": "publishedFrom",
            "since_format": "date",
            "overlap_minutes": 1440,
            "first_days": 7,
            "retry_statuses": [403],
        },
        note="Below-threshold notices; published since the last run's day, paged by links.next.",
    ),
    Preset(
        slug="eu-ted",
        name="EU TED: open calls for competition",
        market="EU",
        format="ted",
        url="https://api.ted.europa.eu/v3/notices/search",
        interval=1.0,
        limit="250 notices a search page; fair use (HTTP 429 with Retry-After)",
        licence="TED reuse policy: free reuse with acknowledgement (Decision 2011/833/EU)",
        every_hours=24,
        options={"query": "", "overlap_minutes": 1440, "first_days": 7},
        note="Search (scope ACTIVE, published since the last run's day) then each notice's "
        "eForms XML. Narrow it with options.query (an expert query such as "
        "buyer-country IN (IRL FRA)).",
    ),
    Preset(
        slug="ca-canadabuys-open",
        name="Canada CanadaBuys: open tender notices",
        market="CA",
        format="canadabuys",
        url="https://canadabuys.canada.ca/opendata/pub/openTenderNotice-ouvertAvisAppelOffres.csv",
        interval=0.0,
        limit="one file, refreshed through the day (asked again only when it changed)",
        licence="Open Government Licence - Canada",
        every_hours=4,
        options={"listing": True},
        note="Federal opportunities, both languages; GSIN and UNSPSC codes. The file lists "
        "every open notice: one that leaves it is closed.",
    ),
    Preset(
        slug="au-nsw-etendering",
        name="Australia NSW eTendering: open tenders",
        market="AU",
        format="ocds",
        url="https://www.tenders.nsw.gov.au/?event=public.api.tender.search&ResultsPerPage=1000",
        interval=12.0,
        limit="rate limited by address (API.NSW's open tier: 5 calls a minute)",
        licence="Creative Commons Attribution (CC BY 3.0 AU, as the packages declare)",
        every_hours=12,
        options={
            "since_param": "publishedFrom",
            "since_format": "date",
            "overlap_minutes": 1440,
            "first_days": 14,
        },
        note="AusTender's OCDS API carries contract notices only (awards), not approaches to "
        "market: federal opportunities have no open API (hand-collected CSV).",
    ),
    Preset(
        slug="hk-gld-etender",
        name="Hong Kong GLD e-Tender Box: open tenders",
        market="HK",
        format="gld",
        url="https://pcms2.gld.gov.hk/iportal/TenderNotice.xml",
        interval=0.0,
        limit="one file (asked again only when it changed)",
        licence="DATA.GOV.HK terms and conditions of use",
        every_hours=6,
        options={"listing": True},
        note="Tenders of the departments that use the e-Tender Box, English and Chinese. The "
        "file lists the tenders open now: one that leaves it is closed.",
    ),
)
BY_SLUG = {preset.slug: preset for preset in PRESETS}


class UnknownPreset(ValueError):
    pass


def _fields(preset: Preset) -> dict:
    return {
        "format": preset.format,
        "market": preset.market,
        "url": preset.url,
        "request_interval": preset.interval,
        "note": preset.describe(),
    }


@transaction.atomic
def presets_install(*, slugs: list[str] | None = None) -> list[tuple[ImportSource, bool]]:
    """Create the missing preset sources disabled and update the others: (source, created)."""
    unknown = sorted(set(slugs or []) - set(BY_SLUG))
    if unknown:
        raise UnknownPreset(
            f"Unknown preset(s) {', '.join(unknown)}: use one of {', '.join(BY_SLUG)}."
        )
    chosen = [BY_SLUG[s] for s in slugs] if slugs else list(PRESETS)
    existing = {
        s.preset: s for s in ImportSource.objects.filter(preset__in=[p.slug for p in chosen])
    }
    done = []
    for preset in chosen:
        source = existing.get(preset.slug)
        if source is None:
            taken = ImportSource.objects.filter(name=preset.name).exists()
            source = ImportSource.objects.create(
                name=f"{preset.name} [{preset.slug}]" if taken else preset.name,
                preset=preset.slug,
                enabled=False,
                every_hours=preset.every_hours,
                options=dict(preset.options),
                **_fields(preset),
            )
            done.append((source, True))
            continue
        if source.url != preset.url:
            source.checkpoint = checkpoints.for_new_address(source.checkpoint)
        for name, value in _fields(preset).items():
            setattr(source, name, value)
        # Staff's own query (TED) and tuning stay; the preset fills in what is missing.
        source.options = {**preset.options, **(source.options or {})}
        source.save()
        done.append((source, False))
    return done

"""The ready-made sources of the publishers' public endpoints, imported incrementally and
politely from local servers that speak each publisher's protocol (tests/publisher_servers.py).

For each preset: two scheduled imports (run_schedules, then the job a worker runs), the second
asking only for the newer window (or the file only if it changed) and creating only the new
notices. With a clock shared by the importer and the server (no real waiting): requests spaced
to the published limit, a 429 burst waited out with Retry-After, a killed run resuming from its
checkpoint without duplicates, an expired cursor or token reading its window again.
"""

import itertools
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from tenders import jobs, tasks
from tenders.importers import canadabuys, checkpoints, harvest, ted
from tenders.importers import service as import_service
from tenders.importers.http import HttpPolicy
from tenders.importers.presets import BY_SLUG, PRESETS, presets_install
from tenders.importers.service import ImportFailed, import_from_source
from tenders.models import ImportedNotice, ImportRun, ImportSource, Job, SourceTender
from tests.publisher_servers import (
    FakeClock,
    FileFeed,
    OcdsWindowApi,
    TedApi,
    local,
    serving,
)
from tests.worker_support import (
    messages_of,
    wait_for_job,
    work_off_the_queue,
    worker_process,
)

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parent / "data"
EFORMS = Path(__file__).resolve().parents[2] / "shared" / "data" / "eforms"
CONTACT = "imports@tenders.example.org"
NOW = datetime.now(UTC)


@pytest.fixture(autouse=True)
def contact(settings):
    settings.TENDERS_IMPORT_CONTACT = CONTACT


def installed(slug: str, base: str, **fields) -> ImportSource:
    """The preset's source, pointed at the local server and enabled."""
    [(source, created)] = presets_install(slugs=[slug])
    assert created and not source.enabled
    source.url = local(source.url, base)
    source.enabled = True
    for name, value in fields.items():
        setattr(source, name, value)
    source.save()
    return source


def scheduled_import(source: ImportSource) -> ImportRun:
    """What cron and a worker do: run_schedules queues the source when due, a worker runs it."""
    last = source.runs.order_by("-started_at").first()
    if last is not None:  # the last import was a schedule's interval ago
        ImportRun.objects.filter(pk=last.pk).update(
            started_at=F("started_at") - timedelta(hours=source.every_hours)
        )
    call_command("run_schedules", verbosity=0)
    work_off_the_queue()
    run = source.runs.order_by("-started_at").first()
    assert run != last and run.state == "completed", run.error
    return run


def ids(scheme: str) -> list[str]:
    return sorted(ImportedNotice.objects.filter(scheme=scheme).values_list("notice_id", flat=True))


# --- the presets command ------------------------------------------------------------------


def test_the_presets_are_listed_and_installed_disabled_and_updated_in_place(capsys):
    call_command("import_sources", "--presets")
    out = capsys.readouterr().out
    for preset in PRESETS:
        assert f"{preset.slug}  [not installed]" in out
        for value in (preset.market, preset.url, preset.format, preset.limit, preset.licence):
            assert value in out
    call_command("import_sources", "--install")
    out = capsys.readouterr().out
    assert out.count("created (disabled)") == len(PRESETS)
    sources = {s.preset: s for s in ImportSource.objects.all()}
    assert set(sources) == set(BY_SLUG) and not any(s.enabled for s in sources.values())
    fts = sources["gb-find-a-tender"]
    assert (fts.market, fts.format, fts.request_interval, fts.every_hours) == ("GB", "ocds", 10, 6)
    assert fts.options["since_param"] == "updatedFrom"
    assert "Open Government Licence v3.0" in fts.note and "12 requests in 2 minutes" in fts.note

    # Staff's changes survive an update; what the preset defines comes back.
    ImportSource.objects.filter(pk=fts.pk).update(
        name="FTS",
        enabled=True,
        every_hours=2,
        url="https://wrong.example",
        checkpoint={"since": "2026-11-20T06:00:00+00:00", "next": "https://wrong.example/?c=1"},
    )
    ted_source = sources["eu-ted"]
    ted_source.options = {**ted_source.options, "query": "buyer-country IN (IRL)"}
    ted_source.save()
    call_command("import_sources", "--install", "gb-find-a-tender", "eu-ted")
    assert capsys.readouterr().out == (
        "gb-find-a-tender: updated as “FTS”\neu-ted: updated as “EU TED: open calls for "
        "competition”\n"
    )
    fts.refresh_from_db()
    ted_source.refresh_from_db()
    # The cursor belonged to the wrong address: only where the next window starts is kept.
    assert (fts.name, fts.enabled, fts.every_hours, fts.checkpoint) == (
        "FTS", True, 2, {"since": "2026-11-20T06:00:00+00:00"},
    )  # fmt: skip
    assert fts.url == BY_SLUG["gb-find-a-tender"].url
    assert ted_source.options["query"] == "buyer-country IN (IRL)"
    call_command("import_sources", "--presets")
    assert "gb-find-a-tender  [installed as “FTS”, enabled]" in capsys.readouterr().out

    with pytest.raises(CommandError, match="Unknown preset"):
        call_command("import_sources", "--install", "gb-find-a-tender", "xx-nowhere")
    assert ImportSource.objects.count() == len(PRESETS)


def test_a_preset_source_needs_a_contact_before_it_asks_anyone(settings):
    settings.TENDERS_IMPORT_CONTACT = ""
    source = installed("hk-gld-etender", "http://127.0.0.1:9")
    with pytest.raises(ImportFailed, match="set TENDERS_IMPORT_CONTACT"):
        import_from_source(source)
    assert not ImportRun.objects.exists()


# --- OCDS APIs with a date window: Find a Tender, Contracts Finder, NSW eTendering ----------

OCDS_APIS = {
    # slug: (the API's path, the window's parameter, the page size's parameter, how it is written)
    "gb-find-a-tender": ("/api/1.0/ocdsReleasePackages", "updatedFrom", "limit", "%Y-%m-%dT%H:%M:%S"),
    "gb-contracts-finder": (
        "/Published/Notices/OCDS/Search", "publishedFrom", "limit", "%Y-%m-%d",
    ),
    "au-nsw-etendering": ("/", "publishedFrom", "ResultsPerPage", "%Y-%m-%d"),
}  # fmt: skip


def ocds_api(slug: str) -> OcdsWindowApi:
    path, since, size, _ = OCDS_APIS[slug]
    return OcdsWindowApi(since_param=since, path=path, limit_param=size)


@pytest.mark.parametrize("slug", sorted(OCDS_APIS))
def test_two_scheduled_imports_of_an_ocds_api_ask_only_for_the_newer_window(slug):
    api = ocds_api(slug)
    api.add("ocds-x-old", NOW - timedelta(days=20), title="Old grounds maintenance")
    for n in range(3):
        api.add(f"ocds-x-{n}", NOW - timedelta(days=2, hours=n), title=f"Street cleaning {n}")
    _, since_param, size, written = OCDS_APIS[slug]
    if "stages=tender" in BY_SLUG[slug].url:  # the publisher leaves awards out
        api.add("ocds-x-award", NOW - timedelta(days=2), title="Awarded", stage="award")
    with serving(api) as base:
        source = installed(slug, base, request_interval=0)
        source.url = source.url.replace(f"{size}=100", f"{size}=2").replace(
            f"{size}=1000", f"{size}=2"
        )
        source.save()
        first = scheduled_import(source)
        asked = [r["query"].get(since_param) for r in api.requests]
        source.refresh_from_db()
        assert source.checkpoint == {"since": first.started_at.isoformat()}
        api.add("ocds-x-new", datetime.now(UTC), title="Gritting of footways")
        api.requests.clear()
        second = scheduled_import(source)

    window = first.started_at - timedelta(days=source.options["first_days"])
    assert asked[0] == window.astimezone(UTC).strftime(written)
    assert (first.created, first.read) == (3, 3)
    if "stages=tender" in BY_SLUG[slug].url:
        assert [r["query"]["stages"] for r in api.requests] == ["tender"]
    overlap = timedelta(minutes=source.options.get("overlap_minutes", 60))
    newer = (first.started_at - overlap).astimezone(UTC).strftime(written)
    assert [r["query"][since_param] for r in api.requests] == [newer]
    assert (second.read, second.created, second.updated) == (1, 1, 0)
    assert ids("ocds") == ["ocds-x-0", "ocds-x-1", "ocds-x-2", "ocds-x-new"]
    assert all(CONTACT in r["headers"]["User-Agent"] for r in api.requests)


def paged(slug: str, base: str, size: int = 2) -> ImportSource:
    """The preset's source at the local server, asking ``size`` releases a page."""
    source = installed(slug, base)
    name = OCDS_APIS[slug][2]
    source.url = harvest.with_param(source.url, name, str(size))
    source.save()
    return source


def run_now(source, clock, **kwargs) -> ImportRun:
    return import_from_source(
        source, sleep=clock.sleep, clock=clock, policy=HttpPolicy(attempts=3), **kwargs
    )


# The limit each publisher's server enforces here: (requests, seconds); Contracts Finder does not
# publish one (the server answers only the burst).
LIMITS = {"gb-find-a-tender": (12, 120), "au-nsw-etendering": (5, 60), "gb-contracts-finder": None}


@pytest.mark.parametrize("slug", sorted(OCDS_APIS))
def test_requests_are_spaced_to_the_published_limit_and_a_429_burst_is_waited_out(slug):
    clock = FakeClock()
    api = ocds_api(slug)
    api.clock, api.rate = clock, LIMITS[slug]
    api.burst, api.burst_wait = 2, 45  # someone else's burst was still being paid for
    for n in range(30):
        api.add(f"ocds-b-{n:02}", NOW - timedelta(hours=n), title=f"Bus shelter repair {n}")
    with serving(api) as base:
        source = paged(slug, base)
        run = run_now(source, clock)

    assert (run.state, run.created) == ("completed", 30)
    statuses = [r["status"] for r in api.requests]
    assert statuses == [429, 429] + [200] * 15  # the burst, then 15 pages and no 429 at all
    times = [r["at"] for r in api.requests]
    assert times[1] - times[0] == 45 and times[2] - times[1] == 45  # Retry-After, honoured
    served = times[2:]
    interval = BY_SLUG[slug].interval
    assert [b - a for a, b in itertools.pairwise(served)] == [interval] * 14
    if LIMITS[slug]:
        count, window = LIMITS[slug]
        assert all(served[i + count] - served[i] >= window for i in range(len(served) - count))


def test_contracts_finder_answering_403_when_asked_too_often_is_waited_out():
    clock = FakeClock()
    api = ocds_api("gb-contracts-finder")
    api.burst, api.burst_status, api.clock = 2, 403, clock
    api.add("ocds-cf-1", NOW - timedelta(hours=1), title="Library refurbishment")
    with serving(api) as base:
        run = run_now(installed("gb-contracts-finder", base), clock)
    assert (run.state, run.created) == ("completed", 1)
    assert [r["status"] for r in api.requests] == [403, 403, 200]
    # No Retry-After: the backoff (2 s, then 4 s) instead of the 6 s spacing.
    times = [r["at"] for r in api.requests]
    assert [b - a for a, b in itertools.pairwise(times)] == [2.0, 4.0]


class Killed(BaseException):
    """The worker is killed (nothing after it runs, the run is left as it was)."""


def killer(after: int):
    def progress(phase, done, total):
        if phase == "import" and done >= after:
            raise Killed

    return progress


@pytest.mark.parametrize("expired", [False, True], ids=["resumes", "cursor-expired"])
@pytest.mark.parametrize("slug", sorted(OCDS_APIS))
def test_a_killed_run_resumes_from_its_checkpoint_without_duplicates(slug, expired):
    clock = FakeClock()
    api = ocds_api(slug)
    for n in range(6):
        api.add(f"ocds-k-{n}", NOW - timedelta(hours=10 - n), title=f"Tree surgery {n}")
    with serving(api) as base:
        source = paged(slug, base)
        with pytest.raises(Killed):
            run_now(source, clock, progress=killer(after=4))  # killed on page 2, committed
        source.refresh_from_db()
        killed = source.runs.get()
        assert killed.state == "running" and ids("ocds") == [f"ocds-k-{n}" for n in range(4)]
        assert source.checkpoint["next"].endswith("cursor=c1")  # page 2: its mark was not saved
        if expired:
            api.expired.add("c1")
        api.requests.clear()
        again = run_now(source, clock)

    asked = [(r["query"].get("cursor"), r["status"]) for r in api.requests]
    if expired:
        assert asked == [("c1", 400), (None, 200), ("c3", 200), ("c4", 200)]
        assert again.failures[0]["message"].startswith("the saved cursor has expired")
        assert (again.created, again.unchanged) == (2, 4)
    else:
        assert asked == [("c1", 200), ("c3", 200)]
        assert (again.read, again.created, again.unchanged) == (4, 2, 2)
    assert again.state == "completed"
    assert ids("ocds") == [f"ocds-k-{n}" for n in range(6)]
    assert SourceTender.objects.count() == 6
    source.refresh_from_db()
    # The next window starts where the killed run first asked, so nothing between is missed.
    assert source.checkpoint == {"since": killed.started_at.isoformat()}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_worker_killed_mid_import_leaves_a_checkpoint_the_next_worker_resumes_from(tmp_path):
    api = ocds_api("gb-find-a-tender")
    for n in range(6):
        api.add(f"ocds-w-{n}", NOW - timedelta(hours=10 - n), title=f"Pothole repairs {n}")
    api.held = "c1"  # page 2 waits: the worker is killed while it asks for it
    env = {"TENDERS_IMPORT_CONTACT": CONTACT, "TENDERS_JOB_LEASE_SECONDS": "6"}
    with serving(api) as base:
        source = paged("gb-find-a-tender", base)
        source.request_interval = 0
        source.save()
        job = tasks.import_enqueue(source=source, user=None)
        with worker_process(tmp_path, **env) as worker:
            assert api.reached.wait(60), worker.log_path.read_text()
            worker.kill()
            worker.wait()
        source.refresh_from_db()
        assert source.checkpoint["next"].endswith("cursor=c1")  # page 1 committed and marked
        assert ids("ocds") == ["ocds-w-0", "ocds-w-1"]
        stale = timezone.now() + timedelta(seconds=60)
        [dead] = jobs.jobs_fail_stale(now=stale)
        assert dead.pk == job.pk
        api.released.set()
        api.requests.clear()
        again = jobs.job_retry(job=Job.objects.get(pk=job.pk), user=None)
        with worker_process(tmp_path, **env) as worker:
            done = wait_for_job(again.pk, lambda j: not j.active, worker)

    assert done.state == "succeeded", done.message
    assert [r["query"].get("cursor") for r in api.requests] == ["c1", "c2"]
    assert ids("ocds") == [f"ocds-w-{n}" for n in range(6)]
    assert SourceTender.objects.count() == 6
    assert list(source.runs.order_by("pk").values_list("state", "read", "created")) == [
        ("failed", 2, 2),
        ("completed", 4, 4),
    ]


def test_a_configured_ocds_api_without_a_window_still_reads_every_page():
    api = ocds_api("gb-find-a-tender")
    for n in range(5):
        api.add(f"ocds-p-{n}", NOW - timedelta(days=40 + n), title=f"Parks maintenance {n}")
    with serving(api) as base:
        source = ImportSource.objects.create(
            name="A council's OCDS API",
            format="ocds",
            market="GB",
            url=f"{base}/api/1.0/ocdsReleasePackages?limit=2",
        )
        run = import_from_source(source)
    assert (run.state, run.read, run.created) == ("completed", 5, 5)
    assert [r["query"].get("cursor") for r in api.requests] == [None, "c1", "c2"]
    assert "updatedFrom" not in api.requests[0]["query"]


# --- TED: search, then each notice --------------------------------------------------------

TED_FIRST = {"cn_24_minimal.xml": 2, "cn_24_open.xml": 2, "cn_24_cumbria.xml": 3}
TED_OLD = {"cn_24_maximal.xml": 12}
TED_NEW = {"cn_25.xml": 0, "cn_24_multilingual.xml": 0}


def ted_api(notices: dict) -> TedApi:
    api = TedApi()
    for n, (name, days_ago) in enumerate(notices.items()):
        day = (NOW - timedelta(days=days_ago)).strftime("%Y%m%d")
        api.add(f"{100 + n}-2026", day, (EFORMS / name).read_bytes())
    return api


def folder(name: str) -> str:
    return ted.eforms.piece((EFORMS / name).read_bytes(), name).notice_id


def test_two_scheduled_imports_of_ted_search_then_fetch_only_the_newer_notices():
    api = ted_api({**TED_FIRST, **TED_OLD})
    with serving(api) as base:
        source = installed("eu-ted", base, request_interval=0)
        source.options = {**source.options, "query": "buyer-country IN (GBR IRL)"}
        source.save()
        first = scheduled_import(source)
        first_asked = [r for r in api.requests if r["method"] == "POST"]
        assert first.created == 3 and ids("eforms") == sorted(folder(n) for n in TED_FIRST)
        for n, name in enumerate(TED_NEW):
            api.add(f"{200 + n}-2026", NOW.strftime("%Y%m%d"), (EFORMS / name).read_bytes())
        api.add("299-2026", NOW.strftime("%Y%m%d"), b"")
        api.missing.add("299-2026")
        api.requests.clear()
        second = scheduled_import(source)

    window = (first.started_at - timedelta(days=7)).strftime("%Y%m%d")
    assert first_asked[0]["body"]["query"] == (
        f"(buyer-country IN (GBR IRL)) AND publication-date >= {window}"
    )
    newer = (first.started_at - timedelta(days=1)).strftime("%Y%m%d")
    searches = [r["body"] for r in api.requests if r["method"] == "POST"]
    assert searches[0]["query"].endswith(f"publication-date >= {newer}")
    fetched = [r["path"] for r in api.requests if r["method"] == "GET"]
    assert fetched == [f"/en/notice/{n}-2026/xml" for n in (200, 201, 299)]
    assert (second.read, second.created, second.failed) == (2, 2, 1)
    assert second.failures[0]["message"].endswith("TED found it but has no XML for it.")
    assert ids("eforms") == sorted(folder(n) for n in {**TED_FIRST, **TED_NEW})
    assert all(CONTACT in r["headers"]["User-Agent"] for r in api.requests)


def test_a_ted_run_killed_mid_way_resumes_and_an_expired_token_asks_again():
    clock = FakeClock()
    api = ted_api({**TED_FIRST, "cn_25.xml": 1})
    api.page_size, api.clock = 2, clock
    with serving(api) as base:
        source = installed("eu-ted", base)
        with pytest.raises(Killed):
            run_now(source, clock, progress=killer(after=3))
        source.refresh_from_db()
        assert source.checkpoint["next"] == "t1"
        api.expired.add("t1")
        api.requests.clear()
        again = run_now(source, clock)

    searches = [
        (r["body"].get("iterationNextToken"), r["status"]) for r in api.requests if r["body"]
    ]
    assert searches[:2] == [("t1", 400), (None, 200)]
    assert again.failures[0]["message"].startswith("the saved iteration token has expired")
    assert again.state == "completed" and SourceTender.objects.count() == 4
    assert sorted(ids("eforms")) == sorted(folder(n) for n in [*TED_FIRST, "cn_25.xml"])
    # TED's one-second spacing: each request a second after the one before.
    times = [r["at"] for r in api.requests]
    assert {b - a for a, b in itertools.pairwise(times)} == {1.0}


def test_ted_searches_wait_out_a_429_burst_and_keep_their_spacing():
    clock = FakeClock()
    api = ted_api(TED_FIRST)
    api.clock, api.burst, api.burst_wait = clock, 2, 15
    with serving(api) as base:
        run = run_now(installed("eu-ted", base), clock)
    assert (run.state, run.created) == ("completed", 3)
    statuses = [(r["method"], r["status"]) for r in api.requests]
    assert statuses == [
        ("POST", 429),
        ("POST", 429),
        ("POST", 200),
        *[("GET", 200)] * 3,
        ("POST", 200),
    ]
    times = [r["at"] for r in api.requests]
    assert [b - a for a, b in itertools.pairwise(times)] == [15, 15, 1, 1, 1, 1]


# --- files: CanadaBuys CSV and the GLD XML -------------------------------------------------


def test_two_scheduled_imports_of_canadabuys_read_the_file_only_when_it_changed():
    feed = FileFeed("/opendata/pub/openTenderNotice-ouvertAvisAppelOffres.csv", "text/csv")
    feed.publish((DATA / "canadabuys" / "openTenderNotice-1.csv").read_bytes())
    with serving(feed) as base:
        source = installed("ca-canadabuys-open", base)
        first = scheduled_import(source)
        unchanged = scheduled_import(source)
        feed.publish((DATA / "canadabuys" / "openTenderNotice-2.csv").read_bytes())
        second = scheduled_import(source)

    assert (first.read, first.created) == (3, 3)
    assert [r["status"] for r in feed.requests] == [200, 304, 200]
    assert feed.requests[1]["headers"]["If-None-Match"] == '"v1"'
    assert (unchanged.read, unchanged.created) == (0, 0)
    assert (second.read, second.created, second.unchanged) == (4, 1, 3)
    source.refresh_from_db()
    assert source.checkpoint["etag"] == '"v2"'

    snow = SourceTender.objects.get(imported__notice_id="cb-900-11111111")
    assert (snow.market, snow.title, snow.reference) == (
        "CA",
        "Snow removal services - Moncton",
        "W0101-26X001/A",
    )
    assert snow.deadline == datetime(2027, 1, 15, 19, 0, tzinfo=UTC)  # 14:00 in Toronto (EST)
    roof = SourceTender.objects.get(imported__notice_id="cb-900-33333333")
    assert roof.title == "Réfection de toiture - Québec" and roof.buyer_name == "Parcs Canada"
    assert "no English title: the private title is in French" in roof.imported.notes
    laptops = SourceTender.objects.get(imported__notice_id="cb-900-22222222")
    assert laptops.concepts[0].startswith("302")  # GSIN 7021B through the concordance: computers


def test_canadabuys_cells_and_columns():
    assert canadabuys.values("*7021B\n*7035\r\n*") == ["7021B", "7035"]
    notice = canadabuys.build(
        "cb-1",
        [
            {
                "title-titre-eng": "Roofing",
                "tenderClosingDate-appelOffresDateCloture": "2027-02-02",
                "tenderStatus-appelOffresStatut-eng": "Cancelled",
                "gsin-nibs": "*N5610",
                "unspsc": "*72152600",
                "procurementCategory-categorieApprovisionnement": "CNST",
                "procurementMethod-methodeApprovisionnement-eng": "Competitive – Open Bidding",
            }
        ],
    )
    assert (notice.state, notice.nature, notice.procedure) == ("cancelled", "works", "open")
    assert notice.classifications == (("GSIN", "N5610", ""), ("UNSPSC", "72152600", ""))
    assert notice.closed_reason == "cancelled by the buyer (tender status Cancelled)"


def test_two_scheduled_imports_of_the_gld_file_read_it_only_when_it_changed():
    xml = (DATA / "gld" / "TenderNotice.xml").read_text()
    feed = FileFeed("/iportal/TenderNotice.xml", "application/xml")
    feed.publish(xml.encode())
    with serving(feed) as base:
        source = installed("hk-gld-etender", base)
        first = scheduled_import(source)
        unchanged = scheduled_import(source)
        added = xml.replace(
            "<TenderNoticeRecord>",
            "<TenderNoticeRecord><TenderNo>A9900992026</TenderNo>"
            "<SubjectEnglish>Supply of Road Salt</SubjectEnglish>"
            "<ClosingDateTime>2027-01-20T12:00:00</ClosingDateTime>"
            "<IssueDateTime>2026-11-27T09:00:00</IssueDateTime></TenderNoticeRecord>"
            "<TenderNoticeRecord>",
            1,
        )
        feed.publish(added.encode())
        second = scheduled_import(source)
        # The tender leaves the file (cancelled, withdrawn): its record closes; it comes back.
        without = re.sub(r"<TenderNoticeRecord><TenderNo>A9900992026</TenderNo>.*?"
                         r"</TenderNoticeRecord>", "", added, flags=re.S)  # fmt: skip
        feed.publish(without.encode())
        gone = scheduled_import(source)
        salt = SourceTender.objects.get(imported__notice_id="A9900992026")
        closed = (salt.status, salt.imported.closed_reason)
        feed.publish(added.encode())
        back = scheduled_import(source)

    assert [r["status"] for r in feed.requests] == [200, 304, 200, 200, 200]
    assert (unchanged.read, unchanged.created) == (0, 0)
    assert second.created == 1 and second.read == first.read + 1
    assert "A9900992026" in ids("gld")
    assert (gone.read, gone.closed, gone.unchanged) == (first.read, 1, first.read)
    assert closed == ("closed", import_service.GONE_REASON)
    assert (back.updated, back.closed) == (1, 0)
    salt.refresh_from_db()
    assert (salt.status, salt.imported.closed_reason) == ("draft", "")
    assert SourceTender.objects.filter(status="closed").count() == 0


@pytest.mark.parametrize("slug", ["ca-canadabuys-open", "hk-gld-etender"])
def test_a_file_preset_waits_out_a_429_burst_and_a_killed_run_reads_the_file_again(slug):
    clock = FakeClock()
    path, kind, content = {
        "ca-canadabuys-open": (
            "/opendata/pub/openTenderNotice-ouvertAvisAppelOffres.csv",
            "text/csv",
            DATA / "canadabuys" / "openTenderNotice-1.csv",
        ),
        "hk-gld-etender": (
            "/iportal/TenderNotice.xml",
            "application/xml",
            DATA / "gld" / "TenderNotice.xml",
        ),
    }[slug]
    feed = FileFeed(path, kind)
    feed.clock, feed.burst, feed.burst_wait = clock, 1, 20
    feed.publish(content.read_bytes())
    with serving(feed) as base:
        source = installed(slug, base)
        with pytest.raises(Killed):  # killed once the records are committed, before the mark
            run_now(source, clock, progress=killer(after=1))
        source.refresh_from_db()
        assert source.checkpoint == {} and SourceTender.objects.count() == 3
        again = run_now(source, clock)

    assert [r["status"] for r in feed.requests] == [429, 200, 200]
    assert feed.requests[1]["at"] - feed.requests[0]["at"] == 20
    assert "If-None-Match" not in feed.requests[2]["headers"]  # nothing was kept: all again
    assert (again.read, again.created, again.unchanged) == (3, 0, 3)
    assert SourceTender.objects.count() == 3
    source.refresh_from_db()
    assert source.checkpoint["etag"] == '"v1"'


# --- pure parts ---------------------------------------------------------------------------


def test_windows_parameters_and_checkpoints():
    now = datetime(2026, 11, 27, 18, 0, tzinfo=UTC)
    assert checkpoints.window_start({}, {}, now) == now - timedelta(days=7)
    assert checkpoints.window_start(
        {"overlap_minutes": 30}, {"since": "2026-11-27T06:00:00+00:00"}, now
    ) == datetime(2026, 11, 27, 5, 30, tzinfo=UTC)
    assert harvest.with_param("https://x/a?stages=tender&updatedFrom=1", "updatedFrom", "2") == (
        "https://x/a?stages=tender&updatedFrom=2"
    )
    assert checkpoints.finish(
        {"asked_at": "A", "next": "n", "window_from": "w", "etag": '"e"'}, started=now
    ) == {"since": "A", "etag": '"e"'}
    assert ted.search_body("", since_day="20261120", token=None)["query"] == (
        "publication-date >= 20261120"
    )
    found, token = ted.page_notices(
        {"notices": [{"publication-number": ["1-2026"]}, {"x": 1}], "iterationNextToken": "t"}
    )
    assert (found, token) == ([("1-2026", "https://ted.europa.eu/en/notice/1-2026/xml")], "t")


def test_the_admin_action_adds_the_ready_made_sources_without_a_selection(admin_client):
    url = reverse("admin:tenders_importsource_changelist")
    response = admin_client.post(url, {"action": "install_presets"}, follow=True)
    assert messages_of(response) == [
        "Ready-made sources: added 6 (disabled: enable them once checked). Each one's note gives "
        "its licence and limits; imports from them need TENDERS_IMPORT_CONTACT set."
    ]
    assert sorted(ImportSource.objects.filter(enabled=False).values_list("preset", flat=True)) == (
        sorted(BY_SLUG)
    )
    again = admin_client.post(url, {"action": "install_presets"}, follow=True)
    assert messages_of(again)[0].startswith("Ready-made sources: updated 6.")
    assert ImportSource.objects.count() == 6
    # A source's own page saves its options and checkpoint (staff may reset the checkpoint).
    source = ImportSource.objects.get(preset="hk-gld-etender")
    page = reverse("admin:tenders_importsource_change", args=[source.pk])
    form = {
        "name": source.name, "format": "gld", "market": "HK", "url": source.url,
        "every_hours": "6", "request_interval": "0", "options": "{}", "checkpoint": "",
        "note": source.note,
    }  # fmt: skip
    assert admin_client.post(page, form).status_code == 302
    source.refresh_from_db()
    assert (source.options, source.checkpoint, source.enabled) == ({}, {}, False)
    # A new address drops the old one's validators, keeping where the next window starts.
    kept = {"since": "2026-11-27T06:00:00+00:00", "etag": '"v9"'}
    ImportSource.objects.filter(pk=source.pk).update(checkpoint=kept)
    moved = {**form, "url": "https://example.org/TenderNotice.xml", "checkpoint": json.dumps(kept)}
    assert admin_client.post(page, moved).status_code == 302
    source.refresh_from_db()
    assert source.checkpoint == {"since": "2026-11-27T06:00:00+00:00"}


def test_a_dry_run_of_a_source_reads_but_keeps_no_checkpoint():
    feed = FileFeed("/iportal/TenderNotice.xml", "application/xml")
    feed.publish((DATA / "gld" / "TenderNotice.xml").read_bytes())
    with serving(feed) as base:
        source = installed("hk-gld-etender", base)
        run = import_from_source(source, dry_run=True)
    source.refresh_from_db()
    assert run.state == "completed" and run.read == 3 and run.pk is None
    assert source.checkpoint == {} and not SourceTender.objects.exists()


def test_the_new_formats_import_by_hand_too(capsys):
    """``import_notices canadabuys FILE`` and ``import_notices ted SEARCH_URL`` (the last week,
    no query), without a configured source or checkpoint."""
    call_command(
        "import_notices", "canadabuys", str(DATA / "canadabuys" / "openTenderNotice-2.csv")
    )
    assert "created           4" in capsys.readouterr().out
    api = ted_api({**TED_FIRST, **TED_OLD})
    with serving(api) as base:
        call_command("import_notices", "ted", f"{base}/v3/notices/search")
    assert "created           3" in capsys.readouterr().out
    assert ids("eforms") == sorted(folder(n) for n in TED_FIRST)
    assert ImportedNotice.objects.filter(scheme="canadabuys").count() == 4

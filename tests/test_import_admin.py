"""The imports admin: configured sources with "Import now", file upload, runs with their
failures, and the permission to import (refused requests write nothing)."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from tenders.jobs import job_retry, jobs_fail_stale
from tenders.models import ImportedNotice, ImportRun, ImportSource, Job, SourceTender
from tests.worker_support import work_off_the_queue

pytestmark = pytest.mark.django_db

HK_FIXTURE = Path(__file__).resolve().parent / "data" / "gld"
UPLOAD = "admin:tenders_importrun_upload"
CSV = (
    "id,title,buyer,deadline\n"
    "GEBIZ-1,Supply of office furniture,Land Transport Authority,2026-12-20T17:00\n"
    "GEBIZ-2,Security guarding at depots,Land Transport Authority,soon\n"
)


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


@pytest.fixture
def clerk(client):
    """A staff member who may read runs and sources but not import."""
    user = get_user_model().objects.create_user("clerk", password="x", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_importrun", "view_importsource"])
    )
    client.force_login(user)
    return client


def upload(client, content: str, name="batch.csv", **fields):
    data = {"format": "csv", "market": "SG", "file": SimpleUploadedFile(name, content.encode())}
    data.update(fields)
    return client.post(reverse(UPLOAD), data, follow=True)


def upload_and_run(client, content: str, **fields) -> Job:
    """Upload, see it queued on the runs page, let a worker run it; the finished job."""
    response = upload(client, content, **fields)
    job = Job.objects.order_by("-pk").first()
    assert response.redirect_chain == [(reverse("admin:tenders_importrun_changelist"), 302)]
    assert messages_of(response) == [
        f"Queued {job.label} as job #{job.pk}; a worker runs it, and this page shows its "
        "progress and outcome."
    ]
    assert (job.state, job.kind, job.requested_by.username) == ("queued", "import", "admin")
    work_off_the_queue()
    job.refresh_from_db()
    return job


def test_upload_queues_an_import_that_opens_the_run_with_its_failures(admin_client):
    job = upload_and_run(admin_client, CSV)
    run = ImportRun.objects.get()
    assert (job.state, job.label, job.subject_id) == (
        "succeeded",
        "Import upload batch.csv",
        str(run.pk),
    )
    assert job.message == (
        f"Imported upload batch.csv: 2 read: 1 created, 0 updated, 0 unchanged, 0 closed at "
        f"source, 1 failed. Open run {run.pk} for the failures."
    )
    assert (run.location, run.market, run.started_by.username) == (
        "upload batch.csv",
        "SG",
        "admin",
    )
    html = admin_client.get(reverse("admin:tenders_importrun_change", args=[run.pk]))
    assert re.search(
        r"<td>batch.csv line 3</td><td>SG:GEBIZ-2</td><td>deadline &#x27;soon&#x27; is not a date",
        html.content.decode(),
    )
    assert SourceTender.objects.get().title == "Supply of office furniture"
    # The kept copy of the file is gone once its import has run.
    assert not default_storage.exists(job.arguments["files"][0])
    again = upload_and_run(admin_client, CSV)
    assert again.message.startswith(
        "Imported upload batch.csv: 2 read: 0 created, 0 updated, 1 unchanged"
    )
    listing = admin_client.get(reverse("admin:tenders_importrun_changelist")).content.decode()
    assert "Import a file" in listing
    assert listing.count("upload batch.csv") == 4  # two runs; the last job: label and outcome


def test_upload_refuses_bad_input_with_reasons_and_writes_nothing(admin_client, settings):
    wrong_suffix = upload(admin_client, CSV, name="batch.txt")
    assert wrong_suffix.context["form"].errors == {
        "file": ["batch.txt: a csv file ends in .csv (or upload a .zip)."]
    }
    no_market = upload(admin_client, CSV, market="")
    assert no_market.context["form"].errors == {
        "market": [
            "Say which market csv notices are for (--market, one of HK, MO, SG, GB, EU, AU, CA)."
        ]
    }
    settings.TENDERS_IMPORT_UPLOAD_MAX_BYTES = 10
    too_big = upload(admin_client, CSV)
    assert too_big.context["form"].errors["file"] == [
        "The files are larger than 0 MB together: import them with manage.py import_notices on "
        "the server instead."
    ]
    assert Job.objects.count() == 0
    settings.TENDERS_IMPORT_UPLOAD_MAX_BYTES = 1_000_000
    dry = upload_and_run(admin_client, CSV, dry_run="on")
    assert (dry.label, dry.state, dry.message) == (
        "Dry run of upload batch.csv",
        "succeeded",
        "Dry run of upload batch.csv, nothing was written: 2 read: 1 created, 0 updated, "
        "0 unchanged, 0 closed at source, 1 failed.",
    )
    assert ImportRun.objects.count() == 0
    unreadable = upload_and_run(admin_client, "title,deadline\nx,2026-12-01\n")
    assert (unreadable.state, unreadable.message) == (
        "failed",
        "Import of upload batch.csv failed: batch.csv has no id, buyer column(s); the header "
        "must name at least id, title, buyer, deadline (docs/importing.md lists every column).",
    )
    assert SourceTender.objects.count() == 0
    assert ImportRun.objects.get().state == "failed"
    listing = admin_client.get(reverse("admin:tenders_importrun_changelist")).content.decode()
    assert "batch.csv has no id, buyer column(s)" in listing


def test_an_upload_whose_worker_died_keeps_its_file_and_can_be_retried(admin_client, settings):
    upload(admin_client, CSV)
    job = Job.objects.get()
    # A worker took it and died before finishing (no heartbeat since, past the lease).
    gone = timezone.now() - timedelta(seconds=settings.TENDERS_JOB_LEASE_SECONDS + 1)
    Job.objects.filter(pk=job.pk).update(state="running", started_at=gone, heartbeat_at=gone)
    [dead] = jobs_fail_stale()
    assert default_storage.exists(dead.arguments["files"][0])
    retried = job_retry(job=dead, user=dead.requested_by)
    assert retried.arguments == dead.arguments
    work_off_the_queue()
    retried.refresh_from_db()
    assert retried.state == "succeeded", retried.message
    assert SourceTender.objects.get().title == "Supply of office furniture"


def test_import_now_from_a_configured_source(admin_client):
    add = admin_client.post(
        reverse("admin:tenders_importsource_add"),
        {"name": "GLD e-Tender Box", "format": "gld", "market": "", "url": str(HK_FIXTURE),
         "enabled": "on"},
    )  # fmt: skip
    assert add.status_code == 302
    source = ImportSource.objects.get()
    assert source.market == "HK"
    response = admin_client.post(
        reverse("admin:tenders_importsource_changelist"),
        {"action": "import_now", "_selected_action": [source.pk]},
        follow=True,
    )
    # jobs: the action queues the import for a worker (tests/test_import_jobs.py follows it).
    assert messages_of(response)[1].startswith("Queued 1 import(s) as job(s) #")
    work_off_the_queue()
    assert Job.objects.get().message == (
        "Imported from GLD e-Tender Box: 3 read: 3 created, 0 updated, 0 unchanged, 0 closed "
        "at source, 0 failed."
    )
    run = ImportRun.objects.get()
    assert (run.source, run.format, run.state) == (source, "gld", "completed")
    assert ImportedNotice.objects.filter(source=source).count() == 3
    assert (
        "completed"
        in admin_client.get(reverse("admin:tenders_importsource_changelist")).content.decode()
    )


def test_source_form_checks_market_and_address(admin_client):
    response = admin_client.post(
        reverse("admin:tenders_importsource_add"),
        {"name": "TED", "format": "eforms", "market": "GB", "url": "ftp://x", "enabled": "on"},
    )
    assert response.context["adminform"].form.errors == {
        "market": ["eforms notices are always EU, not GB."],
        "url": ["Give an http(s) address, or an absolute path on the server."],
    }
    assert ImportSource.objects.count() == 0


def test_importing_needs_the_permission(clerk):
    source = ImportSource.objects.create(name="GLD", format="gld", market="HK", url=str(HK_FIXTURE))
    assert clerk.get(reverse("admin:tenders_importrun_changelist")).status_code == 200
    assert (
        "Import a file"
        not in clerk.get(reverse("admin:tenders_importrun_changelist")).content.decode()
    )
    assert clerk.get(reverse(UPLOAD)).status_code == 403
    refused = upload(clerk, CSV)
    assert refused.status_code == 403
    action = clerk.post(
        reverse("admin:tenders_importsource_changelist"),
        {"action": "import_now", "_selected_action": [source.pk]},
        follow=True,
    )
    # The action is not offered to the clerk, so posting it does nothing.
    assert (action.status_code, messages_of(action)) == (200, [])
    assert "Import now" not in action.content.decode()
    assert ImportRun.objects.count() == SourceTender.objects.count() == 0


def test_a_record_page_says_where_it_came_from_and_why_it_closed(admin_client):
    from tenders.importers.service import import_notices

    eforms = Path(__file__).resolve().parents[2] / "shared" / "data" / "eforms"
    run = import_notices("eforms", str(eforms))
    voided = ImportedNotice.objects.get(notice_id="4805c409-5939-4be9-8abd-837f7a5fee23").tender
    html = admin_client.get(
        reverse("admin:tenders_sourcetender_change", args=[voided.pk])
    ).content.decode()
    assert (
        "EFORMS notice <code>4805c409-5939-4be9-8abd-837f7a5fee23</code>, state at source: "
        f'cancelled (last import: <a href="/admin/tenders/importrun/{run.pk}/change/">run '
        f"{run.pk}</a>)</p><p><strong>Closed at source:</strong> cancelled by the buyer (change "
        "notice with reason cancel)</p>"
    ) in html
    closed = admin_client.get(
        reverse("admin:tenders_sourcetender_changelist"), {"status__exact": "closed"}
    )
    assert [r.pk for r in closed.context["cl"].result_list] == [voided.pk]


def _zip(files: dict[str, str]) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


WEEK = {
    "week/monday.csv": CSV,
    "week/tuesday.csv": "id,title,buyer,deadline\n"
    "GEBIZ-3,Cleaning of offices,Housing Board,2026-12-22T17:00\n",
    "week/README.txt": "not a notice file: left out",
}


def test_a_zip_or_several_files_import_as_one_run_with_counts_for_each_file(admin_client):
    zipped = SimpleUploadedFile("week.zip", _zip(WEEK), content_type="application/zip")
    dry = upload(admin_client, "", file=zipped, dry_run="on")
    job = Job.objects.get()
    assert job.label == "Dry run of upload week.zip"
    work_off_the_queue()
    job.refresh_from_db()
    assert job.message == (
        "Dry run of upload week.zip, nothing was written: 3 read: 2 created, 0 updated, "
        "0 unchanged, 0 closed at source, 1 failed."
    )
    assert job.result["files"] == {
        "monday.csv": {"read": 2, "created": 1, "updated": 0, "unchanged": 0, "skipped": 0,
                       "failed": 1},
        "tuesday.csv": {"read": 1, "created": 1, "updated": 0, "unchanged": 0, "skipped": 0,
                        "failed": 0},
    }  # fmt: skip
    assert dry.status_code == 200 and not SourceTender.objects.exists()

    # Several files selected together: one run, one job, the counts of each file on the run.
    files = [
        SimpleUploadedFile("monday.csv", WEEK["week/monday.csv"].encode()),
        SimpleUploadedFile("tuesday.csv", WEEK["week/tuesday.csv"].encode()),
    ]
    done = upload_and_run(admin_client, "", file=files)
    assert done.label == "Import upload monday.csv, tuesday.csv (2 files)"
    run = ImportRun.objects.get()
    assert (run.read, run.created, run.failed) == (3, 2, 1)
    assert run.files["tuesday.csv"]["created"] == 1
    page = admin_client.get(reverse("admin:tenders_importrun_change", args=[run.pk]))
    assert (
        "<tr><td>monday.csv</td><td>2</td><td>1</td><td>0</td><td>0</td><td>0</td><td>1</td>"
        in (page.content.decode())
    )
    assert SourceTender.objects.count() == 2
    assert not default_storage.exists(done.arguments["files"][0])


def test_uploads_of_several_files_keep_the_limits(admin_client, settings):
    bad = upload(admin_client, "", file=SimpleUploadedFile("week.zip", b"not a zip"))
    assert bad.context["form"].errors["file"] == ["week.zip is not a readable .zip file."]
    empty = upload(admin_client, "", file=SimpleUploadedFile("w.zip", _zip({"a.txt": "x"})))
    assert empty.context["form"].errors["file"] == [
        "w.zip holds no csv files (names ending in .csv)."
    ]
    # The limit holds for a zip's files as they unpack, not only for the zip itself.
    big = _zip({"big.csv": CSV + "x" * 50_000})
    settings.TENDERS_IMPORT_UPLOAD_MAX_BYTES = 20_000
    assert len(big) < 20_000
    refused = upload(admin_client, "", file=SimpleUploadedFile("big.zip", big))
    assert (
        refused.context["form"]
        .errors["file"][0]
        .startswith("The files are larger than 0 MB together")
    )
    settings.TENDERS_IMPORT_UPLOAD_MAX_FILES = 1
    files = [SimpleUploadedFile(n, CSV.encode()) for n in ("a.csv", "b.csv")]
    many = upload(admin_client, "", file=files)
    assert many.context["form"].errors["file"] == ["2 files: upload at most 1 at once."]
    assert not Job.objects.exists()


def test_files_are_told_apart_by_the_readers_places_and_uploads_are_named_for_people():
    from tenders.importers.service import file_of
    from tenders.tasks import upload_title

    assert file_of("a b.json #3") == "a b.json"
    assert file_of("week.csv line 7") == "week.csv"
    assert file_of("TenderNotice.xml record 2") == "TenderNotice.xml"
    assert file_of("cn_24_open.xml") == "cn_24_open.xml"
    assert upload_title(["week.zip"]) == "week.zip"
    assert upload_title(["a.json", "b.json"]) == "a.json, b.json (2 files)"
    assert upload_title([f"{n}.json" for n in range(21)]) == "0.json, 1.json, 2.json, … (21 files)"

"""The imports admin: configured sources with "Import now", file upload, runs with their
failures, and the permission to import (refused requests write nothing)."""

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

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


def test_upload_imports_and_opens_the_run_with_its_failures(admin_client):
    response = upload(admin_client, CSV)
    run = ImportRun.objects.get()
    assert response.redirect_chain == [
        (reverse("admin:tenders_importrun_change", args=[run.pk]), 302)
    ]
    assert messages_of(response) == [
        f"Imported upload batch.csv: 2 read: 1 created, 0 updated, 0 unchanged, 0 closed at "
        f"source, 1 failed. Open run {run.pk} for the failures."
    ]
    assert (run.location, run.market, run.started_by.username) == (
        "upload batch.csv",
        "SG",
        "admin",
    )
    html = response.content.decode()
    assert re.search(
        r"<td>batch.csv line 3</td><td>SG:GEBIZ-2</td><td>deadline &#x27;soon&#x27; is not a date",
        html,
    )
    assert SourceTender.objects.get().title == "Supply of office furniture"
    again = upload(admin_client, CSV)
    assert messages_of(again)[0].startswith(
        "Imported upload batch.csv: 2 read: 0 created, 0 updated, 1 unchanged"
    )
    listing = admin_client.get(reverse("admin:tenders_importrun_changelist")).content.decode()
    assert "Import a file" in listing
    assert listing.count("upload batch.csv") == 2


def test_upload_refuses_bad_input_with_reasons_and_writes_nothing(admin_client, settings):
    wrong_suffix = upload(admin_client, CSV, name="batch.txt")
    assert wrong_suffix.context["form"].errors == {"file": ["A csv file ends in .csv."]}
    no_market = upload(admin_client, CSV, market="")
    assert no_market.context["form"].errors == {
        "market": [
            "Say which market csv notices are for (--market, one of HK, MO, SG, GB, EU, AU, CA)."
        ]
    }
    settings.TENDERS_IMPORT_UPLOAD_MAX_BYTES = 10
    too_big = upload(admin_client, CSV)
    assert too_big.context["form"].errors["file"] == [
        "The file is larger than 0 MB: import it with manage.py import_notices on the server "
        "instead."
    ]
    settings.TENDERS_IMPORT_UPLOAD_MAX_BYTES = 1_000_000
    dry = upload(admin_client, CSV, dry_run="on")
    assert messages_of(dry) == [
        "Dry run of upload batch.csv, nothing was written: 2 read: 1 created, 0 updated, "
        "0 unchanged, 0 closed at source, 1 failed."
    ]
    unreadable = upload(admin_client, "title,deadline\nx,2026-12-01\n")
    assert messages_of(unreadable) == [
        "Import of upload batch.csv failed: batch.csv has no id, buyer column(s); the header "
        "must name at least id, title, buyer, deadline (see the README for every column)."
    ]
    assert SourceTender.objects.count() == 0
    assert ImportRun.objects.get().state == "failed"


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

from datetime import timedelta

import jsonschema
import pytest
from django.core.files.storage import default_storage
from django.db import DatabaseError

from tenders import contract, publication
from tenders.models import Issue, Job
from tenders.read import current, selectors
from tests.factories import SourceTenderFactory

pytestmark = pytest.mark.django_db
HEALTH = jsonschema.Draft202012Validator(contract.load("service.health.v1.json"))


def test_health_is_unavailable_before_the_first_issue(client):
    response = client.get("/api/v1/health")
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "rows_total": 0,
        "issue_id": None,
        "generated": None,
        "feed_fresh": False,
        "schema": "service.tender.v1",
        "reasons": [
            {
                "code": "nothing_published",
                "message": "No issue is published yet: publish one from the admin.",
            }
        ],
    }
    assert response["Cache-Control"] == "no-store"


def test_health_ok_then_degraded_when_stale(client, t0):
    SourceTenderFactory()
    publication.publish_issue(now=t0)
    record = selectors.feed_health(now=t0 + timedelta(days=8))
    assert record == {
        "status": "ok",
        "rows_total": 1,
        "issue_id": "2026-W48",
        "generated": "2026-11-23T06:00:00Z",
        "feed_fresh": True,
        "schema": "service.tender.v1",
    }
    stale = selectors.feed_health(now=t0 + timedelta(days=8, seconds=1))
    assert (stale["status"], stale["feed_fresh"], stale["rows_total"]) == ("degraded", False, 1)
    assert [r["code"] for r in stale["reasons"]] == ["feed_stale"]
    assert "published 8 days ago (more than 8): publish" in stale["reasons"][0]["message"]
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json()["issue_id"] == "2026-W48"


def test_health_answers_json_when_the_database_fails(client, monkeypatch):
    def down():
        raise DatabaseError("connection refused")

    monkeypatch.setattr(current, "current_issue", lambda **_: down())
    response = client.get("/api/v1/health")
    assert response.status_code == 503 and response.json()["status"] == "unavailable"
    assert response.json()["reasons"] == [
        {
            "code": "database_unavailable",
            "message": "The database does not answer; the service recovers by itself when it does.",
        }
    ]


def test_a_missing_flat_file_degrades_health(client, t0):
    SourceTenderFactory()
    issue = publication.publish_issue(now=t0).issue
    default_storage.delete(Issue.objects.get(pk=issue.pk).flat_file)
    record = selectors.feed_health(now=t0 + timedelta(hours=1))
    assert record["status"] == "degraded" and record["feed_fresh"] is True
    assert [r["code"] for r in record["reasons"]] == ["flat_file_missing"]
    assert "every web server must see the storage" in record["reasons"][0]["message"]
    assert client.get("/tender/rows.json").status_code == 503
    HEALTH.validate(record)


def test_a_job_waiting_past_the_limit_degrades_health(t0, settings):
    SourceTenderFactory()
    publication.publish_issue(now=t0)
    settings.TENDERS_HEALTH_QUEUE_MAX_AGE_SECONDS = 600
    Job.objects.create(kind="import", label="An import", task_path="x", enqueued_at=t0)
    fine = selectors.feed_health(now=t0 + timedelta(seconds=599))
    assert fine["status"] == "ok" and "reasons" not in fine
    late = selectors.feed_health(now=t0 + timedelta(minutes=25))
    assert late["status"] == "degraded"
    assert late["reasons"] == [
        {
            "code": "queue_stalled",
            "message": "1 job queued for more than 10 min (the oldest 25 min): is a job worker "
            "running (manage.py run_worker)?",
        }
    ]
    HEALTH.validate(late)


def test_staff_see_what_is_wrong_on_the_admin_index(admin_client, t0):
    SourceTenderFactory()
    issue = publication.publish_issue(now=t0).issue
    page = admin_client.get("/admin/").content.decode()
    assert "flat_file_missing" not in page  # a fresh feed whose file exists: nothing to say
    default_storage.delete(Issue.objects.get(pk=issue.pk).flat_file)
    page = admin_client.get("/admin/").content.decode()
    assert "Feed degraded: The flat file of 2026-W48 is not in the file storage" in page
    assert "<code>flat_file_missing</code>" in page

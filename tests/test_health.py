from datetime import timedelta

import pytest
from django.db import DatabaseError

from tenders import publication, selectors
from tests.factories import SourceTenderFactory

pytestmark = pytest.mark.django_db


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
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json()["issue_id"] == "2026-W48"


def test_health_answers_json_when_the_database_fails(client, monkeypatch):
    def down():
        raise DatabaseError("connection refused")

    monkeypatch.setattr(selectors, "current_issue", down)
    response = client.get("/api/v1/health")
    assert response.status_code == 503 and response.json()["status"] == "unavailable"

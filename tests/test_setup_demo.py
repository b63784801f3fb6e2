"""``manage.py setup_demo``, which the run command calls on every start."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tenders.models import Issue, SourceTender

pytestmark = pytest.mark.django_db


def setup(**kwargs) -> str:
    out = io.StringIO()
    call_command("setup_demo", rows=30, stdout=out, **kwargs)
    return out.getvalue()


def test_loads_and_publishes_once_and_creates_the_account_once(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_USERNAME", "curator")
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "first password, long enough")
    first = setup()
    assert "Empty database: loading 30 demo records" in first
    assert "Creating staff account curator" in first
    issue = Issue.objects.get(is_current=True)
    records = SourceTender.objects.count()

    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "another password, never applied")
    second = setup()
    assert f"The database has a current issue ({issue.issue_id}); serving it" in second
    assert "Staff account curator exists; left as it is" in second
    assert list(Issue.objects.values_list("pk", flat=True)) == [issue.pk]
    assert SourceTender.objects.count() == records
    user = get_user_model().objects.get(username="curator")
    assert user.check_password("first password, long enough") and user.is_superuser


def test_without_the_variables_no_account_is_made(monkeypatch):
    monkeypatch.delenv("DJANGO_SUPERUSER_USERNAME", raising=False)
    monkeypatch.delenv("DJANGO_SUPERUSER_PASSWORD", raising=False)
    assert "staff account" not in setup().lower()
    assert not get_user_model().objects.exists()


def test_a_failed_first_publication_is_published_again():
    """An issue that never became current (the first publication was killed) is no issue."""
    setup()
    Issue.objects.update(is_current=False, state=Issue.State.FAILED, snapshot_etag="")
    again = setup()
    assert "Empty database" in again
    assert Issue.objects.filter(is_current=True).count() == 1

"""After a change of the gate's rules, run_schedules queues one check of the approved records
that hold no pass of them; a worker runs it and records their passes, so the next publication
plans them without asking the gate again. Once per version of the rules."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from tenders import curation, publication, tasks
from tenders.models import Job, SourceTender
from tenders.publication import passes
from tests.factories import SourceTenderFactory
from tests.worker_support import work_off_the_queue

pytestmark = pytest.mark.django_db

PHONE = "Call +852 2123 4567 for the documents."


def held() -> set[int]:
    """The records that hold a pass of today's rules, as they are now."""
    current = [r.pk for r in SourceTender.objects.all() if r.gate_passed == r.plan_digest]
    return set(
        SourceTender.objects.filter(
            pk__in=current, gate_check__code=passes.gate_code()
        ).values_list("pk", flat=True)
    )


def test_nothing_is_queued_while_every_approved_record_holds_a_pass(capsys):
    draft = SourceTenderFactory(status=SourceTender.Status.DRAFT)
    assert curation.tenders_approve(ids=[draft.pk], user=None).refused == {}
    SourceTenderFactory(status=SourceTender.Status.DRAFT)  # not approved: never checked
    call_command("run_schedules")
    assert capsys.readouterr().out == ""
    assert not Job.objects.exists()


def test_a_change_of_the_rules_queues_one_check_that_records_passes(capsys, monkeypatch):
    soon = timezone.now() + timedelta(days=20)
    # Approved by a data load: no record holds a pass.
    clean = [SourceTenderFactory(deadline=soon) for _ in range(3)]
    leaking = SourceTenderFactory(deadline=soon, summary_en=PHONE)
    assert held() == set()

    call_command("run_schedules")
    job = Job.objects.get()
    assert (job.kind, job.arguments, job.state) == (
        "gate-check",
        {"code": passes.gate_code()},
        "queued",
    )
    assert capsys.readouterr().out == (
        f"Queued a check of the approved records against the gate as job #{job.pk}.\n"
    )
    call_command("run_schedules")
    assert capsys.readouterr().out == f"Gate check: job #{job.pk} is still queued.\n"

    work_off_the_queue()
    job.refresh_from_db()
    assert (job.state, job.phase, job.done, job.total) == ("succeeded", "check", 4, 4)
    assert job.message == (
        "Checked 4 approved records against the gate: 3 passed, 1 with findings "
        "(publication withholds them; the admin's check says why)."
    )
    assert job.result["with_findings"] == [leaking.listing_id]
    assert held() == {r.pk for r in clean}

    # Done for these rules: the leaking record (it never gets a pass) is not checked again.
    call_command("run_schedules")
    assert capsys.readouterr().out == ""
    assert Job.objects.count() == 1
    summary = publication.publish_issue()
    assert (summary.published, summary.passed, summary.withheld) == (3, 3, 1)

    # New rules (a deployment that changes the gate): the passes are stale, one check again.
    monkeypatch.setattr(passes, "_gate_source", lambda: "the next version of the gate")
    assert held() == set()
    call_command("run_schedules")
    again = Job.objects.exclude(pk=job.pk).get()
    assert again.arguments == {"code": passes.gate_code()} != job.arguments
    work_off_the_queue()
    assert held() == {r.pk for r in clean}


def test_a_failed_check_is_not_queued_again_by_the_schedule(capsys):
    SourceTenderFactory()
    due = tasks.gate_check_enqueue_due()
    assert due is not None and due[1]
    Job.objects.filter(pk=due[0].pk).update(state=Job.State.FAILED)
    assert tasks.gate_check_enqueue_due() is None
    assert Job.objects.count() == 1


def test_a_check_under_the_rules_before_that_still_runs_is_waited_for(capsys):
    SourceTenderFactory()
    running = tasks.gate_check_enqueue_due()[0]
    Job.objects.filter(pk=running.pk).update(state=Job.State.RUNNING, arguments={"code": "old"})
    call_command("run_schedules")
    assert capsys.readouterr().out == f"Gate check: job #{running.pk} is still running.\n"
    assert Job.objects.count() == 1
    Job.objects.filter(pk=running.pk).update(state=Job.State.SUCCEEDED)
    call_command("run_schedules")
    assert Job.objects.exclude(pk=running.pk).get().arguments == {"code": passes.gate_code()}

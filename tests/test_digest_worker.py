"""The digest job in real worker processes, against a real SMTP server: a worker killed
mid-send and the retry of its job send no address a mail twice."""

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from tenders import services
from tenders.jobs import job_retry, jobs_fail_stale
from tenders.models import DigestDelivery, Job, Subscription
from tests.pages_feed import ADDED, PREVIOUS, _records
from tests.smtp_support import smtp_server
from tests.worker_support import wait_for_job, worker_process

READERS = 30


@pytest.mark.slow
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_worker_killed_mid_send_and_the_retry_send_each_mail_at_most_once(tmp_path, settings, t0):
    settings.TENDERS_JOB_LEASE_SECONDS = 1
    _records(t0, 0, PREVIOUS)
    services.publish_issue(now=t0 - timedelta(days=7))
    for n in range(READERS):
        Subscription.objects.create(
            email=f"reader{n:02d}@example.com",
            lang=("en", "zh", "zht")[n % 3],
            query={},
            search_key="",
            confirmed_at=timezone.now(),
        )
    # The server takes a while over each mail, so the worker is killed in the middle.
    with smtp_server(delay=0.15) as inbox:
        env = {
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(inbox.port),
            "EMAIL_USE_TLS": "0",
            "PUBLIC_BASE_URL": "http://tenders.test",
            "TENDERS_JOB_HEARTBEAT_SECONDS": "0.05",
            "TENDERS_JOB_LEASE_SECONDS": "1",
        }
        _records(t0, PREVIOUS, ADDED)
        issue = services.publish_issue(now=t0).issue  # queues the digests (committed)
        job = Job.objects.get(kind="digest")
        with worker_process(tmp_path, **env) as worker:
            inbox.wait(8, timeout=60)
            worker.kill()
            worker.wait()
        before = len(inbox.messages)
        assert 0 < before < READERS
        sent_before = DigestDelivery.objects.filter(issue=issue, state="sent").count()
        assert Job.objects.get(pk=job.pk).state == "running"  # nobody knows yet
        (failed,) = jobs_fail_stale(now=timezone.now() + timedelta(seconds=2))
        assert failed.pk == job.pk
        retry = job_retry(job=Job.objects.get(pk=job.pk), user=None)
        with worker_process(tmp_path, **env) as worker:
            done = wait_for_job(retry.pk, lambda j: not j.active, worker, timeout=120)
        assert done.state == "succeeded", done.message
        received = Counter(m["To"] for m in inbox.messages)
    assert max(received.values()) == 1, "an address got two digests"
    states = Counter(DigestDelivery.objects.filter(issue=issue).values_list("state", flat=True))
    claimed = states["claimed"]
    # Every reader has a record: sent, or claimed by the killed worker without hearing the
    # server's answer (at most the one in flight), which the retry does not send again.
    assert states["sent"] + claimed == READERS
    assert claimed <= 1
    sent_to = set(
        DigestDelivery.objects.filter(issue=issue, state="sent").values_list(
            "subscription__email", flat=True
        )
    )
    assert sent_to <= set(received)
    assert len(received) >= READERS - claimed
    assert done.result["claimed_before"] == claimed
    assert done.result["sent"] == READERS - sent_before - claimed
    assert done.result["skipped"] == sent_before + claimed

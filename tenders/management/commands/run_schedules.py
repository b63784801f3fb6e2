"""Queue the scheduled work that is due; run it from cron every few minutes.

    */5 * * * *  cd /srv/tenders && .venv/bin/python manage.py run_schedules

Guarantees:
- an enabled import source with "import every (hours)" set is queued when its last import
  started at least that long ago (or it never ran); a source whose import is still queued or
  running is not queued twice;
- after a change of the gate's rules, approved records that hold no pass of them are checked
  once, in a job (``tasks.gate_check_enqueue_due``), so Monday's publication need not;
- jobs whose worker died (no heartbeat for TENDERS_JOB_LEASE_SECONDS) are marked failed first,
  so a dead import does not hold its source's turn;
- sign-in events older than STAFF_SIGN_IN_LOG_DAYS are deleted (core.signin.prune_log).

Prints one line per job queued or still pending (nothing with -v0). Workers
(manage.py run_worker) run what it queues.
"""

from django.core.management.base import BaseCommand

from core.signin import prune_log
from tenders.jobs import jobs_fail_stale
from tenders.tasks import gate_check_enqueue_due, imports_enqueue_due


class Command(BaseCommand):
    help = (
        "Queue the imports that are due by their schedule, and a check of the approved records "
        "after a change of the gate's rules (run from cron every few minutes)."
    )

    def handle(self, *args, verbosity: int, **options):
        prune_log()
        for job in jobs_fail_stale():
            self.stderr.write(f"Job #{job.pk} ({job.label}) failed: {job.message}")
        for source, job, queued in imports_enqueue_due():
            if verbosity < 1:
                continue
            if queued:
                self.stdout.write(f"Queued an import from {source.name} as job #{job.pk}.")
            else:
                self.stdout.write(
                    f"{source.name}: job #{job.pk} is still {job.get_state_display().lower()}."
                )
        due = gate_check_enqueue_due()
        if due is not None and verbosity >= 1:
            job, queued = due
            if queued:
                self.stdout.write(
                    f"Queued a check of the approved records against the gate as job #{job.pk}."
                )
            else:
                self.stdout.write(
                    f"Gate check: job #{job.pk} is still {job.get_state_display().lower()}."
                )

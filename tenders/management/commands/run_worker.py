"""Run one job worker: take queued jobs (publication, imports) from the database and run them.

Run one per process you want working; several machines can run workers against the same
database (each job is taken by one worker). Each worker reports itself alive every heartbeat
(``tenders.jobs.worker_report``), so the admin shows how many are alive while a job waits.
On start, and every half lease while it runs (idle or busy), jobs left running by a worker
that died are marked failed (see ``tenders.jobs.jobs_fail_stale``), so the admin never shows
a dead job as running for long.
Stop with Ctrl-C or SIGTERM: the job in hand is finished first; a second signal stops it at
once, and the job is marked failed.

The options are django-tasks' ``db_worker``'s (``--queue-name``, ``--interval``, ``--batch``,
``--max-tasks``, ``--worker-id``, ...), except that code reloading is off unless asked for:
a reload would cut a publication short.
"""

import logging
import sys
import threading

from django.conf import settings
from django.db import DatabaseError, OperationalError, connection
from django_tasks_db.management.commands.db_worker import Command as DbWorkerCommand

from tenders.jobs import jobs_fail_stale, worker_gone, worker_report

log = logging.getLogger(__name__)


class Command(DbWorkerCommand):
    help = "Run a job worker (publication, imports); marks jobs of dead workers failed first."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.set_defaults(reload=False)

    def run_from_argv(self, argv):
        try:
            super().run_from_argv(argv)
        except OperationalError as error:
            # One line, not a traceback: the run command (or systemd) starts the worker again.
            reason = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
            self.stderr.write(f"The job worker stops: the database does not answer ({reason}).")
            sys.exit(1)
        except KeyboardInterrupt:
            sys.exit(130)  # Ctrl-C before the worker loop took over its signals: no traceback

    def handle(self, *args, **options):
        self.fail_stale()
        stop = threading.Event()
        watch = threading.Thread(target=self.watch, args=(stop,), name="stale-jobs", daemon=True)
        watch.start()
        beat = threading.Thread(target=self.report, args=(stop,), name="worker-beat", daemon=True)
        beat.start()
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
            beat.join(timeout=5)
            try:
                worker_gone()
            except DatabaseError:
                log.warning("could not remove this worker's row", exc_info=True)

    def report(self, stop: threading.Event) -> None:
        """Say this worker is alive every heartbeat, busy or idle, on this thread's own
        connection: the admin counts the workers alive from these while a job waits."""
        try:
            while True:
                try:
                    worker_report()
                except DatabaseError:
                    log.warning("could not report this worker alive; trying again", exc_info=True)
                if stop.wait(settings.TENDERS_JOB_HEARTBEAT_SECONDS):
                    return
        finally:
            connection.close()

    def fail_stale(self) -> None:
        for job in jobs_fail_stale():
            self.stderr.write(f"Job #{job.pk} ({job.label}) failed: {job.message}")

    def watch(self, stop: threading.Event) -> None:
        """Look for dead workers' jobs every half lease, on this thread's own connection."""
        try:
            while not stop.wait(settings.TENDERS_JOB_LEASE_SECONDS / 2):
                try:
                    self.fail_stale()
                except DatabaseError:
                    log.warning("could not look for stale jobs; trying again", exc_info=True)
        finally:
            connection.close()

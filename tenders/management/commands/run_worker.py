"""Run one job worker: take queued jobs (publication, imports) from the database and run them.

Run one per process you want working; several machines can run workers against the same
database (each job is taken by one worker). On start, jobs left running by a worker that died
are marked failed (see ``tenders.jobs.jobs_fail_stale``). Stop with Ctrl-C or SIGTERM: the job
in hand is finished first; a second signal stops it at once, and the job is marked failed.

The options are django-tasks' ``db_worker``'s (``--queue-name``, ``--interval``, ``--batch``,
``--max-tasks``, ``--worker-id``, ...), except that code reloading is off unless asked for:
a reload would cut a publication short.
"""

from django_tasks_db.management.commands.db_worker import Command as DbWorkerCommand

from tenders.jobs import jobs_fail_stale


class Command(DbWorkerCommand):
    help = "Run a job worker (publication, imports); marks jobs of dead workers failed first."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.set_defaults(reload=False)

    def handle(self, *args, **options):
        for job in jobs_fail_stale():
            self.stderr.write(f"Job #{job.pk} ({job.label}) failed: {job.message}")
        super().handle(*args, **options)

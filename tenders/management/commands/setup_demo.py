"""What the run command does before it serves: make the database worth looking at, once.

Guarantees:
- asks the database itself whether an issue is current (never parses a command's output);
- a database with a current issue is left as it is: no demo records loaded, nothing published;
- one without (empty, or its first publication never finished) gets ``--rows`` demo
  records and its first issue;
- the staff account named by DJANGO_SUPERUSER_USERNAME (with DJANGO_SUPERUSER_PASSWORD) is
  created only when missing; an existing account, its password included, is never touched.

Safe to run on every start; prints one line for what it did or left alone.
"""

import os

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from tenders.models import Issue


class Command(BaseCommand):
    help = "Load the demo and publish the first issue when the database has none; create the "
    help += "staff account from DJANGO_SUPERUSER_USERNAME/PASSWORD when it is missing."

    def add_arguments(self, parser):
        parser.add_argument("--rows", type=int, default=2000, help="Demo records (default 2000).")

    def handle(self, *args, rows: int, **options):
        current = Issue.objects.filter(is_current=True).values_list("issue_id", flat=True).first()
        if current:
            self.stdout.write(f"==> The database has a current issue ({current}); serving it")
        else:
            self.stdout.write(
                f"==> Empty database: loading {rows} demo records and publishing the first issue"
            )
            call_command("load_demo", rows=rows, replace=True, stdout=self.stdout)
            call_command("publish_issue", stdout=self.stdout)
        self.staff_account()

    def staff_account(self) -> None:
        username = os.environ.get("DJANGO_SUPERUSER_USERNAME")
        if not (username and os.environ.get("DJANGO_SUPERUSER_PASSWORD")):
            return
        users = get_user_model()
        if users.objects.filter(**{users.USERNAME_FIELD: username}).exists():
            self.stdout.write(f"==> Staff account {username} exists; left as it is")
            return
        self.stdout.write(f"==> Creating staff account {username}")
        os.environ.setdefault("DJANGO_SUPERUSER_EMAIL", "")
        call_command("createsuperuser", interactive=False, stdout=self.stdout)

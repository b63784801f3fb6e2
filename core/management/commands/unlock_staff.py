"""Lift the sign-in lock (and the count of failures) of staff account names at once."""

from django.core.management.base import BaseCommand

from core import throttle


class Command(BaseCommand):
    help = "Forget the failed sign-ins of these account names, lifting any lock."

    def add_arguments(self, parser):
        parser.add_argument("usernames", nargs="+")

    def handle(self, *args, usernames, **options):
        for username in usernames:
            throttle.succeeded(username)
            self.stdout.write(f"{username}: failed sign-ins forgotten, no lock.")

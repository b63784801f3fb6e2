#!/usr/bin/env python3
import os
import sys

HELP = {"help", "--help", "-h", "--version"}


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # noqa: B018 (loads the settings: a misconfiguration shows here)
    except ImproperlyConfigured as error:
        if HELP.isdisjoint(sys.argv[1:]):
            sys.exit(f"error: {error}")
        # Help signs nothing: list every command even before secrets are set up.
        os.environ.setdefault("SECRET_KEY", "help-only-" + "x" * 40)
        os.environ.setdefault("TENDERS_SORT_KEY_SECRET", "help-only-" + "y" * 40)
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Digest throughput: ``tenders.digests.send_digests`` mailing N confirmed subscriptions to a
local SMTP server (aiosmtpd on 127.0.0.1, started here), as the job after a publication does.

    .venv/bin/python bench/digest_speed.py [--subscriptions 10000] [--rows 3000]

Uses its own PostgreSQL database (postgres://postgres@127.0.0.1:5432/tenders_bench_digest, or
``BENCH_DATABASE_URL``), migrated here; loads ``--rows`` demo records and publishes one issue
(every row is new in a first issue), then makes the subscriptions: every market alone and
together, with and without a search word, in the three languages (a few hundred distinct
searches; only those with new rows, so every subscription gets a digest), spread over
distinct addresses. The server runs in its own process. Prints the time to send, mails per
second, the searches run, the mails and bytes the server received, and the load average (the
machine may be shared). A second send of the same issue is timed too: it must send nothing (every
subscription is claimed). Prints figures only; nothing here is asserted.
"""

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "bench")
os.environ.setdefault("TENDERS_SORT_KEY_SECRET", "bench-sort-key")
os.environ["DATABASE_URL"] = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tenders_bench_digest"
)


class Counting:
    """An SMTP handler that only counts what it receives (in shared memory)."""

    def __init__(self, mails, size):
        self.mails, self.bytes = mails, size

    async def handle_DATA(self, server, session, envelope):
        with self.mails.get_lock():
            self.mails.value += 1
            self.bytes.value += len(envelope.content)
        return "250 OK"


def serve(port: int, mails, size, ready, stop) -> None:
    """The SMTP server, in its own process so it does not share the sender's interpreter."""
    import logging

    from aiosmtpd.controller import Controller

    logging.getLogger("mail.log").setLevel(logging.WARNING)
    controller = Controller(Counting(mails, size), hostname="127.0.0.1", port=port)
    controller.start()
    ready.set()
    stop.wait()
    controller.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subscriptions", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=3000)
    args = parser.parse_args()

    import psycopg

    url = os.environ["DATABASE_URL"]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("select 1 from pg_database where datname = %s", [name]).fetchone():
            conn.execute(f'create database "{name}"')

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.utils import timezone

    from tenders import digests, services
    from tenders.markets import MARKET_CODES
    from tenders.models import DigestDelivery, Subscription
    from tenders.models.subscriptions import address_key
    from tests.smtp_support import free_port

    call_command("migrate", verbosity=0)
    call_command("createcachetable", verbosity=0)
    started = time.perf_counter()
    call_command("load_demo", rows=args.rows, replace=True, verbosity=0)
    Subscription.objects.all().delete()
    issue = services.publish_issue().issue
    print(
        f"prepared {args.rows:,} demo records, issue {issue.issue_id}: "
        f"{time.perf_counter() - started:.1f} s"
    )

    searches = [{}]
    for market in MARKET_CODES:
        searches.append({"market": market})
        searches.append({"market": market, "lead_ok": "true"})
    for word in ("hospital", "services", "equipment", "医疗", "清洁", "lighting"):
        searches.append({"q": word})
        for market in MARKET_CODES[:3]:
            searches.append({"q": word, "market": market})
    from tenders.read.selectors import list_tenders
    from tenders.subscriptions import saved_search

    searches = [
        q for q in searches if list_tenders({**q, "new": "true", "limit": "1"})["meta"]["total"]
    ]

    now = timezone.now()
    made = []
    for n in range(args.subscriptions):
        query, key = saved_search(searches[n % len(searches)])
        lang = ("en", "zh", "zht")[(n // len(searches)) % 3]
        made.append(
            Subscription(
                email=f"reader{n:05d}@example.com",
                address_key=address_key(f"reader{n:05d}@example.com"),
                lang=lang,
                query=query,
                search_key=key,
                created_at=now,
                confirmed_at=now,
            )
        )
    Subscription.objects.bulk_create(made, batch_size=2000)
    distinct = len({(s.search_key, s.lang) for s in made})
    print(f"{args.subscriptions:,} confirmed subscriptions over {distinct} searches × languages")

    port = free_port()
    spawn = multiprocessing.get_context("spawn")
    mails, size = spawn.Value("q", 0), spawn.Value("q", 0)
    ready, stop = spawn.Event(), spawn.Event()
    server = spawn.Process(target=serve, args=(port, mails, size, ready, stop))
    server.start()
    ready.wait(30)
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.PUBLIC_BASE_URL = "https://tenders.example"
    try:
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        started = time.perf_counter()
        run = digests.send_digests(issue)
        seconds = time.perf_counter() - started
        print(f"load average after:  {os.getloadavg()[0]:.1f}")
        print(
            f"sent {run.sent:,} digests ({run.empty:,} with nothing new) in {seconds:.1f} s: "
            f"{run.sent / seconds:,.0f} mails/s; {run.searches} searches run"
        )
        print(
            f"the server received {mails.value:,} mails, {size.value / 1e6:,.1f} MB "
            f"({size.value / max(mails.value, 1) / 1e3:,.1f} KB each)"
        )
        started = time.perf_counter()
        again = digests.send_digests(issue)
        print(
            f"second run of the same issue: {again.sent} sent, {again.skipped:,} already "
            f"claimed, {time.perf_counter() - started:.1f} s"
        )
        claimed = DigestDelivery.objects.filter(issue=issue).count()
        print(f"digest records for the issue: {claimed:,}")
    finally:
        stop.set()
        server.join(30)
        Subscription.objects.all().delete()


if __name__ == "__main__":
    main()

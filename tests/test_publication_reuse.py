"""Reuse of planned rows from the last issue, and publications that die half-way."""

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from tenders import publication
from tenders.allowances import allowance_add, allowance_remove
from tenders.directory import BodyEntry, BodyName, remember_bodies
from tenders.models import (
    CurrencyRate,
    GateAllowance,
    Issue,
    PlanDigest,
    PublicBodyName,
    SnapshotRow,
)
from tenders.publication import planning, publish, storage
from tenders.read.selectors import current_issue
from tenders.sanitize import fingerprint
from tests.conftest import add_vocabulary_words
from tests.factories import SourceTenderFactory, category

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _summary_words(db):
    """This module's free-text summaries are about the gate's detectors: their words join the
    public vocabulary, as a second person would add them."""
    add_vocabulary_words(
        [
            ("en", "Call +852 2123 4567 for the documents."),
            ("en", "Supply of optical fibre cabling for a public body."),
            ("en", "Ferry pier repairs for the Harbour Ferry Authority at two piers."),
            ("en", "Repairs of harbour ferry authority piers and waiting areas."),
            ("en", "Road works at a site managed by HyD in Kowloon."),
            ("en", "Supply of plotters for the ArchSD studios."),
            ("en", "Supply of plotters for design studios."),
            ("zh", "为海港渡轮管理局维修码头。"),
            ("zh", "為海港渡輪管理局維修碼頭。"),
        ]
    )


WEEK = timedelta(days=7)
ROOT = Path(__file__).resolve().parent.parent


def rows(issue) -> list[tuple]:
    return list(
        SnapshotRow.objects.filter(issue=issue)
        .order_by("sort_key")
        .values_list(*planning.ROW_VALUES)
    )


def digests(issue) -> list[tuple]:
    return sorted(PlanDigest.objects.filter(issue=issue).values_list("tender_id", "digest"))


def replanned(now, monkeypatch) -> publication.PublicationSummary:
    """The same week published again with nothing to reuse: every record planned afresh."""
    with monkeypatch.context() as patched:
        patched.setattr(publish, "_last_issue", lambda: None)
        return publication.publish_issue(now=now)


def feed(t0) -> list:
    return [
        SourceTenderFactory(market="HK"),
        SourceTenderFactory(market="SG", currency="SGD", deadline=t0 + timedelta(days=40)),
        SourceTenderFactory(market="GB", amount=None, currency=""),
        SourceTenderFactory(summary_en="Call +852 2123 4567 for the documents."),  # withheld
    ]


def test_a_reused_row_is_identical_to_a_freshly_planned_one(t0, monkeypatch):
    feed(t0)
    first = publication.publish_issue(now=t0)
    assert (first.published, first.reused, first.withheld) == (3, 0, 1)
    SourceTenderFactory(market="AU", currency="AUD")  # new this week: planned, not reused

    reused = publication.publish_issue(now=t0 + WEEK)
    fresh = replanned(t0 + WEEK + timedelta(hours=1), monkeypatch)

    assert (reused.published, reused.reused, reused.new, reused.withheld) == (4, 3, 1, 1)
    assert (fresh.published, fresh.reused, fresh.new, fresh.withheld) == (4, 0, 1, 1)
    assert rows(reused.issue) == rows(fresh.issue) and len(rows(fresh.issue)) == 4
    assert [r[-4] for r in rows(fresh.issue)].count(True) == 1  # new_this_issue, this week
    assert digests(reused.issue) == digests(fresh.issue) and len(digests(fresh.issue)) == 4
    assert reused.withheld_samples == fresh.withheld_samples


def _change_gate_rules(records, settings):
    fingerprint.GATE_VERSION += 1


def _edit_directory_name(records, settings):
    # Found in no record, but an edit (or a removal) is a rare staff action: all replanned.
    name = PublicBodyName.objects.order_by("pk").first()
    name.name += " (former name)"
    name.save()


def _remove_directory_name(records, settings):
    PublicBodyName.objects.order_by("pk").last().delete()


def _change_record(records, settings):
    records[0].summary_en = "Supply of optical fibre cabling for a public body."
    records[0].save()


def _change_category(records, settings):
    it = category("it-hardware")
    it.name_en = "Computer hardware"
    it.save()


def _change_secret(records, settings):
    settings.TENDERS_SORT_KEY_SECRET = "another secret for the sort keys, 32+ characters"


@pytest.mark.parametrize(
    ("change", "reused"),
    [
        (_change_gate_rules, 0),
        (_edit_directory_name, 0),
        (_remove_directory_name, 0),
        (_change_record, 2),
        (_change_category, 0),
        (_change_secret, 0),
    ],
)
def test_a_change_of_what_a_row_depends_on_forces_planning_it_again(
    t0, settings, monkeypatch, change, reused
):
    monkeypatch.setattr(fingerprint, "GATE_VERSION", fingerprint.GATE_VERSION)
    records = feed(t0)
    publication.publish_issue(now=t0)
    change(records, settings)

    after = publication.publish_issue(now=t0 + WEEK)
    fresh = replanned(t0 + WEEK + timedelta(hours=1), monkeypatch)

    assert (after.published, after.reused) == (3, reused)
    assert rows(after.issue) == rows(fresh.issue)
    if change is _change_record:
        assert (
            "optical fibre"
            in SnapshotRow.objects.get(
                issue=after.issue, asaptic_id=records[0].listing_id
            ).search_text
        )
    if change is _change_category:
        assert {r[4] for r in rows(after.issue)} == {"Computer hardware"}


def withheld(summary) -> dict[str, set[str]]:
    """The withheld records and the kinds of their reasons."""
    return {
        listing_id: {r.split(":")[0] for r in reasons}
        for listing_id, reasons in summary.withheld_samples
    }


@pytest.mark.parametrize("workers", [0, 2])
def test_names_added_to_the_directory_replan_only_the_rows_whose_texts_they_match(
    t0, monkeypatch, settings, workers
):
    """A week of imports adds names: rows that do not contain them are reused; a row that
    does is planned again, and withheld where the gate now holds it (as a fresh plan says).
    Alike in this process and in planning workers (which ask the change, sent to them)."""
    if workers:
        settings.TENDERS_PUBLISH_PARALLEL_FROM = 0
        settings.TENDERS_PUBLISH_WORKERS = workers
    plain = SourceTenderFactory()
    named = SourceTenderFactory(
        summary_en="Ferry pier repairs for the Harbour Ferry Authority at two piers."
    )
    in_chinese = SourceTenderFactory(
        summary_zh="为海港渡轮管理局维修码头。", summary_zht="為海港渡輪管理局維修碼頭。"
    )
    in_prose = SourceTenderFactory(  # the words, not written as a name: planned, published
        summary_en="Repairs of harbour ferry authority piers and waiting areas."
    )
    first = publication.publish_issue(now=t0)
    assert (first.published, first.withheld) == (4, 0)
    ha = BodyEntry(
        market="HK",
        names=[BodyName("Harbour Ferry Authority", "en"), BodyName("海港渡輪管理局", "zh-hant")],
    )
    unrelated = [
        BodyEntry(market="SG", names=[BodyName(f"Jurong Canal Board {n}", "en")]) for n in range(20)
    ]
    assert remember_bodies([ha, *unrelated]) == 22

    after = publication.publish_issue(now=t0 + WEEK)
    fresh = replanned(t0 + WEEK + timedelta(hours=1), monkeypatch)

    assert (after.published, after.reused, after.affected, after.withheld) == (2, 2, 2, 2)
    assert (fresh.published, fresh.reused, fresh.withheld) == (2, 0, 2)
    assert (
        withheld(after)
        == withheld(fresh)
        == {
            named.listing_id: {"sanitization"},
            in_chinese.listing_id: {"sanitization"},
        }
    )
    assert rows(after.issue) == rows(fresh.issue)
    assert {r[1] for r in rows(after.issue)} == {plain.listing_id, in_prose.listing_id}
    # Withheld records are planned every week: nothing of theirs is reused.
    third = publication.publish_issue(now=t0 + 2 * WEEK)
    assert (third.published, third.reused, third.affected, third.withheld) == (2, 2, 0, 2)


def test_an_issue_records_the_gate_data_its_plan_was_made_against(t0):
    SourceTenderFactory()
    first = publication.publish_issue(now=t0).issue
    names = PublicBodyName.objects.order_by("pk")
    assert first.plan_gate["directory_mark"] == names.last().pk
    assert first.plan_gate["allowances"] == [
        list(row)
        for row in GateAllowance.objects.order_by("pk").values_list(
            "pk", "tender", "kind", "phrase"
        )
    ]  # the words this module's summaries added to the vocabulary, and nothing else
    remember_bodies([BodyEntry(market="HK", names=[BodyName("Harbour Ferry Authority", "en")])])
    withdrawn = publication.withdraw_row(
        listing_id=SnapshotRow.objects.get(issue=first).asaptic_id, reason="A leak", now=t0
    )
    # A withdrawal keeps the rows, and what they were planned against.
    assert withdrawn.plan_gate == first.plan_gate
    second = publication.publish_issue(now=t0 + WEEK).issue
    assert second.plan_gate["directory_mark"] == names.last().pk > first.plan_gate["directory_mark"]


def test_removing_an_allowance_replans_the_records_it_could_affect(t0, monkeypatch):
    own = SourceTenderFactory(summary_en="Road works at a site managed by HyD in Kowloon.")
    shared = SourceTenderFactory(summary_en="Supply of plotters for the ArchSD studios.")
    other = SourceTenderFactory(summary_en="Supply of plotters for design studios.")
    mine = allowance_add(
        kind="public_body", phrase="HyD", reason="A depot's name", tender=own, user=None
    )
    everywhere = allowance_add(
        kind="public_body", phrase="ArchSD studios", reason="A brand", tender=None, user=None
    )
    first = publication.publish_issue(now=t0)
    assert (first.published, first.withheld) == (3, 0)

    # Adding an allowance lets more through: nothing published needs planning again.
    allowance_add(kind="money", phrase="plotters", reason="A test", tender=other, user=None)
    second = publication.publish_issue(now=t0 + WEEK)
    assert (second.published, second.reused, second.affected) == (3, 3, 0)

    allowance_remove(allowance=mine, user=None)  # its record only
    third = publication.publish_issue(now=t0 + 2 * WEEK)
    assert (third.published, third.reused, third.affected, third.withheld) == (2, 2, 1, 1)
    assert withheld(third) == {own.listing_id: {"sanitization"}}

    allowance_remove(allowance=everywhere, user=None)  # the records that hold its phrase
    fourth = publication.publish_issue(now=t0 + 3 * WEEK)
    fresh = replanned(t0 + 3 * WEEK + timedelta(hours=1), monkeypatch)
    assert (fourth.published, fourth.reused, fourth.affected, fourth.withheld) == (1, 1, 1, 2)
    assert withheld(fourth) == withheld(fresh)
    assert withheld(fourth) == {
        own.listing_id: {"sanitization"},
        shared.listing_id: {"sanitization"},
    }
    assert rows(fourth.issue) == rows(fresh.issue)
    assert [r[1] for r in rows(fourth.issue)] == [other.listing_id]


def test_rates_buckets_and_new_are_recomputed_for_reused_rows(t0, monkeypatch):
    kept = SourceTenderFactory(amount=Decimal("8000000"), deadline=t0 + timedelta(days=10))
    dropped = SourceTenderFactory(market="SG", currency="SGD")
    publication.publish_issue(now=t0)
    # 8,000,000 HKD x 0.1285 = 1,028,000 USD; at 0.3 it is 2,400,000 USD.
    CurrencyRate.objects.filter(currency="HKD").update(usd_per_unit=Decimal("0.3"))
    CurrencyRate.objects.filter(currency="SGD").delete()

    after = publication.publish_issue(now=t0 + WEEK)
    fresh = replanned(t0 + WEEK + timedelta(hours=1), monkeypatch)

    assert (after.published, after.reused, after.withheld) == (1, 1, 1)
    row = SnapshotRow.objects.get(issue=after.issue)
    assert (row.asaptic_id, row.value_band, row.closing_bucket, row.new_this_issue) == (
        kept.listing_id,
        "2m_10m",
        "le_2w",
        False,
    )
    assert after.withheld_samples == [
        (
            dropped.listing_id,
            ["missing rate: No USD rate for currency 'SGD'; add it under Currency rates."],
        )
    ]
    assert rows(after.issue) == rows(fresh.issue)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_killed_publication_leaves_the_current_issue_and_the_next_one_cleans_up(t0, tmp_path):
    """Killed at the switch (held there by a lock): the old issue stays current; the dead
    publication's server session ends at once (its lock is not left to block the next one);
    the next publication discards the dead build (its tables too) and publishes. Publications
    outside a transaction also exercise the parallel index build and the reader on a
    connection of its own (their rows are compared with a publication through the ORM's)."""
    assert storage.snapshot_store().read_apart and not storage.snapshot_store(bulk=False).read_apart
    for n in range(30):
        SourceTenderFactory(market=["HK", "SG", "GB"][n % 3])
    first = publication.publish_issue(now=t0).issue
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = {**os.environ, "DATABASE_URL": url, "TENDERS_VAR_DIR": str(tmp_path / "var")}
    with psycopg.connect(url, autocommit=True) as admin:
        _kill_at_the_switch_then_publish(t0, first, admin, env)


def publication_lock_held(admin) -> bool:
    return (
        admin.execute(
            "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
            "WHERE d.datname = current_database() AND locktype = 'advisory' AND objid = %s",
            [storage.PUBLISH_LOCK],
        ).fetchone()[0]
        > 0
    )


def _kill_at_the_switch_then_publish(t0, first, admin, env):
    # ATTACH needs a lock this one conflicts with: the build waits there, just before the switch.
    admin.execute("BEGIN")
    admin.execute(f"LOCK TABLE {storage.PARENT} IN SHARE MODE")
    at = (t0 + WEEK).isoformat()
    child = subprocess.Popen(
        [sys.executable, "manage.py", "publish_issue", "--at", at, "-v0"], cwd=ROOT, env=env
    )
    try:
        for _ in range(600):
            waiting = admin.execute(
                "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = %s::regclass",
                [storage.PARENT],
            ).fetchone()[0]
            if waiting or child.poll() is not None:
                break
            time.sleep(0.1)
        assert waiting == 1, "the publication never reached the switch"
        building = Issue.objects.get(state="building")
        tables = [storage.partition_name(building.pk, p) for p in (storage.PARENT, storage.DIGESTS)]
        child.send_signal(signal.SIGKILL)
        child.wait()
        # Its server session notices the client is gone though it is still waiting for the
        # lock: the publication lock is free before the wait ends.
        for _ in range(300):
            if not publication_lock_held(admin):
                break
            time.sleep(0.1)
        assert not publication_lock_held(admin), "the dead publication still holds the lock"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        admin.execute("ROLLBACK")

    assert current_issue() == first
    assert (
        admin.execute(
            "SELECT count(to_regclass(t)) FROM unnest(%s::text[]) t", [tables]
        ).fetchone()[0]
        == 2
    )

    after = publication.publish_issue(now=t0 + WEEK)

    building.refresh_from_db()
    assert (building.state, building.is_current, building.rows_pruned) == ("failed", False, True)
    assert (
        admin.execute(
            "SELECT count(to_regclass(t)) FROM unnest(%s::text[]) t", [tables]
        ).fetchone()[0]
        == 0
    )
    assert current_issue() == after.issue
    assert (after.published, after.reused) == (30, 30)
    inserted = publication.publish_issue(now=t0 + WEEK + timedelta(hours=1), force_orm=True)
    assert rows(after.issue) == rows(inserted.issue) and len(rows(after.issue)) == 30

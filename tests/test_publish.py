import gzip
import json
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.conf import settings
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tenders import publication
from tenders.allowances import allowance_add
from tenders.directory import BodyEntry, BodyName, directory_fingerprint, remember_bodies
from tenders.ids import sort_key
from tenders.models import Issue, IssueCount, SnapshotRow, SourceTender, WithheldRecord
from tenders.publication import planning, publish, storage
from tenders.publication.warm import common_requests, warm_answers
from tenders.read.rows import ROW_FIELDS
from tenders.read.selectors import current_issue
from tenders.sanitize import fingerprint
from tenders.sanitize.loading import allowances_fingerprint, gate_fingerprint
from tests.factories import SourceTenderFactory, category

pytestmark = pytest.mark.django_db

WEEK = timedelta(days=7)


def rows_of(issue):
    return {r.asaptic_id: r for r in SnapshotRow.objects.filter(issue=issue)}


def read_flat_file(issue):
    with default_storage.open(issue.flat_file) as fh:
        return json.loads(gzip.decompress(fh.read()))


def test_publishes_approved_clean_records_with_public_fields_only(t0):
    clean = SourceTenderFactory(
        listing_id="AT-TEST-00000000A1", deadline=t0 + timedelta(days=3), amount=Decimal("8000000")
    )
    SourceTenderFactory(status=SourceTender.Status.DRAFT)
    staff_withheld = SourceTenderFactory(
        status=SourceTender.Status.WITHHELD, withheld_reason="Cancelled by buyer"
    )
    leaking = SourceTenderFactory(summary_en="Contact buyer@example.gov.hk for documents.")

    summary = publication.publish_issue(now=t0)

    issue = current_issue()
    assert issue == summary.issue
    assert (issue.issue_id, issue.state, issue.rows_total, issue.withheld) == (
        "2026-W48",
        "live",
        1,
        2,
    )
    assert (summary.published, summary.new, summary.continuing, summary.dropped) == (1, 1, 0, 0)
    assert summary.withheld_by_reason == {"withheld by staff": 1, "sanitization": 1}
    row = rows_of(issue)["AT-TEST-00000000A1"]
    assert row.sort_key == sort_key(clean.listing_id, settings.TENDERS_SORT_KEY_SECRET)
    assert (row.market, row.category_slug, row.value_band, row.closing_bucket) == (
        "HK",
        "it-hardware",
        "500k_2m",  # 8,000,000 HKD x 0.1285 = 1,028,000 USD
        "le_2w",
    )
    assert row.new_this_issue is True and row.lead_ok is True
    reasons = {w.tender_id: w.reasons for w in WithheldRecord.objects.filter(issue=issue)}
    assert reasons[staff_withheld.pk] == ["withheld by staff: Cancelled by buyer"]
    assert reasons[leaking.pk] == [
        "sanitization: email in summary_en: 'Contact buyer@example.gov.hk for documents.'"
    ]


def test_flat_file_holds_exactly_the_public_rows_in_sort_key_order(t0):
    for _ in range(7):
        SourceTenderFactory()
    publication.publish_issue(now=t0)
    issue = current_issue()
    document = read_flat_file(issue)
    assert list(document) == ["generated", "issue_id", "total", "withheld", "rows"]
    assert document["generated"] == "2026-11-23T06:00:00Z"
    assert (document["issue_id"], document["total"], document["withheld"]) == ("2026-W48", 7, 0)
    assert [tuple(r) for r in document["rows"]] == [ROW_FIELDS] * 7
    keys = [r["sort_key"] for r in document["rows"]]
    assert keys == sorted(keys) and len(set(keys)) == 7
    first = document["rows"][0]
    stored = rows_of(issue)[first["asaptic_id"]]
    assert first["category"] == {
        "name_en": stored.category_name_en,
        "name_zh": stored.category_name_zh,
        "name_zht": stored.category_name_zht,
    }
    raw = json.dumps(document)
    for secret in ("Harbour District", "HDWO/T/", "procurement.example", "1000000", "buyer@"):
        assert secret not in raw


def test_buckets_are_computed_against_generated_not_the_wall_clock(t0):
    SourceTenderFactory(listing_id="AT-TEST-000000000P", deadline=t0 - timedelta(minutes=1))
    SourceTenderFactory(listing_id="AT-TEST-000000000L", deadline=t0 + timedelta(days=14))
    SourceTenderFactory(listing_id="AT-TEST-000000000M", deadline=t0 + timedelta(days=28))
    SourceTenderFactory(
        listing_id="AT-TEST-000000000G", deadline=t0 + timedelta(days=28, seconds=1)
    )
    SourceTenderFactory(listing_id="AT-TEST-000000000X", deadline=t0 - timedelta(days=29))
    publication.publish_issue(now=t0)
    buckets = {k: r.closing_bucket for k, r in rows_of(current_issue()).items()}
    assert buckets == {
        "AT-TEST-000000000P": "deadline_passed",
        "AT-TEST-000000000L": "le_2w",
        "AT-TEST-000000000M": "2_4w",
        "AT-TEST-000000000G": "gt_4w",
        # ...X closed 29 days before publication: past the grace period, not published at all.
    }


def test_new_continuing_dropped_against_the_previous_week(t0):
    a, b, c = SourceTenderFactory(), SourceTenderFactory(), SourceTenderFactory()
    first = publication.publish_issue(now=t0).issue
    c.status = SourceTender.Status.DRAFT
    c.save()
    d = SourceTenderFactory()

    summary = publication.publish_issue(now=t0 + WEEK)

    second = summary.issue
    assert (second.issue_id, second.previous) == ("2026-W49", first)
    assert (summary.published, summary.new, summary.continuing, summary.dropped) == (3, 1, 2, 1)
    assert (second.new_count, second.continuing_count, second.dropped_count) == (1, 2, 1)
    flags = {k: r.new_this_issue for k, r in rows_of(second).items()}
    assert flags == {a.listing_id: False, b.listing_id: False, d.listing_id: True}
    first.refresh_from_db()
    assert (first.state, first.is_current, second.is_current) == ("live", False, True)


def test_same_week_republish_replaces_the_snapshot(t0):
    SourceTenderFactory()
    first = publication.publish_issue(now=t0).issue
    added = SourceTenderFactory()
    second = publication.publish_issue(now=t0 + timedelta(hours=3)).issue

    first.refresh_from_db()
    assert (first.state, first.is_current, first.replaced_at) == (
        "replaced",
        False,
        second.generated,
    )
    assert (second.state, second.is_current, second.issue_id) == ("live", True, first.issue_id)
    assert second.snapshot_etag != first.snapshot_etag and second.generated > first.generated
    assert second.previous is None  # nothing from an earlier week to compare with
    assert set(rows_of(second)) == {added.listing_id, *rows_of(first)}
    assert all(r.new_this_issue for r in rows_of(second).values())


def test_a_failure_halfway_leaves_the_old_issue_current(t0, monkeypatch):
    SourceTenderFactory()
    good = publication.publish_issue(now=t0).issue
    SourceTenderFactory()

    def broken(issue, batches):
        raise RuntimeError("disk full")

    monkeypatch.setattr(publish, "write_flat_file", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        publication.publish_issue(now=t0 + WEEK)

    assert current_issue() == good
    failed = Issue.objects.exclude(pk=good.pk).get()
    assert (failed.state, failed.is_current, failed.rows_pruned) == ("failed", False, True)
    assert not SnapshotRow.objects.filter(issue=failed).exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s)", [storage.partition_name(failed.pk)])
        assert cursor.fetchone()[0] is None


def test_publishing_an_earlier_week_than_the_current_issue_is_refused(t0):
    SourceTenderFactory()
    publication.publish_issue(now=t0)
    with pytest.raises(publication.PublicationError, match="earlier week"):
        publication.publish_issue(now=t0 - WEEK)


def test_dry_run_reports_the_same_counts_and_writes_nothing(t0):
    SourceTenderFactory()
    SourceTenderFactory(summary_zh="联络 buyer@example.gov.hk")
    preview = publication.publish_issue(now=t0, dry_run=True)
    assert (preview.published, preview.withheld, preview.new, preview.issue) == (1, 1, 1, None)
    assert not Issue.objects.exists() and not SnapshotRow.objects.exists()
    real = publication.publish_issue(now=t0)
    assert (real.published, real.withheld, real.new) == (1, 1, 1)


def test_missing_currency_rate_withholds_with_a_reason(t0):
    SourceTenderFactory(amount=Decimal("5000"), currency="JPY")
    summary = publication.publish_issue(now=t0)
    assert (summary.published, summary.withheld) == (0, 1)
    assert summary.withheld_samples[0][1] == [
        "missing rate: No USD rate for currency 'JPY'; add it under Currency rates."
    ]


def test_counts_and_facets_are_computed_at_publication(t0):
    SourceTenderFactory(market="HK", amount=None, currency="")
    SourceTenderFactory(market="HK", category=category("medical-supplies"))
    SourceTenderFactory(market="SG", currency="SGD", deadline=t0 + timedelta(days=40))
    issue = publication.publish_issue(now=t0).issue
    cells = {
        (c.market, c.category_slug, c.closing_bucket, c.value_band, c.rows)
        for c in IssueCount.objects.filter(issue=issue)
    }
    assert cells == {
        ("HK", "it-hardware", "2_4w", None, 1),
        ("HK", "medical-supplies", "2_4w", "lt_500k", 1),
        ("SG", "it-hardware", "gt_4w", "500k_2m", 1),
    }
    facets = issue.facets
    assert [m["code"] for m in facets["markets"]] == ["HK", "MO", "SG", "GB", "EU", "AU", "CA"]
    assert {m["code"]: m["count"] for m in facets["markets"]}["HK"] == 2
    assert {c["slug"]: c["count"] for c in facets["categories"]}["medical-supplies"] == 1
    assert len(facets["categories"]) == 23
    assert {b["value"]: b["count"] for b in facets["value_bands"]} == {
        "lt_500k": 1,
        "500k_2m": 1,
        "2m_10m": 0,
        "gt_10m": 0,
        "unspecified": 1,
    }
    assert sum(b["count"] for b in facets["closing_buckets"]) == issue.rows_total == 3


def _queries_to_publish(now):
    with CaptureQueriesContext(connection) as captured:
        publication.publish_issue(now=now)
    return len(captured.captured_queries)


def test_query_count_does_not_grow_with_the_row_count(t0, monkeypatch):
    # Warming the answers of the new snapshot (a fixed set of first pages) reads no rows for
    # pages that are empty: counted apart, and bounded whatever the rows.
    warming = []

    def counted(issue):
        with CaptureQueriesContext(connection) as captured:
            done = warm_answers(issue)
        warming.append((done, len(captured.captured_queries)))
        return done

    monkeypatch.setattr(publish, "warm_answers", counted)
    publication.publish_issue(now=t0)  # both measured runs then replace a current issue
    SourceTenderFactory()
    one = _queries_to_publish(t0 + WEEK) - warming[-1][1]
    for _ in range(49):
        SourceTenderFactory()
    # A week's imports and curation: the gate's changes are worked out without a query each.
    remember_bodies(
        [BodyEntry(market="GB", names=[BodyName(f"Wyre Canal Trust {n}")]) for n in range(20)]
    )
    allowance_add(kind="money", phrase="switches", reason="A test", tender=None, user=None)
    fifty = _queries_to_publish(t0 + 2 * WEEK) - warming[-1][1]
    assert current_issue().rows_total == 50
    assert one == fifty
    answers = len(common_requests()) + 1
    assert all(done == answers and queries <= 20 * answers for done, queries in warming)


def test_copy_and_insert_paths_load_identical_rows(t0):
    for _ in range(5):
        SourceTenderFactory()
    copied = publication.publish_issue(now=t0).issue
    inserted = publication.publish_issue(now=t0 + timedelta(hours=1), force_orm=True).issue

    def public(issue):
        return sorted(SnapshotRow.objects.filter(issue=issue).values_list(*planning.ROW_VALUES))

    assert public(copied) == public(inserted) and len(public(copied)) == 5


def test_retention_prunes_rows_of_old_and_replaced_issues_but_keeps_history(t0):
    SourceTenderFactory(deadline=t0 + timedelta(days=200))
    first = publication.publish_issue(now=t0).issue
    replaced_first = publication.publish_issue(now=t0 + timedelta(hours=1)).issue
    for week in range(1, 10):
        publication.publish_issue(now=t0 + week * WEEK)
    first.refresh_from_db()
    replaced_first.refresh_from_db()
    assert first.state == "replaced" and first.rows_pruned and first.flat_file == ""
    assert replaced_first.issue_id == "2026-W48" and replaced_first.rows_pruned
    kept = Issue.objects.filter(state="live", rows_pruned=False).values_list("issue_id", flat=True)
    assert sorted(kept) == [
        f"{y}-W{w:02d}"
        for y, w in [
            (2026, 49),
            (2026, 50),
            (2026, 51),
            (2026, 52),
            (2026, 53),
            (2027, 1),
            (2027, 2),
            (2027, 3),
            (2027, 4),
        ]
    ]
    assert Issue.objects.count() == 11  # history stays
    assert not SnapshotRow.objects.filter(issue__in=[first, replaced_first]).exists()


def test_withdraw_makes_a_new_snapshot_without_the_row(t0):
    keep = SourceTenderFactory()
    leak = SourceTenderFactory()
    before = publication.publish_issue(now=t0).issue

    after = publication.withdraw_row(
        listing_id=leak.listing_id, reason="buyer named in summary", now=t0 + timedelta(hours=1)
    )

    assert current_issue() == after
    assert (after.issue_id, after.reason, after.rows_total, after.withheld) == (
        "2026-W48",
        "withdraw",
        1,
        1,
    )
    assert after.snapshot_etag != before.snapshot_etag
    assert set(rows_of(after)) == {keep.listing_id}
    assert sum(after.counts.values_list("rows", flat=True)) == 1
    assert read_flat_file(after)["total"] == 1
    leak.refresh_from_db()
    assert leak.status == "withheld" and "buyer named in summary" in leak.withheld_reason
    before.refresh_from_db()
    assert before.state == "replaced"
    with pytest.raises(publication.PublicationError, match="not in the current snapshot"):
        publication.withdraw_row(listing_id=leak.listing_id, reason="again")
    # The next weekly publication keeps it out as well.
    assert publication.publish_issue(now=t0 + WEEK).withheld == 1


def test_publish_command_prints_the_summary_table(t0, capsys):
    SourceTenderFactory()
    SourceTenderFactory(status=SourceTender.Status.WITHHELD, withheld_reason="Duplicate")
    call_command("publish_issue", "--at", "2026-11-23T06:00:00Z")
    out = capsys.readouterr().out
    assert "Published: issue 2026-W48" in out
    for label, value in [
        ("published", "1"),
        ("new", "1"),
        ("continuing", "0"),
        ("dropped", "0"),
        ("withheld", "1"),
    ]:
        assert any(line.split() == [label, value] for line in out.splitlines()), label
    assert current_issue().issue_id == "2026-W48"
    timed = out.split("time by phase:")[1]
    assert re.findall(r"^ {4}(\S.*?)\s{2,}\d+\.\d s$", timed, re.M) == [
        "read source records",
        "plan rows (gate, buckets, search)",
        "load rows",
        "copy reused rows",
        "build indexes and flat file",
        "of which the flat file",
        "switch",
        "warm answers",
    ]


def test_publish_command_dry_run_and_bad_clock(t0, capsys):
    SourceTenderFactory()
    call_command("publish_issue", "--dry-run", "--at", "2026-11-23T06:00:00+08:00")
    assert "Dry run: nothing was written: issue 2026-W47" in capsys.readouterr().out
    assert not Issue.objects.exists()
    with pytest.raises(CommandError, match="no timezone"):
        call_command("publish_issue", "--at", "2026-11-23T06:00:00")
    with pytest.raises(CommandError, match="not a date-time"):
        call_command("publish_issue", "--at", "next monday")


def test_each_partition_index_is_adopted_by_the_parent(t0):
    """Publication builds a partition's indexes before ATTACH; each one must be adopted by an
    index of the parent (no second copy built at ATTACH, no stray index left behind)."""
    SourceTenderFactory()
    issue = publication.publish_issue(now=t0).issue
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.indexrelid::regclass::text, p.inhparent::regclass::text FROM pg_index i "
            "LEFT JOIN pg_inherits p ON p.inhrelid = i.indexrelid WHERE i.indrelid = %s::regclass",
            [storage.partition_name(issue.pk)],
        )
        adopted = dict(cursor.fetchall())
        cursor.execute(
            "SELECT count(*) FROM pg_index WHERE indrelid = %s::regclass", [storage.PARENT]
        )
        parent_indexes = cursor.fetchone()[0]
    assert None not in adopted.values(), adopted
    assert len(adopted) == len(set(adopted.values())) == parent_indexes == 6


def test_planning_in_worker_processes_gives_the_same_snapshot(t0, settings, monkeypatch):
    """Large feeds plan in worker processes; the rows, withheld reasons and counts must be
    exactly those of planning in one process (batches stay in order)."""
    settings.TENDERS_PUBLISH_BATCH = 3  # several batches in flight across the workers
    for n in range(11):
        SourceTenderFactory(market=["HK", "SG", "GB"][n % 3])
    SourceTenderFactory(summary_en="Call +852 2123 4567 for the documents.")
    SourceTenderFactory(status=SourceTender.Status.WITHHELD, withheld_reason="Duplicate")

    pools = []
    enter = planning.BatchPlanner.__enter__

    def spy(self):
        planner = enter(self)
        pools.append(planner.pool is not None and planner.pool._processes)
        return planner

    monkeypatch.setattr(planning.BatchPlanner, "__enter__", spy)
    settings.TENDERS_PUBLISH_PARALLEL_FROM = 10**9
    alone = publication.publish_issue(now=t0)
    settings.TENDERS_PUBLISH_PARALLEL_FROM = 0
    settings.TENDERS_PUBLISH_WORKERS = 2
    together = publication.publish_issue(now=t0 + timedelta(hours=1))

    def snapshot(summary):
        rows = SnapshotRow.objects.filter(issue=summary.issue).order_by("sort_key")
        return list(rows.values_list(*planning.ROW_VALUES)), sorted(
            WithheldRecord.objects.filter(issue=summary.issue).values_list("tender_id", "reasons")
        )

    assert pools == [False, 2]  # in-process first, then two worker processes
    assert snapshot(together) == snapshot(alone)
    assert len(snapshot(alone)[0]) == 11 and len(snapshot(alone)[1]) == 2
    assert (together.published, together.withheld, together.withheld_by_reason) == (
        alone.published,
        alone.withheld,
        alone.withheld_by_reason,
    )
    assert together.withheld_samples == alone.withheld_samples


def test_progress_reports_each_phase_in_order(t0):
    SourceTenderFactory.create_batch(3)
    calls = []
    publication.publish_issue(now=t0, progress=lambda *call: calls.append(call))
    assert calls == [
        ("read and plan", 3, 3),
        ("build indexes", 0, 1),
        ("build indexes", 1, 1),
        ("write flat file", 0, 1),
        ("write flat file", 1, 1),
        ("switch", 0, 1),
        ("switch", 1, 1),
    ]


def test_gate_fingerprint_follows_the_gate_rules_and_the_directory(monkeypatch):
    allowed = allowances_fingerprint()
    before = gate_fingerprint()
    assert before == f"gate-5:{directory_fingerprint()}:{allowed}"
    # A body the seed list (migrations 0011, 0013) does not have.
    remember_bodies([BodyEntry(market="HK", names=[BodyName("Harbour Ferry Authority", "en")])])
    after = gate_fingerprint()
    assert after != before and after == f"gate-5:{directory_fingerprint()}:{allowed}"
    monkeypatch.setattr(fingerprint, "GATE_VERSION", 5)
    assert gate_fingerprint() == f"gate-5:{directory_fingerprint()}:{allowed}"

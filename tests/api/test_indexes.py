"""Each snapshot partition carries exactly the parent's indexes, adopted at ATTACH, none twice."""

import pytest
from django.db import connection

from tenders import partitions

pytestmark = pytest.mark.django_db


def test_a_published_partition_has_each_index_once_and_attached(feed):
    issue, _ = feed
    table = partitions.partition_name(issue.pk)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid),
                   parent.inhparent::regclass::text
            FROM pg_index i
            LEFT JOIN pg_inherits parent ON parent.inhrelid = i.indexrelid
            WHERE i.indrelid = %s::regclass
            ORDER BY 1
            """,
            [table],
        )
        found = cursor.fetchall()
    on = f"ON public.{table} USING"
    assert [(name, definition.split(on)[1], parent) for name, definition, parent in found] == [
        (f"{table}_listing", " btree (issue_id, asaptic_id)", "snapshotrow_issue_id"),
        (f"{table}_pkey", " btree (issue_id, sort_key)", "tenders_snapshotrow_pkey"),
        (
            f"{table}_snapshotrow_category_cell",
            " btree (issue_id, category_slug, market, value_band, closing_bucket, lead_ok, "
            "new_this_issue)",
            "snapshotrow_category_cell",
        ),
        (
            f"{table}_snapshotrow_market_cell",
            " btree (issue_id, market, value_band, closing_bucket, lead_ok, new_this_issue)",
            "snapshotrow_market_cell",
        ),
        (f"{table}_trgm", " gin (search_text gin_trgm_ops)", "snapshotrow_search_trgm"),
    ]


def test_the_search_column_keeps_a_finer_histogram(feed):
    issue, _ = feed
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attstattarget FROM pg_attribute WHERE attrelid = %s::regclass "
            "AND attname = 'search_text'",
            [partitions.partition_name(issue.pk)],
        )
        assert cursor.fetchone() == (300,)

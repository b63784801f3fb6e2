"""Each snapshot partition carries the filter indexes of SnapshotRow, adopted at ATTACH."""

import pytest
from django.db import connection

from tenders.publication import storage

pytestmark = pytest.mark.django_db


def test_a_published_partition_has_the_filter_indexes_attached_to_the_parent(feed):
    issue, _ = feed
    table = storage.partition_name(issue.pk)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT parent.inhparent::regclass::text, pg_get_indexdef(i.indexrelid)
            FROM pg_index i
            JOIN pg_inherits parent ON parent.inhrelid = i.indexrelid
            WHERE i.indrelid = %s::regclass
              AND parent.inhparent::regclass::text LIKE 'snapshotrow_%%_cell'
            ORDER BY 1
            """,
            [table],
        )
        found = cursor.fetchall()
    on = f"ON public.{table} USING"
    assert [(parent, definition.split(on)[1]) for parent, definition in found] == [
        (
            "snapshotrow_category_cell",
            " btree (issue_id, category_slug, market, value_band, closing_bucket, lead_ok, "
            "new_this_issue)",
        ),
        (
            "snapshotrow_market_cell",
            " btree (issue_id, market, value_band, closing_bucket, lead_ok, new_this_issue)",
        ),
    ]

"""Cursor pagination end to end: crawls, snapshot changes, replayed and altered cursors,
and the cost of a page (constant in page size and depth)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tenders import publication
from tenders.read import answers
from tests.api.feed import make_records, public, snapshot_rows

pytestmark = pytest.mark.django_db

URL = "/api/v1/tenders"


def crawl(client, params, limit):
    """Follow next_cursor to the end; returns the pages' bodies."""
    pages = [client.get(URL, {**params, "limit": limit}).json()]
    while pages[-1]["meta"]["next_cursor"]:
        cursor = pages[-1]["meta"]["next_cursor"]
        response = client.get(URL, {**params, "limit": limit, "cursor": cursor})
        assert response.status_code == 200, response.json()
        pages.append(response.json())
        assert len(pages) < 100
    return pages


COMBINATIONS = [
    ({}, 4),
    ({"closing_bucket": "all"}, 7),
    ({"market": "HK,GB,AU", "lead_ok": "true"}, 3),
    ({"q": "public", "closing_bucket": "all"}, 5),
    ({"q": "疫苗", "value_band": "unspecified,gt_10m", "closing_bucket": "all"}, 2),
    ({"q": "supply 醫院", "closing_bucket": "all"}, 3),
    ({"category": "醫療用品及設備", "new": "false", "lang": "zht"}, 1),
]


@pytest.mark.parametrize("params,limit", COMBINATIONS)
def test_a_crawl_finds_every_matching_row_exactly_once(client, feed, params, limit):
    first = client.get(URL, {**params, "limit": 200}).json()
    expected = [r["asaptic_id"] for r in first["data"]]
    assert first["meta"]["next_cursor"] is None and len(expected) == first["meta"]["total"]
    assert expected, "every combination selects some rows"

    pages = crawl(client, params, limit)

    seen = [row["asaptic_id"] for page in pages for row in page["data"]]
    assert seen == expected
    assert len(pages) == -(-len(expected) // limit)
    assert {page["meta"]["total"] for page in pages} == {len(expected)}
    assert [page["meta"]["returned"] for page in pages[:-1]] == [limit] * (len(pages) - 1)
    assert pages[-1]["meta"]["next_cursor"] is None


def test_the_crawl_rows_are_the_snapshot_rows(client, feed):
    _, rows = feed
    pages = crawl(client, {"closing_bucket": "all"}, 9)
    assert [row for page in pages for row in page["data"]] == [public(r) for r in rows]


def test_limit_and_lang_may_change_between_pages(client, feed):
    _, rows = feed
    first = client.get(URL, {"limit": 5, "closing_bucket": "all"}).json()
    second = client.get(
        URL,
        {
            "limit": 7,
            "lang": "en",
            "closing_bucket": "all",
            "cursor": first["meta"]["next_cursor"],
        },
    ).json()
    assert [r["asaptic_id"] for r in second["data"]] == [r["asaptic_id"] for r in rows[5:12]]
    assert second["meta"]["lang"] == "en" and second["meta"]["total"] == 84


def test_equivalent_spellings_of_the_filters_share_cursors(client, feed):
    first = client.get(URL, {"market": "hk,sg", "category": "药品", "limit": 1}).json()
    response = client.get(
        URL,
        {
            "market": "SG,HK,HK",
            "category": "pharmaceuticals",
            "closing_bucket": "gt_4w,le_2w,2_4w",
            "limit": 1,
            "cursor": first["meta"]["next_cursor"],
        },
    )
    same_spelling = client.get(
        URL,
        {"market": "hk,sg", "category": "药品", "limit": 1, "cursor": first["meta"]["next_cursor"]},
    )
    assert response.status_code == 200
    assert response.json() == same_spelling.json()
    assert len(response.json()["data"]) == 1
    assert response.json()["data"][0]["sort_key"] > first["data"][0]["sort_key"]


def test_search_words_share_cursors_in_any_order_but_not_with_the_phrase(client, feed):
    params = {"q": "Supply  of", "limit": 1}
    first = client.get(URL, params).json()
    cursor = first["meta"]["next_cursor"]
    same = client.get(URL, {**params, "cursor": cursor})
    reordered = client.get(URL, {"q": "of supply supply", "limit": 1, "cursor": cursor})
    assert reordered.status_code == 200
    assert reordered.json() == same.json()
    for other in ('"supply of"', "supply", "supply of public"):
        response = client.get(URL, {"q": other, "limit": 1, "cursor": cursor})
        assert response.status_code == 400, other
        assert response.json()["error"]["code"] == "invalid_cursor"


def test_a_publication_mid_crawl_answers_snapshot_changed_then_a_restart_reads_it_once(
    client, feed, t0
):
    old_issue, _ = feed
    page = client.get(URL, {"limit": 10, "closing_bucket": "all"}).json()

    make_records(t0, 6, start=500)
    new_issue = publication.publish_issue(now=t0.replace(hour=9)).issue
    assert new_issue.issue_id == old_issue.issue_id and new_issue.pk != old_issue.pk

    response = client.get(
        URL, {"limit": 10, "closing_bucket": "all", "cursor": page["meta"]["next_cursor"]}
    )
    assert response.status_code == 409
    assert response.json() == {
        "error": {
            "code": "snapshot_changed",
            "message": "The feed was republished after this cursor was made (now issue "
            f"2026-W48, snapshot {new_issue.snapshot_etag}). Start again from the first page "
            "without cursor.",
            "param": "cursor",
        }
    }
    assert response["Access-Control-Allow-Origin"] == "*"

    pages = crawl(client, {"closing_bucket": "all"}, 10)
    seen = [row["asaptic_id"] for p in pages for row in p["data"]]
    assert seen == [r["asaptic_id"] for r in snapshot_rows(new_issue)]
    assert len(seen) == len(set(seen)) == 90
    assert {p["meta"]["snapshot_etag"] for p in pages} == {new_issue.snapshot_etag}


def test_a_withdrawal_mid_crawl_answers_snapshot_changed(client, feed):
    _, rows = feed
    page = client.get(URL, {"limit": 10, "closing_bucket": "all"}).json()
    publication.withdraw_row(listing_id=rows[50]["asaptic_id"], reason="buyer named in summary")
    response = client.get(
        URL, {"limit": 10, "closing_bucket": "all", "cursor": page["meta"]["next_cursor"]}
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "snapshot_changed"


def test_a_cursor_replayed_with_other_filters_is_invalid_cursor(client, feed):
    cursor = client.get(URL, {"market": "HK", "limit": 1}).json()["meta"]["next_cursor"]
    for params in ({}, {"market": "SG"}, {"market": "HK", "q": "public"}, {"market": "HK,SG"}):
        response = client.get(URL, {**params, "cursor": cursor})
        assert response.status_code == 400
        assert response.json() == {
            "error": {
                "code": "invalid_cursor",
                "message": "This cursor belongs to other filters. Send it with the same "
                "filters as the page that gave it, or leave cursor out to start again.",
                "param": "cursor",
            }
        }


ALTERED = "cursor is not valid: it was altered, cut short or not made by this service. "
ALTERED += "Pass meta.next_cursor back unchanged, or leave cursor out to start again."


def test_an_altered_cursor_is_invalid_cursor(client, feed):
    cursor = client.get(URL, {"limit": 1}).json()["meta"]["next_cursor"]
    variants = [
        cursor[:-1],
        cursor + "A",
        cursor[:20] + ("A" if cursor[20] != "A" else "B") + cursor[21:],
        cursor.upper(),
        "not-a-cursor",
        cursor + "=",
        cursor + "%",
    ]
    for variant in variants:
        response = client.get(URL, {"limit": 1, "cursor": variant})
        assert response.status_code == 400, variant
        assert response.json() == {
            "error": {"code": "invalid_cursor", "message": ALTERED, "param": "cursor"}
        }


def test_a_page_costs_the_same_queries_for_1_and_200_rows(
    client, db, t0, django_assert_num_queries, cache_in_memory
):
    make_records(t0, 410)
    publication.publish_issue(now=t0)
    client.get("/api/v1/health")  # the process knows the current issue
    params = {"closing_bucket": "all"}
    cursors = {}
    for limit in (1, 200):
        # the total (a sum over the counts), planner settings, the page (limit + 1 rows),
        # planner settings restored (the test runs inside a transaction)
        with django_assert_num_queries(4):
            body = client.get(URL, {**params, "limit": limit}).json()
        assert body["meta"]["returned"] == limit and body["meta"]["total"] == 410
        cursors[limit] = body["meta"]["next_cursor"]
    for limit in (1, 200):
        # later pages take the total from the cursor
        with django_assert_num_queries(3):
            body = client.get(URL, {**params, "limit": limit, "cursor": cursors[limit]}).json()
        assert body["meta"]["returned"] == limit and body["meta"]["total"] == 410


def test_a_search_page_costs_the_same_queries_for_1_and_200_rows(
    client, db, t0, django_assert_num_queries, cache_in_memory
):
    make_records(t0, 410)
    publication.publish_issue(now=t0)
    client.get("/api/v1/health")  # the process knows the current issue
    params = {"closing_bucket": "all", "q": "a"}
    # whether the snapshot's search postings are built (not yet: the job has not run), the
    # count (then cached), planner settings, the page, settings restored
    with django_assert_num_queries(5):
        body = client.get(URL, {**params, "limit": 1}).json()
    assert body["meta"]["returned"] == 1 and body["meta"]["total"] == 410
    # another page size of the same search: the count is known
    with django_assert_num_queries(3):
        body = client.get(URL, {**params, "limit": 200}).json()
    assert body["meta"]["returned"] == 200 and body["meta"]["total"] == 410
    for limit in (1, 200):
        # the same request again: its answer is known, and so is the current issue
        with django_assert_num_queries(0):
            again = client.get(URL, {**params, "limit": limit}).json()
        assert again["meta"]["returned"] == limit and again["meta"]["total"] == 410


def test_a_search_total_is_counted_once_per_snapshot_and_filters(client, feed):
    """The shared cache (the database cache here) keeps the count for every later request."""
    params = {"q": "public", "closing_bucket": "all", "limit": 2}
    with CaptureQueriesContext(connection) as first:
        total = client.get(URL, params).json()["meta"]["total"]
    answers.reset()  # another server process: only the shared tier is common
    with CaptureQueriesContext(connection) as second:
        assert client.get(URL, {**params, "lang": "en"}).json()["meta"]["total"] == total
    counting = [q for q in first.captured_queries if 'COUNT(*) AS "__count"' in q["sql"]]
    assert len(counting) == 1
    assert not [q for q in second.captured_queries if 'COUNT(*) AS "__count"' in q["sql"]]


def test_nothing_to_read_when_nothing_matches(
    client, feed, django_assert_num_queries, cache_in_memory
):
    with django_assert_num_queries(2):  # current issue, the total
        body = client.get(URL, {"market": "MO", "category": "it-hardware", "new": "true"}).json()
    assert body["data"] == [] and body["meta"]["total"] == 0


WALK = "'enable_sort', 'off'"
COLLECT = "'enable_indexscan', 'off'"


def test_the_exact_share_of_matches_decides_how_a_page_is_read(client, db, t0):
    """1% of the snapshot or more: walk sort_key order. Less: collect the matches by index."""
    make_records(t0, 410)
    publication.publish_issue(now=t0)
    cases = [
        ({"closing_bucket": "all"}, 410, WALK),
        ({"q": "疫苗", "closing_bucket": "all"}, 102, WALK),
        ({"market": "HK", "value_band": "unspecified", "closing_bucket": "all"}, 12, WALK),
        ({"market": "HK", "category": "pharmaceuticals", "value_band": "gt_10m"}, 3, COLLECT),
        (
            {"q": "疫苗", "market": "SG", "value_band": "lt_500k", "closing_bucket": "all"},
            3,
            COLLECT,
        ),
    ]
    for params, total, settings in cases:
        with CaptureQueriesContext(connection) as queries:
            body = client.get(URL, params).json()
        assert body["meta"]["total"] == total, params
        planner = [q["sql"] for q in queries.captured_queries if "set_config(" in q["sql"]]
        assert len(planner) == 2 and settings in planner[0] and "'jit', 'off'" in planner[0]
        assert "reset_val" in planner[1]
        rows = client.get(URL, {**params, "limit": 200}).json()["data"]
        assert len(rows) == min(total, 200) and [r["sort_key"] for r in rows] == sorted(
            r["sort_key"] for r in rows
        )


def test_planner_settings_do_not_outlive_the_page_read(client, feed):
    names = ["enable_sort", "enable_seqscan", "enable_bitmapscan", "enable_indexscan", "jit"]
    names.append("max_parallel_workers_per_gather")
    query = "SELECT name, setting = reset_val FROM pg_settings WHERE name = ANY(%s) ORDER BY 1"
    for params in ({}, {"market": "MO", "category": "it-hardware", "closing_bucket": "all"}):
        assert client.get(URL, params).json()["meta"]["total"] > 0
        with connection.cursor() as cursor:  # still inside the test's transaction
            cursor.execute(query, [names])
            assert cursor.fetchall() == [(name, True) for name in sorted(names)]

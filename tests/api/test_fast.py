"""The short way of the listing and of one row (tenders.api.fast), on real PostgreSQL.

A request answered from the memo gives the bytes and headers the whole way gives, without
parsing or planning anything (those functions are made to fail while it answers); errors are
never remembered; a new snapshot, published or withdrawn here or committed by another process,
is never answered from the memo.
"""

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tenders import publication
from tenders.api import fast
from tenders.read import answers, current, selectors
from tests.api.feed import publish_feed
from tests.api.test_current import publish_elsewhere

URL = "/api/v1/tenders"


def whole(response) -> tuple:
    """Everything a client receives: status, headers and body."""
    return response.status_code, sorted(response.items()), response.content


@pytest.fixture(params=["before the middleware", "before DRF"])
def whole_way_fails(request, monkeypatch, settings):
    """Once active, a request that takes the whole way fails (a 500) and is counted: with
    ShortWay (the outermost middleware) answering, the view's own short way counts too; with
    ShortWay stepping aside (user agents refused by settings), the view's answers."""
    taken, recalled = [], []
    outermost = request.param == "before the middleware"
    if not outermost:
        settings.DISALLOWED_USER_AGENTS = [re.compile(r"^never$")]
    recall = fast.recall

    def refuse(*args, **kwargs):
        taken.append(args)
        raise AssertionError("the whole way was taken")

    def counted(*args, **kwargs):
        recalled.append(args)
        return recall(*args, **kwargs)

    def active():
        for name in ("require_current_issue", "plan_list", "tender_answer"):
            monkeypatch.setattr(selectors, name, refuse)
        monkeypatch.setattr(fast, "recall", counted)
        return taken, recalled, outermost

    return active


def requests(feed_rows, cursor) -> list[tuple[str, str, dict]]:
    at_id = feed_rows[0]["asaptic_id"]
    return [
        ("get", URL, {}),
        ("get", URL, {"market": "HK,sg", "lang": "zh", "limit": "3"}),
        ("get", URL, {"q": "疫苗", "closing_bucket": "all"}),
        ("get", URL, {"q": '"public hospitals"', "lang": "zht"}),
        ("get", URL, {"limit": "2", "closing_bucket": "all", "cursor": cursor}),
        ("head", URL, {"new": "true"}),
        ("get", f"{URL}/{at_id}", {}),
        ("get", f"{URL}/{at_id}", {"lang": "en"}),
        ("head", f"{URL}/{at_id}", {}),
    ]


def test_the_short_way_gives_what_the_whole_way_gives(client, feed, whole_way_fails):
    _, rows = feed
    cursor = client.get(URL, {"limit": 2, "closing_bucket": "all"}).json()["meta"]["next_cursor"]
    etag = client.get(URL)["ETag"]
    answers.memo().clear()
    not_modified = whole(client.get(URL, HTTP_IF_NONE_MATCH=etag))  # the whole way's 304
    assert not_modified[0] == 304
    cases = requests(rows, cursor)
    answered = []
    for method, path, params in cases:
        response = getattr(client, method)(path, params)
        assert response.status_code == 200, response.content
        answered.append(whole(response))

    taken, recalled, outermost = whole_way_fails()
    with CaptureQueriesContext(connection) as queries:
        for (method, path, params), expected in zip(cases, answered, strict=True):
            assert whole(getattr(client, method)(path, params)) == expected, (method, path)
        assert whole(client.get(URL, HTTP_IF_NONE_MATCH=etag)) == not_modified
        assert whole(client.get(URL, HTTP_IF_NONE_MATCH=f'"x", W/{etag}')) == not_modified
    assert len(queries) == 0 and taken == []
    # ShortWay answers all but the If-None-Match requests, which the view's short way answers.
    assert len(recalled) == 2 + (0 if outermost else len(cases))
    # Another spelling of the same request is another entry: it takes the whole way.
    client.get(URL, {"market": "hk,SG", "lang": "zh", "limit": "3"})
    assert len(taken) == 1


def test_a_host_the_stack_refuses_is_refused_however_often_asked(client, feed):
    assert client.get(URL).status_code == 200
    assert client.get(URL).status_code == 200  # remembered
    for _ in range(2):
        refused = client.get(URL, HTTP_HOST="elsewhere.example")
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_request"


def test_the_scheme_is_part_of_what_is_remembered(client, feed, settings):
    settings.SECURE_HSTS_SECONDS = 3600
    for _ in range(2):
        assert "Strict-Transport-Security" in client.get(URL, secure=True)
        assert "Strict-Transport-Security" not in client.get(URL)
    settings.SECURE_SSL_REDIRECT = True
    answers.reset()  # a process started with these settings (the middleware reads them once)
    started = Client()
    for _ in range(2):
        assert started.get(URL).status_code == 301
        assert started.get(URL, secure=True).status_code == 200


def test_errors_take_the_whole_way_every_time(client, feed, monkeypatch):
    planned = []
    plan_list = selectors.plan_list
    monkeypatch.setattr(
        selectors, "plan_list", lambda *a, **k: planned.append(1) or plan_list(*a, **k)
    )
    for _ in range(2):
        assert client.get(URL, {"market": "XX"}).status_code == 400
        assert client.get(URL, {"cursor": "nonsense"}).status_code == 400
        assert client.get(f"{URL}/AT-TEST-9999999999").status_code == 404
    assert len(planned) == 4
    # Other methods are the view's: a POST is refused as before.
    response = client.post(URL)
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD, OPTIONS"


def test_a_new_snapshot_is_never_answered_from_the_memo(client, feed, t0):
    _, rows = feed
    gone = rows[0]["asaptic_id"]
    params = {"closing_bucket": "all", "limit": 200}
    old = client.get(URL, params).json()
    assert client.get(f"{URL}/{gone}").status_code == 200
    assert client.get(URL, params).json() == old  # remembered

    publication.withdraw_row(listing_id=gone, reason="leak")
    withdrawn = client.get(URL, params).json()
    assert withdrawn["meta"]["snapshot_etag"] != old["meta"]["snapshot_etag"]
    assert gone not in [row["asaptic_id"] for row in withdrawn["data"]]
    assert client.get(f"{URL}/{gone}").status_code == 404
    assert client.get(f"{URL}/{gone}").status_code == 404

    publication.publish_issue(now=t0.replace(hour=7))
    published = client.get(URL, params).json()
    assert published["meta"]["snapshot_etag"] not in (
        old["meta"]["snapshot_etag"],
        withdrawn["meta"]["snapshot_etag"],
    )
    assert client.get(URL, params).json() == published


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_switch_committed_by_another_process_is_never_answered_from_the_memo(
    client, t0, tmp_path
):
    publish_feed(t0)
    before = client.get(URL, {"limit": 2})
    assert whole(client.get(URL, {"limit": 2})) == whole(before)  # from the memo
    publish_elsewhere(tmp_path, "2026-11-23T07:00:00Z")
    after = client.get(URL, {"limit": 2})
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    assert after.json()["meta"]["snapshot_etag"] == after["ETag"].strip('"')
    assert current._listener.value[1] == after["ETag"].strip('"')

"""Client addresses, rate limits and reply timing."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.test import RequestFactory

from core import ratelimit
from core.clients import ClientInfo, client_info, rate_limit_subject
from rfq import timing

T = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)


# --- client address -----------------------------------------------------------------------


def request_from(remote: str, forwarded: str | None = None, agent: str = "curl/8.5"):
    headers = {"REMOTE_ADDR": remote, "HTTP_USER_AGENT": agent}
    if forwarded is not None:
        headers["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().post("/rfq", **headers)


def test_without_trusted_proxies_forwarded_for_is_ignored(settings):
    settings.TRUSTED_PROXY_COUNT = 0
    assert client_info(request_from("198.51.100.7", "203.0.113.9")) == ClientInfo(
        "198.51.100.7", "curl/8.5"
    )


def test_behind_one_proxy_the_client_is_the_last_forwarded_entry(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    # The client sent a made-up first entry; our proxy appended the real address.
    request = request_from("10.0.0.2", "1.2.3.4, 203.0.113.9")
    assert client_info(request).ip == "203.0.113.9"


def test_behind_two_proxies_the_client_is_second_from_the_right(settings):
    settings.TRUSTED_PROXY_COUNT = 2
    assert (
        client_info(request_from("10.0.0.3", "1.2.3.4, 203.0.113.9, 10.0.0.2")).ip == "203.0.113.9"
    )
    # Too few entries: the request did not pass every proxy; the socket address is used.
    assert client_info(request_from("10.0.0.3", "203.0.113.9")).ip == "10.0.0.3"


def test_unusable_forwarded_entries_fall_back_to_the_socket_address(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_info(request_from("10.0.0.2", "unknown")).ip == "10.0.0.2"
    assert client_info(request_from("10.0.0.2", "")).ip == "10.0.0.2"
    assert client_info(request_from("10.0.0.2", "2001:DB8::1")).ip == "2001:db8::1"


def test_user_agent_is_kept_printable_and_short(settings):
    agent = client_info(request_from("198.51.100.7", agent="Bot\x07/1.0 " + "x" * 400)).user_agent
    assert agent == ("Bot/1.0 " + "x" * 400)[:300]


def test_rate_limit_subjects_group_ipv6_by_64():
    assert rate_limit_subject("198.51.100.7") == "198.51.100.7"
    assert rate_limit_subject("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert rate_limit_subject("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert rate_limit_subject("::ffff:198.51.100.7") == "198.51.100.7"
    assert rate_limit_subject(None) == "unknown"


# --- rate parsing and windows (pure) ------------------------------------------------------


@pytest.mark.parametrize(
    "text, rate",
    [
        ("10/hour", ratelimit.Rate(10, 3600, "hour")),
        (" 5 / minutes ", ratelimit.Rate(5, 60, "minute")),
        ("100/DAY", ratelimit.Rate(100, 86400, "day")),
        ("1/second", ratelimit.Rate(1, 1, "second")),
        ("", None),
        (None, None),
    ],
)
def test_rates_parse(text, rate):
    assert ratelimit.parse_rate(text) == rate


@pytest.mark.parametrize("text", ["10", "10/week", "0/hour", "-1/hour", "ten/hour", "10/h"])
def test_bad_rates_are_a_configuration_error(text):
    with pytest.raises(ImproperlyConfigured) as caught:
        ratelimit.parse_rate(text)
    assert str(caught.value) == (
        f"Rate limit {text!r} is not valid: write N/second, N/minute, N/hour or N/day with N of "
        "at least 1 (empty for no limit)."
    )


def test_windows_are_aligned_and_retry_after_counts_to_their_end():
    assert ratelimit.window(7200.0, 3600) == (2, 3600)
    assert ratelimit.window(7200.4, 3600) == (2, 3600)
    assert ratelimit.window(10799.0, 3600) == (2, 1)
    assert ratelimit.window(10799.9, 3600) == (2, 1)
    assert str(ratelimit.Rate(10, 3600, "hour")) == "10 per hour"


# --- the shared counter (database cache, as deployed without Redis) ------------------------


@pytest.mark.django_db
def test_take_admits_up_to_the_limit_per_window_and_subject():
    cache.clear()
    rate = ratelimit.Rate(3, 3600, "hour")
    now = T.timestamp()
    results = [
        ratelimit.take(scope="rfq", subject="198.51.100.7", rate=rate, now=now + i)
        for i in range(5)
    ]
    assert results == [None, None, None, 3597, 3596]
    # Another client, another intake and the next window each have their own count.
    assert ratelimit.take(scope="rfq", subject="198.51.100.8", rate=rate, now=now) is None
    assert ratelimit.take(scope="access", subject="198.51.100.7", rate=rate, now=now) is None
    assert ratelimit.take(scope="rfq", subject="198.51.100.7", rate=rate, now=now + 3600) is None


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_take_is_exact_under_concurrency():
    """The database cache's incr is not atomic; slot claims are: 12 concurrent requests against
    a limit of 5 admit exactly 5."""
    cache.clear()
    rate = ratelimit.Rate(5, 3600, "hour")
    barrier = threading.Barrier(12)
    results = []

    def hit():
        try:
            barrier.wait()
            results.append(
                ratelimit.take(scope="rfq", subject="192.0.2.55", rate=rate, now=T.timestamp())
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=hit) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results, key=str) == [3600] * 7 + [None] * 5
    cache.clear()


@pytest.mark.django_db
def test_a_failing_cache_admits_rather_than_turning_buyers_away(monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "get", broken)
    assert (
        ratelimit.take(
            scope="rfq", subject="192.0.2.1", rate=ratelimit.Rate(1, 60, "minute"), now=0.0
        )
        is None
    )
    assert "Rate limit for rfq could not be checked; admitting" in caplog.text


# --- reply timing (pure) --------------------------------------------------------------------


@pytest.mark.parametrize(
    "seconds, text",
    [
        (0, "0 s"),
        (0.2, "1 s"),
        (59, "59 s"),
        (60, "1 min"),
        (61, "2 min"),
        (3600, "1 h"),
        (11100, "3 h 5 min"),
        (86400, "1 d"),
        (90000, "1 d 1 h"),
    ],
)
def test_human_durations(seconds, text):
    assert timing.human_duration(seconds) == text


def test_reply_due_is_four_hours_after_receipt():
    assert timing.reply_due(T) == T + timedelta(hours=4)


def test_due_states():
    due = T + timedelta(hours=4)
    state = timing.due_state
    assert state(status="new", reply_due_at=due, answered_at=None, now=T) == ("due in 4 h", False)
    assert state(
        status="new", reply_due_at=due, answered_at=None, now=due + timedelta(minutes=30)
    ) == (
        "overdue by 30 min",
        True,
    )
    assert state(
        status="answered", reply_due_at=due, answered_at=due - timedelta(hours=1), now=T
    ) == (
        "answered in time",
        False,
    )
    assert state(
        status="answered", reply_due_at=due, answered_at=due + timedelta(minutes=5), now=T
    ) == (
        "answered 5 min late",
        False,
    )
    assert state(status="closed", reply_due_at=due, answered_at=None, now=T) == ("closed", False)

"""The answer limit on database waits (core.database), without a server to freeze: a socket
that accepts connections and never answers behaves like a hung PostgreSQL (the whole stack is
frozen for real in tests/test_served_stack.py)."""

import socket

import psycopg
import pytest
from django.db import connection

from core.database import (
    DatabaseNotAnswering,
    LimitedConnection,
    answer_within,
    answer_within_at_least,
)


@pytest.fixture
def silent_server():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def connect(port: int):
    return LimitedConnection.connect(
        host="127.0.0.1", port=port, user="u", dbname="d", connect_timeout=30
    )


def test_a_server_that_never_answers_is_given_up_on_then_not_waited_for_again(silent_server):
    with answer_within(0.3):
        with pytest.raises(DatabaseNotAnswering) as first:
            connect(silent_server)
        assert str(first.value) == "the database gave no answer within 0.3 s; gave up"
        # The request has given up: its further calls fail at once instead of waiting again.
        with pytest.raises(DatabaseNotAnswering) as again:
            connect(silent_server)
        assert str(again.value) == "the database did not answer earlier in this request"
    # The next request starts afresh.
    with answer_within(0.2), pytest.raises(DatabaseNotAnswering) as next_request:
        connect(silent_server)
    assert str(next_request.value) == "the database gave no answer within 0.2 s; gave up"


@pytest.mark.django_db
def test_django_connects_with_the_limited_connection():
    connection.ensure_connection()
    assert type(connection.connection) is LimitedConnection
    with answer_within(5), connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def _test_database_connection() -> LimitedConnection:
    params = connection.settings_dict
    return LimitedConnection.connect(
        host=params["HOST"] or "127.0.0.1",
        port=params["PORT"] or 5432,
        user=params["USER"],
        dbname=params["NAME"],
        autocommit=True,
    )


@pytest.mark.django_db
def test_a_block_may_wait_longer_than_its_request_and_the_request_limit_holds_after_it():
    with answer_within(0.3):
        conn = _test_database_connection()
        with answer_within_at_least(5):
            assert conn.execute("SELECT 1 FROM pg_sleep(0.6)").fetchone() == (1,)
        # A shorter "at least" changes nothing: the request's own limit applies.
        with answer_within_at_least(0.1):
            assert conn.execute("SELECT 2 FROM pg_sleep(0.2)").fetchone() == (2,)
        with pytest.raises(DatabaseNotAnswering):
            conn.execute("SELECT pg_sleep(0.6)")
        # Given up inside the request: a longer block does not wait again.
        with pytest.raises(DatabaseNotAnswering), answer_within_at_least(5):
            _test_database_connection()


@pytest.mark.django_db
def test_giving_up_inside_the_longer_block_is_giving_up_for_the_request():
    with answer_within(0.2):
        conn = _test_database_connection()
        with pytest.raises(DatabaseNotAnswering), answer_within_at_least(0.4):
            conn.execute("SELECT pg_sleep(0.8)")
        with pytest.raises(DatabaseNotAnswering) as again:
            _test_database_connection()
        assert str(again.value) == "the database did not answer earlier in this request"


def test_outside_a_request_a_longer_block_sets_no_limit(silent_server):
    with answer_within_at_least(0.2), pytest.raises(psycopg.OperationalError) as ended:
        # No limit: the connection's own timeout (1 s) ends the wait, not a give-up of ours.
        LimitedConnection.connect(
            host="127.0.0.1", port=silent_server, user="u", dbname="d", connect_timeout=1
        )
    assert not isinstance(ended.value, DatabaseNotAnswering)

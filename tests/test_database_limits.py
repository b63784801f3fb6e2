"""The answer limit on database waits (config.database), without a server to freeze: a socket
that accepts connections and never answers behaves like a hung PostgreSQL (the whole stack is
frozen for real in tests/test_served_stack.py)."""

import socket

import pytest
from django.db import connection

from config.database import DatabaseNotAnswering, LimitedConnection, answer_within


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

"""Cursor tokens as pure functions: round trip, tamper-evidence, key rotation."""

import dataclasses

import pytest

from tenders.read import cursors

CURSOR = cursors.Cursor(
    issue_pk=42,
    snapshot_etag="3f1c9a7e52b04d6e8a1f0c2b9d7e6a54",
    filters=cursors.fingerprint("market=HK&closing_bucket=all&q=医 疗"),
    after="ab" * 32,
    total=1_000_000,
)


def test_round_trip(settings):
    token = cursors.encode(CURSOR)
    assert cursors.decode(token) == CURSOR
    assert token.replace("-", "").replace("_", "").isalnum()
    assert len(token) == 147


def test_the_length_does_not_depend_on_the_filters():
    # Far below front servers' request-line limits, whatever the client filters on.
    longest = "category=" + ",".join(["x" * 40] * 17) + "&q=" + "醫" * 200
    token = cursors.encode(dataclasses.replace(CURSOR, filters=cursors.fingerprint(longest)))
    assert len(token) == len(cursors.encode(CURSOR)) == 147
    assert cursors.fingerprint(longest) != cursors.fingerprint(longest[:-1])


def test_every_single_character_change_is_refused():
    token = cursors.encode(CURSOR, secret="k1")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for i, char in enumerate(token):
        other = alphabet[(alphabet.index(char) + 1) % len(alphabet)]
        with pytest.raises(cursors.CursorError):
            cursors.decode(token[:i] + other + token[i + 1 :], secrets=["k1"])


@pytest.mark.parametrize("token", ["", "!", "a b", "=", "AAAA", "x" * 5000, "ñ", "QUJD", None, 12])
def test_junk_is_refused(token):
    with pytest.raises(cursors.CursorError):
        cursors.decode(token, secrets=["k1"])


def test_truncation_and_extension_are_refused():
    token = cursors.encode(CURSOR, secret="k1")
    for variant in (token[:-1], token[:-4], token + "A", token + "AAAA", token[1:]):
        with pytest.raises(cursors.CursorError):
            cursors.decode(variant, secrets=["k1"])


def test_another_key_is_refused_and_fallback_keys_are_accepted(settings):
    token = cursors.encode(CURSOR, secret="old")
    with pytest.raises(cursors.CursorError):
        cursors.decode(token, secrets=["new"])
    assert cursors.decode(token, secrets=["new", "old"]) == CURSOR
    settings.SECRET_KEY_FALLBACKS = ["old"]
    assert cursors.decode(token) == CURSOR


def test_the_sort_key_must_be_a_sort_key():
    with pytest.raises(ValueError):
        cursors.encode(cursors.Cursor(1, "e", "ab" * 16, "abc", 0), secret="k")
    with pytest.raises(ValueError):
        cursors.encode(cursors.Cursor(1, "e", "market=HK", "ab" * 32, 0), secret="k")

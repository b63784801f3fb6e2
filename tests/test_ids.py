import random

import pytest

from tenders import ids


def test_real_ids_have_the_contract_format_and_differ():
    made = {ids.new_listing_id() for _ in range(2000)}
    assert len(made) == 2000
    for value in made:
        assert ids.LISTING_ID_RE.fullmatch(value)
        assert value.startswith("AT-") and not value.startswith("AT-TEST-")
        assert len(value) == 13


def test_synthetic_ids_carry_the_test_marker():
    value = ids.new_listing_id(synthetic=True)
    assert value.startswith("AT-TEST-") and len(value) == 18
    assert ids.is_listing_id(value) and ids.is_synthetic(value)


def test_only_crockford_characters_are_used():
    alphabet = set(ids.CROCKFORD)
    assert not alphabet & set("ILOU")
    for _ in range(500):
        assert set(ids.new_listing_id()[3:]) <= alphabet


def test_seeded_synthetic_ids_repeat_and_real_ids_refuse_a_seed():
    a = [ids.new_listing_id(synthetic=True, rng=random.Random(5)) for _ in range(3)]
    b = [ids.new_listing_id(synthetic=True, rng=random.Random(5)) for _ in range(3)]
    assert a == b
    with pytest.raises(ValueError):
        ids.new_listing_id(rng=random.Random(5))


@pytest.mark.parametrize(
    "value,ok",
    [
        ("AT-0123456789", True),
        ("AT-TEST-ABCDEFGHJK", True),
        ("AT-TEST-ABCDEFGHJI", False),  # I is not Crockford
        ("AT-012345678", False),
        ("at-0123456789", False),
        ("AT-01234567890", False),
        ("XX-0123456789", False),
        ("AT-TEST-0123456789\n", False),
    ],
)
def test_listing_id_pattern(value, ok):
    assert ids.is_listing_id(value) is ok


def test_sort_key_is_hmac_sha256_hex():
    # Known answer from: printf AT-TEST-0123456789 | openssl dgst -sha256 -hmac sort-key-test-secret
    expected = "e45bf36b9695872ac38c9c4bcc4537732fd95169765e99429e7f2cce8e76b8f6"
    assert ids.sort_key("AT-TEST-0123456789", "sort-key-test-secret") == expected


def test_sort_key_depends_on_the_secret_and_the_id():
    key = ids.sort_key("AT-0123456789", "s1")
    assert len(key) == 64 and key == key.lower()
    assert key != ids.sort_key("AT-0123456789", "s2")
    assert key != ids.sort_key("AT-0123456788", "s1")
    assert key == ids.sort_key("AT-0123456789", b"s1")

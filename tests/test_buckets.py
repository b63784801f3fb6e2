from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from tenders.buckets import MissingRate, closing_bucket, value_band

AT = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)
TICK = timedelta(microseconds=1)
RATES = {"USD": Decimal("1"), "HKD": Decimal("0.125"), "GBP": Decimal("1.25")}


@pytest.mark.parametrize(
    "offset,bucket",
    [
        (-timedelta(days=30), "deadline_passed"),
        (-TICK, "deadline_passed"),
        (timedelta(0), "le_2w"),
        (timedelta(days=14), "le_2w"),
        (timedelta(days=14) + TICK, "2_4w"),
        (timedelta(days=28), "2_4w"),
        (timedelta(days=28) + TICK, "gt_4w"),
        (timedelta(days=400), "gt_4w"),
    ],
)
def test_closing_bucket_edges(offset, bucket):
    assert closing_bucket(AT + offset, AT) == bucket


def test_closing_bucket_compares_instants_across_timezones():
    from zoneinfo import ZoneInfo

    deadline = datetime(2026, 12, 7, 14, 0, tzinfo=ZoneInfo("Asia/Hong_Kong"))  # 06:00 UTC
    assert closing_bucket(deadline, AT) == "le_2w"  # exactly 14 days
    assert closing_bucket(deadline + TICK, AT) == "2_4w"


def test_closing_bucket_refuses_naive_datetimes():
    with pytest.raises(ValueError):
        closing_bucket(datetime(2026, 12, 1), AT)


@pytest.mark.parametrize(
    "usd,band",
    [
        ("0", "lt_500k"),
        ("499999.99", "lt_500k"),
        ("500000", "500k_2m"),
        ("1999999.99", "500k_2m"),
        ("2000000", "2m_10m"),
        ("10000000", "2m_10m"),
        ("10000000.01", "gt_10m"),
    ],
)
def test_value_band_edges_in_usd(usd, band):
    assert value_band(Decimal(usd), "USD", RATES) == band


def test_value_band_converts_with_the_kept_rate():
    assert value_band(Decimal("3999999.92"), "HKD", RATES) == "lt_500k"  # 499,999.99 USD
    assert value_band(Decimal("4000000"), "HKD", RATES) == "500k_2m"  # 500,000 USD exactly
    assert value_band(Decimal("8000000"), "GBP", RATES) == "2m_10m"  # 10,000,000 USD exactly
    assert value_band(Decimal("8000001"), "gbp", RATES) == "gt_10m"  # codes in any case


def test_value_band_without_amount_is_null_and_unknown_currency_is_an_error():
    assert value_band(None, "", RATES) is None
    with pytest.raises(MissingRate) as caught:
        value_band(Decimal("10"), "JPY", RATES)
    assert caught.value.currency == "JPY"

"""Bucketing of private values into public bands: pure functions, no database.

closing_bucket (against the publication time ``at``):
    deadline before ``at``                 -> deadline_passed
    0 <= deadline - at <= 14 days          -> le_2w
    14 days < deadline - at <= 28 days     -> 2_4w
    deadline - at > 28 days                -> gt_4w

value_band (amount converted to USD with staff-kept rates; lower edges inclusive):
    usd < 500,000                          -> lt_500k
    500,000 <= usd < 2,000,000             -> 500k_2m
    2,000,000 <= usd <= 10,000,000         -> 2m_10m
    usd > 10,000,000                       -> gt_10m
    no amount                              -> None
"""

from collections.abc import Mapping
from datetime import datetime, timedelta
from decimal import Decimal

CLOSING_BUCKETS = ("le_2w", "2_4w", "gt_4w", "deadline_passed")
VALUE_BANDS = ("lt_500k", "500k_2m", "2m_10m", "gt_10m")

TWO_WEEKS = timedelta(days=14)
FOUR_WEEKS = timedelta(days=28)
BAND_500K = Decimal("500000")
BAND_2M = Decimal("2000000")
BAND_10M = Decimal("10000000")


class MissingRate(LookupError):
    """No USD rate is kept for the record's currency."""

    def __init__(self, currency: str):
        super().__init__(f"No USD rate for currency {currency!r}; add it under Currency rates.")
        self.currency = currency


def closing_bucket(deadline: datetime, at: datetime) -> str:
    if deadline.tzinfo is None or at.tzinfo is None:
        raise ValueError("closing_bucket needs timezone-aware datetimes")
    remaining = deadline - at
    if remaining < timedelta(0):
        return "deadline_passed"
    if remaining <= TWO_WEEKS:
        return "le_2w"
    if remaining <= FOUR_WEEKS:
        return "2_4w"
    return "gt_4w"


def to_usd(amount: Decimal, currency: str, rates: Mapping[str, Decimal]) -> Decimal:
    code = (currency or "").upper()
    if code not in rates:
        raise MissingRate(code)
    return Decimal(amount) * Decimal(rates[code])


def band_for_usd(usd: Decimal) -> str:
    if usd < BAND_500K:
        return "lt_500k"
    if usd < BAND_2M:
        return "500k_2m"
    if usd <= BAND_10M:
        return "2m_10m"
    return "gt_10m"


def value_band(
    amount: Decimal | None, currency: str | None, rates: Mapping[str, Decimal]
) -> str | None:
    """The public band of a private amount, or None when there is no amount.

    Raises MissingRate when the amount's currency has no rate: publication reports it rather
    than guessing a band.
    """
    if amount is None:
        return None
    return band_for_usd(to_usd(amount, currency or "", rates))

from datetime import UTC, date, datetime

import pytest

from tenders.calendar import issue_id_for, previous_issue_id, rfc3339, weeks_before


@pytest.mark.parametrize(
    "day,issue",
    [
        ("2026-11-22", "2026-W47"),  # a Sunday ends week 47
        ("2026-11-23", "2026-W48"),  # Monday starts week 48
        ("2020-12-31", "2020-W53"),
        ("2021-01-03", "2020-W53"),  # early January can belong to last year's week 53
        ("2021-01-04", "2021-W01"),
        ("2024-12-29", "2024-W52"),
        ("2024-12-30", "2025-W01"),  # late December can belong to next year's week 1
        ("2026-12-31", "2026-W53"),
        ("2027-01-01", "2026-W53"),
        ("2027-01-04", "2027-W01"),
    ],
)
def test_issue_id_is_the_iso_week(day, issue):
    assert issue_id_for(date.fromisoformat(day)) == issue


def test_issue_id_of_a_datetime_uses_its_date():
    assert issue_id_for(datetime(2026, 11, 22, 23, 59, tzinfo=UTC)) == "2026-W47"


def test_previous_and_earlier_weeks_cross_years():
    assert previous_issue_id("2021-W01") == "2020-W53"
    assert previous_issue_id("2025-W01") == "2024-W52"
    assert weeks_before("2026-W02", 8) == "2025-W46"


def test_rfc3339_is_utc_with_z():
    from zoneinfo import ZoneInfo

    moment = datetime(2026, 11, 23, 14, 0, 5, 999, tzinfo=ZoneInfo("Asia/Hong_Kong"))
    assert rfc3339(moment) == "2026-11-23T06:00:05Z"

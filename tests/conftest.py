from datetime import UTC, datetime

import pytest

# A fixed publication clock: Monday 2026-11-23 06:00 UTC is in ISO week 2026-W48.
T0 = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Flat files and other stored media go to a per-test folder."""
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def t0():
    return T0

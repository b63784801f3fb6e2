import pytest

from core.http import negotiated_quality

JSON = (["application/json"], ["application/*", "*/*"])
GZIP = (["gzip", "x-gzip"], ["*"])


@pytest.mark.parametrize(
    "header,names,quality",
    [
        ("application/json", JSON, 1.0),
        ("*/*", JSON, 1.0),
        ("text/html", JSON, None),
        ("*/*, application/json;q=0", JSON, 0.0),  # the exact entry wins over */*
        ("application/*;q=0.5, */*;q=0.1", JSON, 0.5),  # the family beats */*
        ("application/json;q=abc", JSON, 0.0),  # an unreadable q refuses
        ("gzip, deflate, br", GZIP, 1.0),
        ("deflate, *;q=0.3", GZIP, 0.3),
        ("x-gzip", GZIP, 1.0),
        ("identity", GZIP, None),
        ("GZIP;Q=0", GZIP, 0.0),  # tokens and parameters in any case
        ("", GZIP, None),
    ],
)
def test_most_specific_entry_decides(header, names, quality):
    assert negotiated_quality(header, *names) == quality

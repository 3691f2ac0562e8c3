from __future__ import annotations

import datetime as dt

import pytest

from wheel_size.dates import DateRange, parse_date, parse_month, periods_from_args
from wheel_size.errors import InputError


def test_months() -> None:
    assert parse_month("October 2025") == DateRange(dt.date(2025, 10, 1), dt.date(2025, 10, 31))
    assert parse_month("feb 2024").end == dt.date(2024, 2, 29)
    assert parse_month("2026-02").end == dt.date(2026, 2, 28)


@pytest.mark.parametrize("text", ["Octember 2025", "2025-13", "October", "10/2025"])
def test_bad_month(text: str) -> None:
    with pytest.raises(InputError, match="month"):
        parse_month(text)


@pytest.mark.parametrize("text", ["2025-10-32", "2025/10/01", "yesterday", "2025-1-1"])
def test_bad_date(text: str) -> None:
    with pytest.raises(InputError, match="--from"):
        parse_date(text, "--from")


def test_reversed_range() -> None:
    with pytest.raises(InputError, match="reversed"):
        periods_from_args("2025-10-31", "2025-10-01", None)


def test_months_merge_and_sort() -> None:
    got = periods_from_args(None, None, ["December 2025", "October 2025", "November 2025"])
    assert got == [DateRange(dt.date(2025, 10, 1), dt.date(2025, 12, 31))]
    apart = periods_from_args(None, None, ["October 2025", "December 2025"])
    assert len(apart) == 2


def test_from_defaults_to_today() -> None:
    got = periods_from_args("2025-10-01", None, None, default_to=dt.date(2025, 10, 5))
    assert got == [DateRange(dt.date(2025, 10, 1), dt.date(2025, 10, 5))]


def test_range_or_month_not_both() -> None:
    with pytest.raises(InputError, match="not both"):
        periods_from_args("2025-10-01", None, ["October 2025"])
    with pytest.raises(InputError, match="required"):
        periods_from_args(None, None, None)

"""Date ranges as people give them: ``--from/--to``, ``--month "October 2025"``, several months.

Nightly runs are filed under the UTC calendar day on which GitHub created them, which is
also what the API's ``created=YYYY-MM-DD`` filter selects.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from wheel_size.errors import InputError

__all__ = [
    "DateRange",
    "days",
    "explicit_periods",
    "parse_date",
    "parse_month",
    "periods_from_args",
    "utc_today",
]

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})


@dataclass(frozen=True, order=True)
class DateRange:
    """An inclusive range of UTC days."""

    start: dt.date
    end: dt.date

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise InputError(f"date range {self.start} .. {self.end} is reversed")

    def __contains__(self, day: object) -> bool:
        return isinstance(day, dt.date) and self.start <= day <= self.end

    def days(self) -> Iterator[dt.date]:
        return days(self.start, self.end)

    def __str__(self) -> str:
        return f"{self.start}..{self.end}"


def days(start: dt.date, end: dt.date) -> Iterator[dt.date]:
    """Every day from ``start`` to ``end`` inclusive."""
    day = start
    while day <= end:
        yield day
        day += dt.timedelta(days=1)


def utc_today() -> dt.date:
    return dt.datetime.now(dt.timezone.utc).date()


def parse_date(text: str, what: str = "date") -> dt.date:
    """``YYYY-MM-DD`` or nothing: the one spelling the API and the data files use."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text.strip()):
        raise InputError(f"{what} {text!r} is not a date in YYYY-MM-DD form")
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError as exc:
        raise InputError(f"{what} {text!r} is not a valid date: {exc}") from None


def parse_month(text: str) -> DateRange:
    """``October 2025``, ``Oct 2025``, ``2025-10`` → the whole month."""
    t = text.strip()
    m = re.fullmatch(r"(\d{4})-(\d{1,2})", t)
    if m:
        year, month = int(m.group(1)), int(m.group(2))
    else:
        m = re.fullmatch(r"([A-Za-z]+)\.?,?\s+(\d{4})", t)
        if not m or m.group(1).lower() not in _MONTHS:
            raise InputError(f"month {text!r} is not a month such as 'October 2025' or 2025-10")
        year, month = int(m.group(2)), _MONTHS[m.group(1).lower()]
    if not 1 <= month <= 12 or year < 1970:
        raise InputError(f"month {text!r} is out of range")
    last = calendar.monthrange(year, month)[1]
    return DateRange(dt.date(year, month, 1), dt.date(year, month, last))


def periods_from_args(
    date_from: str | None,
    date_to: str | None,
    months: Sequence[str] | None,
    *,
    default_to: dt.date | None = None,
) -> list[DateRange]:
    """The ranges a command covers: ``--from/--to`` or any number of ``--month``; not both.

    Months may be given in any order and may be non-adjacent; overlapping ranges are merged.
    """
    if months and (date_from or date_to):
        raise InputError("give either --from/--to or --month, not both")
    if months:
        ranges = sorted(parse_month(m) for m in months)
    else:
        if not date_from:
            raise InputError(
                "a date range is required: --from YYYY-MM-DD [--to YYYY-MM-DD] or --month"
            )
        start = parse_date(date_from, "--from")
        end = parse_date(date_to, "--to") if date_to else default_to or utc_today()
        if end < start:
            raise InputError(f"date range is reversed: --from {start} is after --to {end}")
        ranges = [DateRange(start, end)]
    merged: list[DateRange] = []
    for r in ranges:
        if merged and r.start <= merged[-1].end + dt.timedelta(days=1):
            merged[-1] = DateRange(merged[-1].start, max(merged[-1].end, r.end))
        else:
            merged.append(r)
    return merged


def explicit_periods(
    date: str | None, date_from: str | None, date_to: str | None, months: Sequence[str] | None
) -> list[DateRange] | None:
    """One night (``--date``), a range (``--from``/``--to``) or months; None when none of
    them was given (a nightly update: every night since the last stored one)."""
    if date:
        if date_from or date_to or months:
            raise InputError("give either --date or a range (--from/--to, --month), not both")
        day = parse_date(date, "--date")
        return [DateRange(day, day)]
    if date_from or date_to or months:
        if date_to and not date_from and not months:
            raise InputError("--to needs --from")
        return list(periods_from_args(date_from, date_to, months))
    return None

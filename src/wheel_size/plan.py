"""Split a backfill date range into chunks, one GitHub Actions matrix job each.

A month of nightlies costs a few dozen API requests, so one job per month keeps every
leg short while the whole range is collected in parallel; a single fan-in job then writes
the history once (no parallel pushes to the data branch).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from wheel_size.errors import InputError

__all__ = ["MAX_MATRIX_JOBS", "Chunk", "parse_chunk_size", "plan_date_chunks"]

# GitHub runs at most 256 jobs from one matrix.
MAX_MATRIX_JOBS = 256

_DAYS = re.compile(r"(\d+)d\Z")


@dataclass(frozen=True)
class Chunk:
    """An inclusive date range collected by one matrix job."""

    name: str
    start: dt.date
    end: dt.date

    def as_matrix_entry(self) -> dict[str, str]:
        return {"name": self.name, "from": self.start.isoformat(), "to": self.end.isoformat()}


def parse_chunk_size(text: str) -> str | int:
    """``month``, ``week`` or ``<N>d`` (N days)."""
    if text in ("month", "week"):
        return text
    match = _DAYS.match(text)
    if match and int(match.group(1)) > 0:
        return int(match.group(1))
    raise InputError(f"--chunk: {text!r} is not 'month', 'week' or a number of days like '10d'")


def _month_end(day: dt.date) -> dt.date:
    first_next = (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return first_next - dt.timedelta(days=1)


def plan_date_chunks(
    start: dt.date, end: dt.date, size: str | int = "month", *, limit: int = MAX_MATRIX_JOBS
) -> list[Chunk]:
    """Cover ``start``..``end`` (inclusive) with consecutive chunks, in date order."""
    if end < start:
        raise InputError(f"date range {start}..{end} is reversed")
    chunks: list[Chunk] = []
    day = start
    while day <= end:
        if size == "month":
            last = min(_month_end(day), end)
            name = day.strftime("%Y-%m")
        elif size == "week":
            last = min(day + dt.timedelta(days=6 - day.weekday()), end)
            name = f"{day.isocalendar()[0]}-W{day.isocalendar()[1]:02d}"
        else:
            assert isinstance(size, int)
            last = min(day + dt.timedelta(days=size - 1), end)
            name = f"{day.isoformat()}..{last.isoformat()}"
        chunks.append(Chunk(name, day, last))
        day = last + dt.timedelta(days=1)
        if len(chunks) > limit:
            raise InputError(
                f"date range {start}..{end} needs more than {limit} jobs with --chunk "
                f"{size if isinstance(size, str) else f'{size}d'}; use a larger chunk"
            )
    return chunks

"""Short, distinct x labels for a Mermaid chart of nights (the report's and the issue's)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

__all__ = ["chart_labels"]


def chart_labels(dates: Sequence[dt.date]) -> list[str]:
    """Short, distinct x labels: the month's name on the first point and where the month
    changes ("Oct 1"), the day alone in between ("2", "3"), the year where it changes when
    the points span years. Thirty "10-01"-style labels ran into each other."""
    labels: list[str] = []
    seen: set[str] = set()
    years = len({d.year for d in dates}) > 1
    for i, day in enumerate(dates):
        prev = dates[i - 1] if i else None
        if years and (prev is None or prev.year != day.year):
            label = day.isoformat()
        elif prev is None or (prev.year, prev.month) != (day.year, day.month):
            label = f"{day:%b} {day.day}"
        else:
            label = str(day.day)
        for fallback in (f"{day:%b} {day.day}", day.isoformat()):
            if label not in seen:
                break
            label = fallback  # a category axis needs distinct names
        seen.add(label)
        labels.append(label)
    return labels

"""Markdown (through templates/size-report.md.j2) and JSON output of reports."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TypedDict

from wheel_size.collect.silent import silent_jobs_text
from wheel_size.render import render
from wheel_size.render.chart_labels import chart_labels
from wheel_size.render.safe_markdown import safe_inline
from wheel_size.report.forecast_doc import LIMIT_WORDS, forecast_dict
from wheel_size.report.model import Day, DayStatus, Report
from wheel_size.units import MB

__all__ = ["ChartView", "chart", "render_json", "render_size_report"]

_STATUS_TEXT = {
    DayStatus.NO_RUN: "no run",
    DayStatus.MISSING: "run without this artifact",
    DayStatus.FAILED: "failed run",
    DayStatus.PENDING: "run in progress",
    DayStatus.RENAMED: "renamed",
}


class _Chart(TypedDict):
    labels: str
    points: str
    y_min: int
    y_max: int


class ChartView(_Chart, total=False):
    """A Mermaid ``xychart-beta`` line, as the template writes it."""

    width: int | None  # pixels, when the points need a wider chart than the default


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell (artifact names come from the API)."""
    return safe_inline(text)


# A label gets about this many pixels of Mermaid's default 700 px chart; past this many
# points the chart is drawn wider instead of squeezing the labels into each other.
LABEL_PX = 20
DEFAULT_WIDTH_PX = 700


def chart(report: Report) -> ChartView | None:
    """Points for a Mermaid ``xychart-beta`` line: the days that have a size."""
    ok = report.ok_days
    if len(ok) < 2:
        return None
    sizes = [d.size_mb or 0.0 for d in ok]
    lo, hi = min(sizes), max(sizes)
    pad = max(1.0, (hi - lo) * 0.05)
    width = len(ok) * LABEL_PX
    view: ChartView = {
        "labels": ", ".join(f'"{label}"' for label in chart_labels([d.date for d in ok])),
        "points": ", ".join(f"{v:.1f}" for v in sizes),
        "y_min": math.floor(lo - pad),
        "y_max": math.ceil(hi + pad),
        "width": width if width > DEFAULT_WIDTH_PX else None,
    }
    return view


def _note(day: Day) -> str:
    if day.status == DayStatus.OK:
        # a build time left out says why (a cancelled job, a re-run, no timestamps)
        return _cell(f"build time left out: {day.build_note}") if day.build_note else ""
    text = _STATUS_TEXT.get(day.status, day.status)
    if day.status == DayStatus.RENAMED and day.renamed_to:
        text += " → " + ", ".join(day.renamed_to)
    elif day.status == DayStatus.FAILED and day.conclusion:
        text += f" ({day.conclusion})"
    if day.run_id is not None:
        text += f", run {day.run_id}"
    said = silent_jobs_text(day.silent_jobs)
    if said:
        text += f" ({said})"
    return _cell(text)


def _periods(r: Report) -> str:
    """The dates asked for, and the stored nights when the history covers less of them:
    "Days with a size: 149 of 161" must not read as out of the 182 days asked for."""
    text = ", ".join(f"{p.start} – {p.end}" for p in r.periods)
    asked = sum((p.end - p.start).days + 1 for p in r.periods)
    if r.days and len(r.days) < asked:
        text += f" (stored nights: {r.days[0].date} – {r.days[-1].date})"
    return text


def _month_turns(r: Report) -> list[dict[str, object]]:
    """The nights across the turn of two consecutive reported months (Oct 31 → Nov 1): each
    month's row runs from its own first night to its last, so these changes fall between
    the rows, and the rows add up to the total only with them."""
    turns: list[dict[str, object]] = []
    for a, b in zip(r.months, r.months[1:], strict=False):
        if a.end is None or b.start is None or a.end.size_bytes is None:
            continue
        year, month = int(a.month[:4]), int(a.month[5:7])
        following = f"{year + 1}-01" if month == 12 else f"{year}-{month + 1:02d}"
        if b.start.size_bytes is None or b.month != following:
            continue  # a month not reported lies between: no turn to account for
        change_mb = (b.start.size_bytes - a.end.size_bytes) / MB
        if abs(change_mb) >= 0.05:  # one the table's 0.1 MB shows
            turns.append({"before": a.end.date, "after": b.start.date, "change_mb": change_mb})
    return turns


def render_size_report(reports: Sequence[Report], title: str | None = None) -> str:
    """One Markdown document with the seed's four sections per report."""
    items = []
    for r in reports:
        items.append(
            {
                "report": r,
                "artifact": _cell(r.artifact),
                "periods": _periods(r),
                "month_turns": _month_turns(r),
                "chart": chart(r),
                "notes": {d.date: _note(d) for d in r.days},
                "observations": [_cell(o.text) for o in r.observations],
                "forecast": forecast_dict(r.forecast) if r.forecast is not None else None,
                "limit_words": LIMIT_WORDS,
            }
        )
    return render("size-report.md.j2", items=items, title=title)


def render_json(reports: Sequence[Report]) -> str:
    """One report: its object. Several: a JSON array of them."""
    if len(reports) == 1:
        return reports[0].to_json()
    return json.dumps([r.to_dict() for r in reports], indent=2, ensure_ascii=False) + "\n"

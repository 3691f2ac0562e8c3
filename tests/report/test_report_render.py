"""Markdown and JSON of the bundled example history, checked against the seed's figures."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import jsonschema
import pytest

from wheel_size.dates import parse_month
from wheel_size.history import DirectoryStore
from wheel_size.report import render_json, render_size_report
from wheel_size.report.build import reports_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "history"
SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "report-format.schema.json"


def month(name: str, variant: str = "cuda12_8") -> object:
    return reports_for(DirectoryStore(EXAMPLE), [variant], [parse_month(name)])[0]


@pytest.mark.parametrize(
    ("name", "start", "end", "change"),
    [
        ("October 2025", 855.3, 867.0, 11.7),
        ("November 2025", 867.1, 868.3, 1.2),
        ("December 2025", 868.3, 870.1, 1.8),
        ("January 2026", 870.2, 779.6, -90.6),
        ("February 2026", 779.6, 776.6, -3.0),
    ],
)
def test_example_matches_seed_month_figures(
    name: str, start: float, end: float, change: float
) -> None:
    r = month(name)
    data = json.loads(r.to_json())  # type: ignore[attr-defined]
    assert round(data["start"]["size_mb"], 1) == start
    assert round(data["end"]["size_mb"], 1) == end
    assert round(data["change_mb"], 1) == change


def test_october_jumps_and_markdown_sections() -> None:
    r = month("October 2025")
    md = render_size_report([r])  # type: ignore[list-item]
    for heading in ("### Overall summary", "### Significant jumps", "### Daily breakdown",
                    "### Key observations"):  # fmt: skip
        assert heading in md
    assert "| 2025-10-11 | +4.0 MB | 859.3 MB |" in md
    assert "| Total change | +11.7 MB (+1.37%) |" in md
    assert "xychart-beta" in md
    assert md.count("| 2025-10-") == 31 + 4  # daily rows + jump rows
    assert "Stair-step growth" in md


def test_json_has_documented_fields_and_validates() -> None:
    r = month("November 2025")
    data = json.loads(render_json([r]))  # type: ignore[list-item]
    schema = json.loads(SCHEMA.read_text())
    jsonschema.validate(data, schema)
    assert data["variant"] == "cuda12_8"
    assert data["artifact"] == "manywheel-py3_12-cuda12_8"
    statuses = {d["date"]: d["status"] for d in data["days"]}
    assert statuses["2025-11-16"] == "renamed"
    assert statuses["2025-11-27"] == "no_run"
    kinds = {o["kind"] for o in data["observations"]}
    assert {"rollback", "rename", "holiday_gap"} <= kinds
    both = json.loads(render_json([r, month("November 2025", "cpu")]))  # type: ignore[list-item]
    assert isinstance(both, list) and len(both) == 2
    for item in both:
        jsonschema.validate(item, schema)


def test_several_months_one_report() -> None:
    store = DirectoryStore(EXAMPLE)
    periods = [parse_month("October 2025"), parse_month("December 2025")]
    (r,) = reports_for(store, ["cu128"], periods)
    assert [m.month for m in r.months] == ["2025-10", "2025-12"]
    assert dt.date(2025, 11, 5) not in {d.date for d in r.days}
    md = render_size_report([r])
    assert "| 2025-12 | 868.3 | 870.1 | +1.8 MB |" in md


def test_monthly_changes_add_up_to_the_total() -> None:
    """A release engineer adds the month rows up. Each row keeps the seed's figure (its own
    first to last night: November +1.2 MB), so the nights across the months' turns
    (Oct 31 → Nov 1, Dec 31 → Jan 1) are given beside them: rows and turns, as shown, make
    the total shown (-82.0 alone was 0.2 MB off the -81.8 MB total)."""
    store = DirectoryStore(EXAMPLE)
    names = ("2025-10", "2025-11", "2025-12", "2026-01", "2026-02", "2026-03")
    (r,) = reports_for(store, ["cuda12_8"], [parse_month(m) for m in names])
    md = render_size_report([r])
    assert "| 2025-11 | 867.1 | 868.3 | +1.2 MB |" in md  # the seed's November
    rows = re.findall(r"^\| 20\d\d-\d\d \| [\d.,]+ \| [\d.,]+ \| ([+-][\d.]+) MB \|$", md, re.M)
    assert len(rows) == 6
    line = next(ln for ln in md.splitlines() if ln.startswith("Each row runs from"))
    assert "2025-10-31 → 2025-11-01: +0.1 MB" in line and "2025-12-31 → 2026-01-01: +0.1 MB" in line
    turns = re.findall(r": ([+-][\d.]+) MB", line)
    total = re.search(r"^\| Total change \| ([+-][\d.]+) MB", md, re.M)
    assert total is not None
    shown = sum(float(x) for x in rows) + sum(float(x) for x in turns)
    assert round(shown, 1) == float(total.group(1)) == -81.8


def test_a_range_past_the_history_names_the_stored_nights() -> None:
    """Asked to 2026-03-31, the history ends 2026-03-10: "Days with a size | 149 of 161"
    beside "2025-10-01 – 2026-03-31" (182 days) read as 33 nights lost."""
    store = DirectoryStore(EXAMPLE)
    period = parse_month("October 2025")
    wide = type(period)(period.start, dt.date(2026, 3, 31))
    (r,) = reports_for(store, ["cuda12_8"], [wide])
    md = render_size_report([r])
    assert "2025-10-01 – 2026-03-31 (stored nights: 2025-10-01 – 2026-03-10)" in md
    assert "| Days with a size | 149 of 161 |" in md
    (october,) = reports_for(store, ["cuda12_8"], [period])
    assert "stored nights" not in render_size_report([october])

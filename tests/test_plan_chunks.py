from __future__ import annotations

import datetime as dt
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_main
from wheel_size.errors import InputError
from wheel_size.plan import plan_date_chunks

D = dt.date


def _covers(chunks: list[Any], start: dt.date, end: dt.date) -> None:
    assert chunks[0].start == start and chunks[-1].end == end
    for a, b in itertools.pairwise(chunks):
        assert b.start == a.end + dt.timedelta(days=1)


def test_months_follow_the_calendar_including_leap_february() -> None:
    chunks = plan_date_chunks(D(2024, 1, 15), D(2024, 4, 2))
    assert [(c.name, c.start.isoformat(), c.end.isoformat()) for c in chunks] == [
        ("2024-01", "2024-01-15", "2024-01-31"),
        ("2024-02", "2024-02-01", "2024-02-29"),
        ("2024-03", "2024-03-01", "2024-03-31"),
        ("2024-04", "2024-04-01", "2024-04-02"),
    ]


def test_a_year_end_crossing() -> None:
    chunks = plan_date_chunks(D(2025, 12, 30), D(2026, 1, 1))
    assert [c.name for c in chunks] == ["2025-12", "2026-01"]


def test_weeks_end_on_sunday() -> None:
    chunks = plan_date_chunks(D(2025, 10, 1), D(2025, 10, 20), "week")  # a Wednesday
    _covers(chunks, D(2025, 10, 1), D(2025, 10, 20))
    assert all(c.end.weekday() == 6 for c in chunks[:-1])
    assert chunks[0].name == "2025-W40"


def test_fixed_day_chunks() -> None:
    chunks = plan_date_chunks(D(2025, 1, 1), D(2025, 1, 25), 10)
    assert [(c.start.day, c.end.day) for c in chunks] == [(1, 10), (11, 20), (21, 25)]


def test_one_day() -> None:
    assert len(plan_date_chunks(D(2025, 5, 5), D(2025, 5, 5))) == 1


def test_reversed_range_is_an_error() -> None:
    with pytest.raises(InputError, match="reversed"):
        plan_date_chunks(D(2025, 5, 5), D(2025, 5, 4))


def test_too_many_jobs_for_one_matrix() -> None:
    with pytest.raises(InputError, match="more than 256 jobs"):
        plan_date_chunks(D(2020, 1, 1), D(2025, 1, 1), 5)
    assert len(plan_date_chunks(D(2000, 1, 1), D(2020, 12, 31))) == 252


def test_cli_writes_the_matrix_to_github_output(tmp_path: Path) -> None:
    output = tmp_path / "output"
    output.write_text("earlier=1\n")
    result = run_main(
        ["plan-chunks", "--from", "2025-09-20", "--to", "2025-11-03", "--github-output"],
        env={"GITHUB_OUTPUT": str(output)},
    )
    assert result.returncode == 0, result.stderr
    matrix = json.loads(result.stdout)
    assert [e["name"] for e in matrix["include"]] == ["2025-09", "2025-10", "2025-11"]
    lines = output.read_text().splitlines()
    assert lines[0] == "earlier=1"
    assert json.loads(lines[1].removeprefix("matrix=")) == matrix
    assert lines[2] == "count=3"
    days = int(lines[3].removeprefix("report-days="))
    assert days == (dt.datetime.now(dt.timezone.utc).date() - dt.date(2025, 9, 20)).days + 1


def test_cli_without_a_range_plans_nothing() -> None:
    result = run_main(["plan-chunks", "--from", ""])
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"include": []}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "2025-13-01"], "--from '2025-13-01' is not a valid date"),
        (["--from", "20250101"], "--from '20250101' is not a date in YYYY-MM-DD form"),
        (["--from", "2025-01-01", "--chunk", "fortnight"], "--chunk: 'fortnight'"),
        (["--to", "2025-01-01"], "--to given without --from"),
    ],
)
def test_cli_bad_input(args: list[str], message: str) -> None:
    result = run_main(["plan-chunks", *args])
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1

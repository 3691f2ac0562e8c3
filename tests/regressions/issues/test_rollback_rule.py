"""One rollback rule for the report and the issue (issue 18, point 5): the report's
"Rollback" observation and the issue lifecycle's return read the same size rule
(:mod:`wheel_size.series.returns`), so the report cannot call a night a rollback while the
issue says the change is still in."""

from __future__ import annotations

import datetime as dt

import pytest

from history_factory import run
from wheel_size.dates import DateRange
from wheel_size.history import History
from wheel_size.regressions.events import Event
from wheel_size.regressions.issues.lifecycle import Lifecycle, decide, new_return
from wheel_size.report import build_size_report
from wheel_size.series import SizePoint
from wheel_size.units import MB

D = dt.date


def _report_says_rollback(sizes: dict[str, float]) -> bool:
    history = History.of(run(day, {"cuda12_8": mb}) for day, mb in sizes.items())
    days = sorted(sizes)
    report = build_size_report(
        history, "cuda12_8", [DateRange(D.fromisoformat(days[0]), D.fromisoformat(days[-1]))]
    )
    return any(o.kind == "rollback" for o in report.observations)


def _issue_says_back(sizes: dict[str, float]) -> bool:
    points = [
        SizePoint(D.fromisoformat(day), "cuda12_8", round(mb * MB), run_id=i)
        for i, (day, mb) in enumerate(sorted(sizes.items()), start=1)
    ]
    event = Event("jump", "cuda12_8", points[1].date, points[0], points[1])
    last = points[-1]
    back = new_return(event, points, last, Lifecycle())
    # A revert of a listed candidate in the return window: the issue's own attribution.
    verdict = decide(event, points[-2], last, -1, Lifecycle(), undone_by="r1 reverts c1", back=back)
    return verdict is not None and verdict.state == "rolled-back"


@pytest.mark.parametrize(
    ("after_drop", "back"),
    [
        # +10 MB, then -6 MB: 4 MB of the change is still in. The report used to call this a
        # rollback (it reversed 60 %, inside its 50-150 % band) while the issue said nothing.
        (871.1, False),
        # -14 MB: far below where it started; another change's news, no rollback.
        (863.1, False),
        # -9.6 MB: back within tolerance (2.5 MB, a quarter of the change): both say so.
        (867.5, True),
    ],
)
def test_the_report_and_the_issue_agree_on_a_rollback(after_drop: float, back: bool) -> None:
    sizes = {"2025-11-03": 867.1, "2025-11-04": 877.1, "2025-11-05": after_drop}
    assert _issue_says_back(sizes) is back
    assert _report_says_rollback(sizes) is back


def test_a_return_without_a_revert_never_says_the_change_is_still_in() -> None:
    """Issue 29: the report said "Rollback … 87 %" for Nov 4–5 while the Nov 4 issue's
    follow-up said the change was still in: the size was back by the shared rule, only the
    revert was not found. Both now tell the size back."""
    from wheel_size.regressions.issues.body import render_lifecycle

    sizes = {"2025-11-03": 867.1, "2025-11-04": 870.2, "2025-11-05": 871.8, "2025-11-12": 867.7}
    assert _report_says_rollback(sizes)
    points = [
        SizePoint(D.fromisoformat(day), "cuda12_8", round(mb * MB), run_id=i)
        for i, (day, mb) in enumerate(sorted(sizes.items()), start=1)
    ]
    event = Event("jump", "cuda12_8", points[1].date, points[0], points[1])
    back = new_return(event, points, points[-1], Lifecycle())
    verdict = decide(event, points[-2], points[-1], -1, Lifecycle(), back=back)
    assert verdict is not None and verdict.state == "offset"
    text = render_lifecycle(
        [event], [verdict], repo_url="https://github.com/pytorch/pytorch", closing=False
    )
    assert "still in" not in text
    assert "Back without a revert" in text and "Rollback" in text

"""Key observations: the patterns the seed's analyst writes up, computed from the days.

Stair-step growth, rollbacks (a jump undone within a few days), artifact renames, and the
three kinds of missing day (no run, failed run, run without the artifact) with holiday gaps
named, so a reader can tell a quiet week from a broken build.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Sequence

from wheel_size.report.model import MB, Day, DayStatus, Jump, Observation, Thresholds
from wheel_size.series.returns import is_back
from wheel_size.units import in_mb

__all__ = ["find_rollbacks", "holiday_name", "observe"]

# Changes smaller than this show as 0.0 MB and are not worth a sentence.
_NOTABLE = MB // 20


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> dt.date:
    """The n-th (1-based; -1 = last) ``weekday`` of a month."""
    days = [
        dt.date(year, month, d)
        for d in range(1, calendar.monthrange(year, month)[1] + 1)
        if dt.date(year, month, d).weekday() == weekday
    ]
    return days[n - 1] if n > 0 else days[n]


def holiday_name(day: dt.date) -> str | None:
    """The (US) holiday period a day falls in, when release engineering is usually away."""
    thanksgiving = _nth_weekday(day.year, 11, calendar.THURSDAY, 4)
    if thanksgiving - dt.timedelta(days=3) <= day <= thanksgiving + dt.timedelta(days=3):
        return "Thanksgiving week"
    if (day.month == 12 and day.day >= 24) or (day.month == 1 and day.day <= 1):
        return "year-end holidays"
    if day.month == 7 and 3 <= day.day <= 5:
        return "Independence Day"
    memorial = _nth_weekday(day.year, 5, calendar.MONDAY, -1)
    if memorial - dt.timedelta(days=2) <= day <= memorial:
        return "Memorial Day weekend"
    labor = _nth_weekday(day.year, 9, calendar.MONDAY, 1)
    if labor - dt.timedelta(days=2) <= day <= labor:
        return "Labor Day weekend"
    return None


class _Fmt:
    def __init__(self, days: Sequence[Day]) -> None:
        years = {d.date.year for d in days}
        self.with_year = len(years) > 1

    def day(self, d: dt.date) -> str:
        text = f"{d:%b} {d.day}"
        return f"{text}, {d.year}" if self.with_year else text

    def span(self, a: dt.date, b: dt.date) -> str:
        if a == b:
            return self.day(a)
        if (a.year, a.month) == (b.year, b.month):
            text = f"{a:%b} {a.day}–{b.day}"
            return f"{text}, {a.year}" if self.with_year else text
        return f"{self.day(a)} – {self.day(b)}"


def _mb(delta: int, signed: bool = True) -> str:
    return f"{in_mb(delta, signed=signed)} MB"


def _runs_of(days: Sequence[Day]) -> list[list[Day]]:
    """Group days into runs of consecutive calendar dates."""
    groups: list[list[Day]] = []
    for d in days:
        if groups and (d.date - groups[-1][-1].date).days == 1:
            groups[-1].append(d)
        else:
            groups.append([d])
    return groups


def find_rollbacks(jumps: Sequence[Jump], window_days: int) -> list[tuple[list[Jump], Jump]]:
    """Jumps undone by a later jump of the opposite sign within ``window_days``.

    The undo may cancel several consecutive earlier jumps (a rise over two nights, then one
    drop); it counts as a rollback when the size is back before them by the rule a
    regression issue's lifecycle uses (:func:`wheel_size.series.returns.is_back`).
    """
    open_: list[Jump] = []
    out: list[tuple[list[Jump], Jump]] = []
    for j in sorted(jumps, key=lambda j: j.date):
        cands = [
            u
            for u in open_
            if (u.delta_bytes > 0) != (j.delta_bytes > 0) and (j.date - u.date).days <= window_days
        ]
        undone: list[Jump] = []
        total = 0
        for c in reversed(cands):
            undone.insert(0, c)
            total += abs(c.delta_bytes)
            if total >= 0.8 * abs(j.delta_bytes):
                break
        if undone and is_back(undone[0].prev_size_bytes, undone[-1].size_bytes, j.size_bytes):
            out.append((undone, j))
            open_ = [u for u in open_ if u not in undone]
        else:
            open_.append(j)
    return out


def observe(
    days: Sequence[Day],
    jumps: Sequence[Jump],
    thresholds: Thresholds,
    artifact: str,
    rollback_days: int = 10,
) -> list[Observation]:
    fmt = _Fmt(days)
    obs: list[Observation] = []
    rollbacks = find_rollbacks(jumps, rollback_days)
    in_rollback = {id(j) for group, undo in rollbacks for j in [*group, undo]}
    held = [j for j in jumps if id(j) not in in_rollback]

    for direction, steps in (("growth", [j for j in held if j.delta_bytes > 0]),
                             ("decline", [j for j in held if j.delta_bytes < 0])):  # fmt: skip
        if len(steps) < 2:
            continue
        listed = ", ".join(f"{_mb(j.delta_bytes)} ({fmt.day(j.date)})" for j in steps)
        total = sum(j.delta_bytes for j in steps)
        obs.append(
            Observation(
                "stair_step",
                tuple(j.date for j in steps),
                f"Stair-step {direction}: {len(steps)} steps that held — {listed} — "
                f"together {_mb(total)}.",
            )
        )

    for group, undo in rollbacks:
        rise = sum(j.delta_bytes for j in group)
        span = fmt.span(group[0].date, group[-1].date)
        before = group[0].prev_size_bytes
        peak = group[-1].size_bytes
        share = round(100 * abs(undo.delta_bytes) / abs(rise))
        obs.append(
            Observation(
                "rollback",
                (*(j.date for j in group), undo.date),
                f"Rollback: {_mb(rise)} on {span} ({_mb(before, False)} → {_mb(peak, False)}) "
                f"was undone on {fmt.day(undo.date)} ({_mb(undo.delta_bytes)}, {share}%).",
            )
        )

    for renamed in _runs_of([d for d in days if d.status == DayStatus.RENAMED]):
        names = sorted({n for d in renamed for n in d.renamed_to})
        sizes = [d.renamed_size_bytes for d in renamed if d.renamed_size_bytes is not None]
        seen = f" (~{_mb(round(sum(sizes) / len(sizes)), False)})" if sizes else ""
        span = fmt.span(renamed[0].date, renamed[-1].date)
        back = next(
            (d for d in days if d.date > renamed[-1].date and d.status == DayStatus.OK), None
        )
        text = (
            f"{artifact} was temporarily renamed to {', '.join(names)}{seen} on {span} and "
            f"was back on {fmt.day(back.date)}"
            if back is not None
            else f"{artifact} missing on {span} while {', '.join(names)}{seen} appeared"
        )
        obs.append(
            Observation(
                "rename",
                tuple(d.date for d in renamed),
                f"{text}: an artifact rename or CUDA/ROCm version change, not code growth.",
            )
        )

    for gap in _runs_of([d for d in days if d.status == DayStatus.NO_RUN]):
        holidays = sorted({h for d in gap if (h := holiday_name(d.date))})
        n = len(gap)
        span = fmt.span(gap[0].date, gap[-1].date)
        plural = "day" if n == 1 else "days"
        if holidays:
            obs.append(
                Observation(
                    "holiday_gap",
                    tuple(d.date for d in gap),
                    f"No workflow runs on {span} ({n} {plural}, {' and '.join(holidays)}).",
                )
            )
        else:
            weekend = all(d.date.weekday() >= 5 for d in gap)
            note = ", a weekend" if weekend else ""
            obs.append(
                Observation(
                    "no_run",
                    tuple(d.date for d in gap),
                    f"No workflow run on {span} ({n} {plural}{note}).",
                )
            )

    texts = {
        DayStatus.FAILED: ("failed_run", "Runs failed without producing {a} on {when}{runs}."),
        DayStatus.MISSING: ("missing_artifact", "Runs finished without {a} on {when}{runs}."),
        DayStatus.PENDING: ("pending_run", "Runs still in progress, no {a} yet, on {when}{runs}."),
    }
    for status, (kind, template) in texts.items():
        hit = [d for d in days if d.status == status]
        if not hit:
            continue
        when = ", ".join(fmt.span(g[0].date, g[-1].date) for g in _runs_of(hit))
        run_ids = [str(d.run_id) for d in hit if d.run_id is not None]
        runs = f" (run {', '.join(run_ids)})" if run_ids else ""
        obs.append(
            Observation(
                kind, tuple(d.date for d in hit), template.format(a=artifact, when=when, runs=runs)
            )
        )

    deltas = [d for d in days if d.delta_bytes is not None]
    up = max(deltas, key=lambda d: d.delta_bytes or 0, default=None)
    down = min(deltas, key=lambda d: d.delta_bytes or 0, default=None)
    if up is not None and up.delta_bytes and up.delta_bytes >= _NOTABLE:
        obs.append(
            Observation(
                "largest_increase",
                (up.date,),
                f"Largest single-day increase: {_mb(up.delta_bytes)} on {fmt.day(up.date)}.",
            )
        )
    if down is not None and down.delta_bytes and down.delta_bytes <= -_NOTABLE:
        obs.append(
            Observation(
                "largest_decrease",
                (down.date,),
                f"Largest single-day decrease: {_mb(down.delta_bytes)} on {fmt.day(down.date)}.",
            )
        )
    if not jumps and deltas:
        obs.append(
            Observation(
                "stable",
                (),
                f"Stable: no day-over-day change crossed {thresholds.describe()}."
                if thresholds.baseline.is_previous
                else f"Stable: no night crossed {thresholds.describe()}.",
            )
        )
    return obs

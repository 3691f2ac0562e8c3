"""One event's bisection from the stored nights: is there a jump at all, which commits are in
the window, how wide the noise band is (the rule of
:func:`wheel_size.regressions.builds.bracket.noise_band`); then the rounds
(:mod:`wheel_size.bisect.engine`) from a new state or the one kept in ``--state``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from wheel_size.bisect.engine import Budget, Clock, advance
from wheel_size.bisect.ports import BuildTrigger
from wheel_size.bisect.state import Event, State, load_state, save_state
from wheel_size.errors import InputError
from wheel_size.ports import Commits, GitHubFailure
from wheel_size.regressions.builds.bracket import night_wobble, noise_band
from wheel_size.regressions.window.compare import Night, fetch_window
from wheel_size.series import SizePoint, Thresholds, jump_on, previous_point

__all__ = ["new_state", "run_rounds"]


def _night(point: SizePoint) -> Night:
    return Night(point.date.isoformat(), point.head_sha, point.base_sha, point.run_id)


def new_state(
    event: Event,
    points: Sequence[SizePoint],
    date: dt.date,
    thresholds: Thresholds,
    commits: Commits,
    *,
    noise_bytes: int | None = None,
) -> State:
    """The state of a bisection not started yet: ``done`` at once when the night has no
    jump (nothing is built), ``gave-up`` when the window holds no commit to build."""
    step = jump_on(points, date, thresholds)
    if step is None:
        after = next((p for p in points if p.date == date), None)
        before = previous_point(points, date)
        state = State(event, [], 0, state="done")
        if after is None or before is None:
            state.reason = f"no night to compare {date.isoformat()} with: nothing to build"
        else:
            state.reason = (
                f"{date.isoformat()} is not a jump ({thresholds.describe()}): nothing to build"
            )
        return state
    try:
        window = fetch_window(commits, _night(step.before), _night(step.after))
    except GitHubFailure as exc:
        raise exc.saying(f"listing the commits of {event.describe()}") from None
    noise = noise_bytes
    if noise is None:  # the same band as the brackets of existing builds (one rule)
        noise = noise_band(step.delta_bytes, night_wobble(points, date))
    state = State(event, [], noise)
    # "head": the nightlies name no base SHA, so their own commits are the window's ends
    # (a nightly built straight from the branch it watches); builds decide all the same.
    if window.compared is None or window.truncated:
        state.state = "gave-up"
        state.reason = "the window is not known to the commit: " + (
            "; ".join(window.notes) or "no base SHAs"
        )
        return state
    state.window = [window.compared[0], *(c.sha for c in window.commits)]
    if len(state.window) < 2:
        state.state = "gave-up"
        state.reason = "the window holds no commit: there is nothing to build"
    return state


def run_rounds(
    state_path: Path | None,
    event: Event,
    fresh: State | None,
    trigger: BuildTrigger,
    budget: Budget,
    *,
    clock: Clock | None = None,
) -> State:
    """Resume the kept state of ``event`` (or start ``fresh``) and run rounds, writing the
    state after every change."""
    state = load_state(state_path, event) if state_path is not None else None
    if state is None:
        if fresh is None:
            raise InputError(f"no bisection state for {event.describe()}")
        state = fresh

    def save() -> None:
        if state_path is not None:
            save_state(state_path, state)

    save()
    return advance(state, trigger, budget, clock=clock, save=save)

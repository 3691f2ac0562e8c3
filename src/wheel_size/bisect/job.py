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
from wheel_size.bisect.state import Build, Event, State, load_state, save_state
from wheel_size.errors import InputError
from wheel_size.ports import Commits, GitHubFailure
from wheel_size.ports.builds import BuildPort
from wheel_size.ports.trigger import BuildTrigger
from wheel_size.regressions.builds.bracket import night_wobble, noise_band
from wheel_size.regressions.builds.evidence import BuildEvidenceOptions
from wheel_size.regressions.builds.window import read_window_builds
from wheel_size.regressions.window.compare import Night, fetch_window
from wheel_size.series import SizePoint, Thresholds, jump_on, previous_point

__all__ = ["new_state", "run_rounds", "seed_existing"]


def _night(point: SizePoint) -> Night:
    return Night(point.date.isoformat(), point.head_sha, point.base_sha, point.run_id)


def seed_existing(
    state: State,
    port: BuildPort,
    *,
    start: dt.date,
    end: dt.date,
    branch: str | None = None,
) -> list[str]:
    """Read the build workflow's runs that already exist in the window (one listing of its
    runs over ``start..end``, one of the artifact by name: issue 28 item 1) into
    ``state.existing``, so the bracket narrows before anything is built. Only the build
    workflow's own artifact sizes count (the bisection compares like with like); runs it
    dispatched are left out (their commit is the dispatched branch's tip). Returns notes."""
    options = BuildEvidenceOptions(workflows=(state.event.build_workflow,), branch=branch)
    found = read_window_builds(
        port, commits=state.window[1:], base_sha=state.window[0], start=start, end=end,
        variant=state.event.variant, artifact=state.event.artifact, options=options,
        skip_events=("workflow_dispatch",),
    )  # fmt: skip
    seen: set[str] = set()
    for point in found.points:  # newest run first
        if point.size_bytes is None or point.kind != "artifact" or point.sha in seen:
            continue
        seen.add(point.sha)
        state.existing.append(
            Build(
                point.sha, 0, 0, "", 0.0, status="completed", run_id=point.run_id,
                html_url=point.url or None, conclusion="success",
                size_bytes=point.size_bytes, note=f"existed: {point.source}",
            )
        )  # fmt: skip
    state.existing.sort(key=lambda b: state.window.index(b.sha))
    return found.notes


def new_state(
    event: Event,
    points: Sequence[SizePoint],
    date: dt.date,
    thresholds: Thresholds,
    commits: Commits,
    *,
    noise_bytes: int | None = None,
    builds: BuildPort | None = None,
    build_branch: str | None = None,
) -> State:
    """The state of a bisection not started yet: ``done`` at once when the night has no
    jump (nothing is built), ``gave-up`` when the window holds no commit to build. With
    ``builds``, the builds that already exist in the window are read first
    (:func:`seed_existing`)."""
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
    elif builds is not None:
        start = step.before.date - dt.timedelta(days=1)
        end = step.after.date + dt.timedelta(days=BuildEvidenceOptions.created_slack_days)
        seed_existing(state, builds, start=start, end=end, branch=build_branch)
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

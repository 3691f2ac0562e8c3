"""The rounds of a bisection: look at the builds in flight, and once none is, plan and
start the next round; stop when done, when the budgets are spent, or before waiting past
the call's wait (the state says ``pending`` and the next call resumes).

The builds that already existed in the window (``State.existing``, read when the bisection
started: :func:`wheel_size.bisect.job.seed_existing`) are sizes like its own, so the
brackets narrow before anything is built. Round 1 builds the window's two ends where no
build exists there (the nightlies' base commits: the build workflow's own sizes there,
which the nightly's may not equal) and K commits cutting the widest stretches left.
A failed build is retried once at once (same round), then skipped like ``git bisect skip``;
a run that never finishes is cancelled after the time per build. A problem every build
would have (no run appears, no artifact of the variant's name) ends the bisection at
once, said in one line.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Protocol

from wheel_size.bisect.search import Plan, ends, plan, spread_points
from wheel_size.bisect.state import NO_ARTIFACT, NO_RUN, TIMED_OUT, Build, State
from wheel_size.ports import GitHubFailure
from wheel_size.ports.trigger import BuildTrigger, RunView, Started
from wheel_size.units import format_size

__all__ = ["Budget", "Clock", "SystemClock", "advance"]


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """Wall time (a state resumed by another process keeps its builds' ages)."""

    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


@dataclass(frozen=True)
class Budget:
    """How much one event may spend, and how long one call waits."""

    builds_per_round: int = 3  # K: builds in flight per step
    max_builds: int = 40
    max_rounds: int = 10
    build_timeout: float = 6 * 3600.0  # a run still unfinished after this is cancelled
    start_timeout: float = 600.0  # a build whose run is not listed after this started none
    wait: float = 0.0  # how long this call may wait for builds
    poll_interval: float = 60.0


def _iso(clock: Clock) -> str:
    moment = datetime.fromtimestamp(clock.now(), timezone.utc).replace(microsecond=0)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _started(build: Build) -> Started:
    return Started(build.sha, build.since, build.run_id, build.html_url, build.tag)


def _finish(build: Build, trigger: BuildTrigger, conclusion: str, note: str | None) -> None:
    build.status = "completed"
    build.conclusion = conclusion
    build.note = note
    trigger.clean(_started(build))


def _read(build: Build, run: RunView, artifact: str) -> tuple[str, str | None]:
    if run.conclusion != "success":
        return (
            run.conclusion or "failure",
            f"run {run.run_id} ended {run.conclusion or 'without a conclusion'}",
        )
    sizes = dict(run.artifacts)
    if artifact in sizes:
        build.size_bytes = sizes[artifact]
        return "success", None
    names = ", ".join(sorted(sizes)) or "nothing"
    return NO_ARTIFACT, f"run {run.run_id} uploaded no artifact {artifact!r} (it uploaded: {names})"


def _poll(state: State, trigger: BuildTrigger, budget: Budget, clock: Clock) -> None:
    for build in state.in_flight():
        taken = frozenset(b.run_id for b in state.builds if b is not build and b.run_id)
        run = trigger.look(_started(build), taken)
        age = clock.now() - build.started_at
        if run is None:
            if age > budget.start_timeout:
                _finish(build, trigger, NO_RUN, f"no run of {trigger.how} appeared in {age:.0f} s")
            continue
        build.run_id, build.html_url = run.run_id, run.html_url
        if run.status == "completed":
            conclusion, note = _read(build, run, state.event.artifact)
            _finish(build, trigger, conclusion, note)
        elif age > budget.build_timeout:
            trigger.cancel(run.run_id)
            _finish(
                build,
                trigger,
                TIMED_OUT,
                f"run {run.run_id} did not finish in {budget.build_timeout:.0f} s: cancelled",
            )
        else:
            build.status = "running"


def _give_up(state: State, reason: str) -> None:
    state.state = "gave-up"
    state.reason = reason


def _fatal(state: State) -> str | None:
    """A failure every further build would repeat: stop now, said once."""
    for build in state.builds:
        if build.conclusion in (NO_RUN, NO_ARTIFACT):
            return f"the build of {build.sha[:12]}: {build.note}"
    return None


def _settle(state: State, found: Plan) -> None:
    order = state.window
    if found.unsettled:
        low, high = ends(found.unsettled[0])
        _give_up(
            state,
            f"the step between {order[low][:12]} and {order[high][:12]} is not "
            "narrowed further: every commit that could split it failed to build",
        )
    elif not found.culprits:
        _give_up(
            state,
            "the change is spread over several commits, none of them a step larger than "
            f"the noise band ({format_size(state.noise_bytes)})",
        )
    else:
        state.state = "done"


def _next(state: State, budget: Budget) -> tuple[list[str], bool] | None:
    """The commits to build now and whether they open a new round; None when settled."""
    order, sizes = state.window, state.sizes()
    retry = [
        b.sha
        for b in state.builds
        if not b.in_flight
        and not b.measured
        and b.attempt == 1
        and b.sha not in sizes
        and state.failures(b.sha) == 1
    ]
    if retry:
        return retry, False
    skipped = {sha for sha in order if sha not in sizes and state.failures(sha) >= 2}
    ends = (order[0], order[-1])
    for end in ends:
        if end in skipped:
            _give_up(state, f"the build of the window's end {end[:12]} failed twice")
            return None
    if not all(end in sizes for end in ends):
        usable = {i for i, sha in enumerate(order) if sha not in sizes and sha not in skipped}
        known = [i for i, sha in enumerate(order) if sha in sizes]  # builds that existed
        points = spread_points(known, len(order) - 1, budget.builds_per_round, usable)
        return [e for e in ends if e not in sizes] + [order[i] for i in points], True
    delta = sizes[ends[1]] - sizes[ends[0]]
    if abs(delta) <= state.noise_bytes:
        _give_up(
            state,
            f"the builds at the window's ends differ by {format_size(delta, signed=True)}, "
            f"within the noise band ({format_size(state.noise_bytes)}): the build workflow "
            "does not reproduce the nightly's jump",
        )
        return None
    found = plan(order, sizes, skipped, k=budget.builds_per_round, noise_bytes=state.noise_bytes)
    if found.done:
        _settle(state, found)
        return None
    return list(found.builds), True


def _step(
    state: State, trigger: BuildTrigger, budget: Budget, clock: Clock, save: Callable[[], None]
) -> None:
    if len(state.window) < 2:
        _give_up(state, "the window holds no commit: there is nothing to build")
        return
    reason = _fatal(state)
    if reason:
        _give_up(state, reason)
        return
    wanted = _next(state, budget)
    if wanted is None:
        return
    shas, new_round = wanted
    if new_round and state.rounds >= budget.max_rounds:
        _give_up(state, f"the round budget ({budget.max_rounds}) is spent")
        return
    room = budget.max_builds - len(state.builds)
    if room <= 0:
        _give_up(state, f"the build budget ({budget.max_builds} builds) is spent")
        return
    if new_round:
        state.rounds += 1
    for sha in shas[:room]:
        attempt = 1 + sum(1 for b in state.builds if b.sha == sha)
        build = Build(sha, state.rounds, attempt, _iso(clock), clock.now())
        state.builds.append(build)
        save()  # asked for: a lost answer must not lose the build's record
        try:
            started = trigger.start(sha)
        except GitHubFailure as exc:
            if not exc.may_have_been_stored:  # refused: nothing was started
                state.builds.remove(build)
                if new_round and not any(b.round == state.rounds for b in state.builds):
                    state.rounds -= 1
                save()
            raise
        build.run_id, build.html_url, build.tag = started.run_id, started.html_url, started.tag
        build.since = started.since
        save()


def advance(
    state: State,
    trigger: BuildTrigger,
    budget: Budget,
    *,
    clock: Clock | None = None,
    save: Callable[[], None] = lambda: None,
) -> State:
    """Run rounds until the bisection is settled or the next poll would pass the wait."""
    clock = clock or SystemClock()
    deadline = clock.now() + budget.wait
    while state.state == "pending":
        _poll(state, trigger, budget, clock)
        save()
        if state.in_flight():
            if clock.now() + budget.poll_interval > deadline:
                return state
            clock.sleep(budget.poll_interval)
            continue
        _step(state, trigger, budget, clock, save)
        save()
    return state

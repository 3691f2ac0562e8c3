"""The nightly action's bisection step: ``bisect-*`` inputs → the same options as
``wheel-size bisect``; after the night is stored, each new jump of a watched variant starts
a bisection, and every pending one goes on: kept beside the history (the data branch's
``bisections/``, one commit a run) or, with ``bisect-state``, in a directory of the
workspace. A settled bisection is posted on its event's issue.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TextIO

from wheel_size.action.tables.track import TRACK
from wheel_size.bisect.document import as_bisection
from wheel_size.bisect.engine import Budget
from wheel_size.bisect.keep import Keeper
from wheel_size.bisect.options import BisectOptions, TriggerOptions, trigger_of
from wheel_size.bisect.state import Event, dump_state
from wheel_size.errors import GitHubError, InputError, WheelSizeError
from wheel_size.ports import GitHubPort
from wheel_size.regressions.builds.bracket import Bisection
from wheel_size.series import SizeSeries, Thresholds
from wheel_size.variants import ArtifactNaming

__all__ = ["NightlyBisect", "bisect_inputs", "bisection_reader", "run_bisect_step"]

# The options speak ``wheel-size bisect``'s flags; an Action user set inputs, so an error
# names the input they wrote.
_INPUT_OF_FLAG = {
    "--build-workflow": "bisect-build-workflow",
    "--dispatch-input": "bisect-dispatch-input",
    "--dispatch-ref": "bisect-dispatch-ref",
    "--tag-pattern": "bisect-tag-pattern",
    "--builds-per-round": "bisect-builds-per-round",
    "--max-builds": "bisect-max-builds",
    "--build-timeout": "bisect-build-timeout",
    "--wait": "bisect-wait",
    "--poll-interval": "bisect-poll-interval",
}
_FLAG = re.compile("|".join(re.escape(f) + r"\b" for f in sorted(_INPUT_OF_FLAG, key=len)[::-1]))


def _in_inputs(error: InputError) -> InputError:
    return InputError(_FLAG.sub(lambda m: f"input {_INPUT_OF_FLAG[m[0]]}", str(error)))


@dataclass(frozen=True)
class NightlyBisect:
    options: BisectOptions
    state_dir: Path | None  # None: on the history store, beside the runs
    max_new: int = 2  # bisections a run starts at most (a backfill finds many jumps)


def bisect_inputs(env: Mapping[str, str], state_dir: Path | None) -> NightlyBisect | None:
    """The bisection options, or None when ``bisect-build-workflow`` is not set (then no
    other ``bisect-*`` input may be)."""
    read = TRACK.read(env)
    workflow = read.text("bisect-build-workflow")
    if not workflow:
        # the inputs without a default (the runner passes every default as given)
        how = ("bisect-dispatch-input", "bisect-dispatch-ref", "bisect-tag-pattern")
        given = [n for n in how if read.text(n)]
        if given:
            raise InputError(f"input {given[0]} needs bisect-build-workflow (the build workflow)")
        return None
    try:
        options = BisectOptions(
            trigger=TriggerOptions(
                workflow,
                read.optional_text("bisect-dispatch-input"),
                read.optional_text("bisect-dispatch-ref"),
                read.optional_text("bisect-tag-pattern"),
            ),
            budget=Budget(
                builds_per_round=read.integer("bisect-builds-per-round"),
                max_builds=read.integer("bisect-max-builds"),
                build_timeout=read.number("bisect-build-timeout"),
                wait=read.number("bisect-wait"),
                poll_interval=read.number("bisect-poll-interval"),
            ),
        )
    except InputError as exc:
        raise _in_inputs(exc) from None
    return NightlyBisect(options, state_dir, read.integer("bisect-max-events"))


def _event(
    bisect: NightlyBisect,
    repo_name: str,
    workflow: str,
    naming: ArtifactNaming,
    variant: str,
    date: str,
) -> Event:
    options = bisect.options
    return Event(
        repo=repo_name, workflow=workflow, date=date, variant=variant, python=naming.python,
        build_workflow=options.trigger.build_workflow, trigger=options.trigger.key,
        artifact=naming.artifact(variant),
    )  # fmt: skip


def bisection_reader(
    bisect: NightlyBisect, keeper: Keeper, *, repo_name: str, workflow: str, naming: ArtifactNaming
) -> Callable[[str, dt.date], Bisection | None]:
    """The kept bisection of an event (variant, night) as the issues read it, or None: the
    issue's verdict says what a pending one builds, its statuses take the builds it made.
    A state that cannot be read is left to the bisection step to say."""

    def read(variant: str, date: dt.date) -> Bisection | None:
        try:
            event = _event(bisect, repo_name, workflow, naming, variant, date.isoformat())
            state = keeper.load(event)
        except WheelSizeError:
            return None
        return as_bisection(state) if state is not None else None

    return read


def run_bisect_step(
    bisect: NightlyBisect,
    keeper: Keeper,
    *,
    github: GitHubPort,
    repo_name: str,
    workflow: str,
    naming: ArtifactNaming,
    thresholds: Thresholds,
    jumps: Sequence[tuple[str, str]],
    series: SizeSeries | None,
    issue_numbers: Mapping[str, int],
    out: TextIO,
    moved: list[dt.date] | None = None,
) -> list[str]:
    """Start or resume the bisection of each jump (variant, ISO date) and of every pending
    one the keeper holds; one line each for the log. A failure of one event is said and the
    others go on; the states are kept (one write), then the first failure is raised.
    ``moved`` receives the nights of the events with an issue whose bisection changed (their
    issue's verdict is then synced again)."""
    from wheel_size.bisect.document import bisect_document
    from wheel_size.bisect.engine import advance
    from wheel_size.bisect.job import new_state
    from wheel_size.bisect.view import comment_key, render_bisect_markdown
    from wheel_size.ports import GitHubFailure
    from wheel_size.ports.builds import DEFAULT_MAX_LOG_BYTES
    from wheel_size.sticky import post_sticky_in

    options = bisect.options
    pending = keeper.pending(repo_name)
    new = [j for j in sorted(jumps, key=lambda j: j[1], reverse=True) if j not in pending]
    lines: list[str] = [
        f"bisect {variant} {date}: not started (bisect-max-events: {bisect.max_new} a run)"
        for variant, date in new[bisect.max_new :]
    ]
    todo = dict.fromkeys(pending) | dict.fromkeys(new[: bisect.max_new])
    first_error: WheelSizeError | None = None
    trigger = trigger_of(github, repo_name, options.trigger)
    for variant, date in todo:
        event = _event(bisect, repo_name, workflow, naming, variant, date)
        try:
            state = keeper.load(event)
            if state is None:
                points = series.variant(variant) if series is not None else []
                day = dt.date.fromisoformat(date)
                repo = github.repository(repo_name)
                builds = github.builds(  # the builds that exist are read first
                    repo_name, log_url_template=None, max_log_bytes=DEFAULT_MAX_LOG_BYTES
                )
                state = new_state(event, points, day, thresholds, repo, builds=builds)
            kept = state
            kept.issue = issue_numbers.get(f"jump/{variant}/{date}", kept.issue)
            keeper.save(kept)
            before = dump_state(kept)
            advance(kept, trigger, options.budget, save=partial(keeper.save, kept))
            if moved is not None and kept.issue is not None and dump_state(kept) != before:
                moved.append(dt.date.fromisoformat(date))
            doc = bisect_document(kept)
            number = kept.issue
            if number is not None and kept.state != "pending" and kept.builds:
                body = render_bisect_markdown(doc, repo_url=github.repository(repo_name).html_url)
                post_sticky_in(github, repo_name, number, body, comment_key(doc))
            culprits = ", ".join(c["sha"][:12] for c in doc["culprits"]) or "none"
            lines.append(
                f"bisect {variant} {date}: {kept.state}, culprits {culprits}, "
                f"{doc['builds_spent']} builds in {doc['rounds']} rounds"
                + (f" ({kept.reason})" if kept.reason else "")
            )
        except GitHubFailure as exc:
            error: WheelSizeError = GitHubError(f"bisecting {variant} on {date}: {exc}")
            lines.append(str(error))
            first_error = first_error or error
        except WheelSizeError as exc:
            lines.append(str(exc))
            first_error = first_error or exc
    keeper.flush()
    for line in lines:
        out.write(f"wheel-size: {line}\n")
    if first_error is not None:
        raise first_error
    return lines

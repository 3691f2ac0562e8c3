"""``bisect --format json``: the state a call ended in, the culprits the builds confirm, every
build with its run and size, the rounds spent. Also the context of the follow-up comment.

A culprit is only a commit whose own build and its parent's differ by more than the noise
band: the document never claims more than the builds showed.
"""

from __future__ import annotations

from typing import TypedDict

from wheel_size.bisect.search import Plan, ends, plan
from wheel_size.bisect.state import Build, State
from wheel_size.regressions.builds.bracket import Bisection, BuildPoint

__all__ = [
    "BisectDocument",
    "BracketJson",
    "BuildJson",
    "CulpritJson",
    "as_bisection",
    "bisect_document",
    "culprits",
]


class CulpritJson(TypedDict):
    sha: str
    parent: str
    size_before: int
    size_after: int
    delta_bytes: int


class BracketJson(TypedDict):
    first: str  # the first suspect
    last: str  # the commit first built at the new size
    suspects: int
    delta_bytes: int


class BuildJson(TypedDict):
    sha: str
    run_id: int | None
    html_url: str | None
    size_bytes: int | None
    conclusion: str | None
    status: str
    round: int
    attempt: int
    tag: str | None
    note: str | None


class BisectDocument(TypedDict):
    state: str
    reason: str | None
    repo: str
    date: str
    variant: str
    build_workflow: str
    trigger: str
    artifact: str
    window_commits: int
    noise_bytes: int
    culprits: list[CulpritJson]
    brackets: list[BracketJson]
    builds: list[BuildJson]
    existing_builds: list[BuildJson]  # found in the window before anything was built
    builds_spent: int
    rounds: int


def _plan(state: State) -> Plan | None:
    sizes = state.sizes()
    order = state.window
    if len(order) < 2 or order[0] not in sizes or order[-1] not in sizes:
        return None
    skipped = {s for s in order if s not in sizes and state.failures(s) >= 2}
    return plan(order, sizes, skipped, k=1, noise_bytes=state.noise_bytes)


def culprits(state: State) -> list[CulpritJson]:
    """The one-suspect brackets: commits whose build and their parent's show the step."""
    sizes, order = state.sizes(), state.window
    out: list[CulpritJson] = []
    found = _plan(state)
    for b in found.culprits if found else ():
        low, high = ends(b)
        before, after = sizes[order[low]], sizes[order[high]]
        out.append(
            CulpritJson(
                sha=order[high],
                parent=order[low],
                size_before=before,
                size_after=after,
                delta_bytes=after - before,
            )
        )
    return out


def _build_json(b: Build) -> BuildJson:
    return BuildJson(
        sha=b.sha,
        run_id=b.run_id,
        html_url=b.html_url,
        size_bytes=b.size_bytes,
        conclusion=b.conclusion,
        status=b.status,
        round=b.round,
        attempt=b.attempt,
        tag=b.tag,
        note=b.note,
    )


def as_bisection(state: State) -> Bisection:
    """The state as the analysis reads it (:class:`~wheel_size.regressions.builds.bracket.
    Bisection`): the builds it made become points of the window's size series, so the
    issue's statuses and verdict come from the same brackets (set in one place,
    ``Investigation.settle``)."""

    def point(b: Build, source: str) -> BuildPoint:
        size = b.size_bytes if b.measured else None
        return BuildPoint(b.sha, size, b.conclusion, b.run_id, b.html_url or "", source)

    made = tuple(  # only finished builds: a failed one is said, never used as a size
        point(b, f"bisection build, run {b.run_id}" if b.run_id else "bisection build")
        for b in state.builds
        if not b.in_flight
    )
    existing = tuple(point(b, f"build of run {b.run_id}") for b in state.existing)
    building = tuple(dict.fromkeys(b.sha for b in state.in_flight()))
    return Bisection(state.state, made, building, state.reason, existing)


def bisect_document(state: State) -> BisectDocument:
    order = state.window
    found = _plan(state)
    return BisectDocument(
        state=state.state,
        reason=state.reason,
        repo=state.event.repo,
        date=state.event.date,
        variant=state.event.variant,
        build_workflow=state.event.build_workflow,
        trigger=state.event.trigger,
        artifact=state.event.artifact,
        window_commits=max(len(order) - 1, 0),
        noise_bytes=state.noise_bytes,
        culprits=culprits(state),
        brackets=[
            BracketJson(
                first=order[b.first_index + 1],
                last=order[b.last_index + 1],
                suspects=b.commits,
                delta_bytes=b.delta,
            )
            for b in (found.brackets if found else ())
            if not b.single
        ],
        builds=[_build_json(b) for b in state.builds],
        existing_builds=[_build_json(b) for b in state.existing],
        builds_spent=len(state.builds),
        rounds=state.rounds,
    )

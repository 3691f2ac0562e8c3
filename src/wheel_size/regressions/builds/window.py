"""Every build in the window, read cheaply, and each candidate's status from them (issue 28).

Instead of looking builds up candidate by candidate down the ranking, the build workflow's
runs are listed once over the window's ``created`` range (a few pages whatever the window's
size), the runs at a commit of the window or at its base are kept, and their sizes are read
from one repository-wide listing of the variant's artifact by name (``size_in_bytes`` stays
listed after an artifact expired). Only a successful run missing from that listing costs a
request of its own (its artifacts, then the build job's log). The sizes, anchored by the
two nightlies, go to :func:`~wheel_size.regressions.builds.bracket.bracket_steps`;
:func:`verdicts_from_brackets` turns each candidate's coverage into the seed's status.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from wheel_size.ports.builds import BuildDataUnavailable, BuildPort, BuildRun, RunListing
from wheel_size.regressions.builds.bracket import BracketResult, BuildPoint, Coverage
from wheel_size.regressions.builds.bracket import night_wobble as history_noise
from wheel_size.regressions.builds.bracket import noise_band as bracket_noise
from wheel_size.regressions.builds.evidence import (
    _BUILDISH,
    BuildEvidenceOptions,
    BuildVerdict,
    Measurement,
    _matches,
    _Target,
    _wanted_jobs,
)
from wheel_size.regressions.builds.logs import LogSize, find_wheel_size
from wheel_size.regressions.ranking.evidence import CLEARED, CONFIRMED, LIKELY, NOT_CONFIRMED
from wheel_size.render.templates import render_macro
from wheel_size.units import MB, in_mb

__all__ = [
    "WindowBuilds",
    "comparable",
    "configured_noise_band",
    "history_noise",
    "read_window_builds",
    "verdicts_from_brackets",
]

#: Successful runs whose size is not in the artifact listing, read one by one at most.
MAX_FALLBACK_RUNS = 4
_FAILED = {"failure", "timed_out", "cancelled", "startup_failure"}


@dataclass
class WindowBuilds:
    """The builds found at the window's commits, what reading them cost, what to say."""

    points: list[BuildPoint] = field(default_factory=list)
    requests: int = 0
    runs_listed: int = 0
    notes: list[str] = field(default_factory=list)


def _workflows(options: BuildEvidenceOptions) -> list[str | None]:
    """The workflows to list: the configured ones given as a file name or an id; none:
    every workflow, filtered by the patterns (names) afterwards."""
    exact = [w for w in options.workflows if w.endswith((".yml", ".yaml")) or w.isdigit()]
    return list(dict.fromkeys(exact)) or [None]


def _buildish(run: BuildRun, options: BuildEvidenceOptions, listed_one: bool) -> bool:
    if listed_one:
        return True
    if options.workflows:
        return _matches(options.workflows, run.name, run.path.rsplit("/", 1)[-1])
    return bool(_BUILDISH.search(f"{run.name} {run.path}"))


def _listings(
    port: BuildPort,
    workflow: str | None,
    start: dt.date,
    end: dt.date,
    options: BuildEvidenceOptions,
    found: WindowBuilds,
) -> list[RunListing]:
    """The runs over ``start..end``; a listing cut short (page cap, or GitHub's 1,000
    results per search) is read again one day at a time, as the API's description advises."""

    def listing(created: str) -> RunListing | None:
        try:
            got = port.runs_created(workflow, created, options.branch, options.window_pages)
        except BuildDataUnavailable as exc:
            found.notes.append(_say("runs_unlisted", created=created, why=exc.reason))
            return None
        found.requests += got.requests
        return got

    whole = listing(f"{start.isoformat()}..{end.isoformat()}")
    if whole is None:
        return []
    if whole.complete or start >= end:
        days = [whole]
    else:
        days = [whole]
        for offset in range((end - start).days + 1):
            day = listing((start + dt.timedelta(days=offset)).isoformat())
            if day is not None:
                days.append(day)
    short = [d for d in days[1:] or days if not d.complete]
    if short:
        found.notes.append(_say("pages_full", workflow=workflow, pages=options.window_pages))
    found.runs_listed += len({r.id for d in days for r in d.runs})
    return days


def read_window_builds(
    port: BuildPort,
    *,
    commits: Sequence[str],
    base_sha: str | None,
    start: dt.date,
    end: dt.date,
    variant: str,
    artifact: str | None,
    options: BuildEvidenceOptions,
    skip_events: Collection[str] = (),
) -> WindowBuilds:
    """Builds at ``commits`` (and at ``base_sha``) among the runs created from ``start`` to
    ``end`` (inclusive, UTC days); runs started by one of ``skip_events`` are left out (a
    bisection's own dispatched runs carry the dispatched branch's tip as their commit, not
    the commit they built). Never raises for missing data: what could not be read becomes
    a note."""
    found = WindowBuilds()
    wanted = set(commits) | ({base_sha} if base_sha else set())
    if not wanted or not artifact:
        return found
    runs: dict[int, BuildRun] = {}
    builders: set[int] = set()  # runs of a build workflow: their failures are said
    workflows = _workflows(options)
    for workflow in workflows:
        for listing in _listings(port, workflow, start, end, options, found):
            for run in listing.runs:
                if run.head_sha in wanted and run.event not in skip_events:
                    runs[run.id] = run
                    if _buildish(run, options, workflow is not None):
                        builders.add(run.id)
    if not runs:
        return found
    sizes: dict[int, tuple[int, bool]] = {}
    try:
        named = port.artifacts_named(artifact, start.isoformat(), options.window_pages)
        found.requests += named.requests
        for item in named.artifacts:
            if item.run_id in runs and item.artifact.size_in_bytes > 0:
                sizes.setdefault(item.run_id, (item.artifact.size_in_bytes, item.artifact.expired))
    except BuildDataUnavailable as exc:
        found.notes.append(_say("artifacts_unlisted", artifact=artifact, why=exc.reason))
    target = _Target(variant, artifact)
    fallbacks = 0
    for run in sorted(runs.values(), key=lambda r: -r.id):
        if run.id in sizes:
            size, expired = sizes[run.id]
            source = _say(
                "artifact_source", name=artifact, run=run.id, run_name=run.name, expired=expired
            )
            found.points.append(
                BuildPoint(run.head_sha, size, run.conclusion, run.id, run.html_url, source)
            )
            continue
        if run.id not in builders:
            continue  # a lint or test run: no wheel, nothing to say
        if run.status not in (None, "completed"):
            found.notes.append(
                _say("still_running", run=run.id, sha=run.head_sha[:12], status=run.status)
            )
            continue
        if run.conclusion in _FAILED:
            found.points.append(
                BuildPoint(run.head_sha, None, run.conclusion, run.id, run.html_url,
                           f"run {run.id} ({run.name})")
            )  # fmt: skip
            continue
        if fallbacks < MAX_FALLBACK_RUNS:
            fallbacks += 1
            point = _fallback(port, run, target, options, found)
            if point is not None:
                found.points.append(point)
    return found


def _fallback(
    port: BuildPort,
    run: BuildRun,
    target: _Target,
    options: BuildEvidenceOptions,
    found: WindowBuilds,
) -> BuildPoint | None:
    """A successful run the artifact listing did not name: its own artifacts, else the
    build job's log (the wheel's size, coarser and not comparable with the artifact's)."""
    try:
        found.requests += 1
        for item in port.artifacts_of_run(run):
            if item.name == target.artifact and item.size_in_bytes > 0:
                source = _say("artifact_source", name=item.name, run=run.id)
                return BuildPoint(
                    run.head_sha, item.size_in_bytes, run.conclusion, run.id, run.html_url, source
                )
        found.requests += 1
        jobs = port.jobs_of_run(run)
    except BuildDataUnavailable as exc:
        found.notes.append(f"run {run.id} at {run.head_sha[:12]}: {exc.reason}")
        return None
    for job in _wanted_jobs(jobs, target, options):
        try:
            found.requests += 1
            text = port.job_log(job)
        except BuildDataUnavailable as exc:
            found.notes.append(f"job {job.name!r}: {exc.reason}")
            continue
        size = find_wheel_size(
            text, variant=target.variant, artifact=target.artifact, patterns=options.log_patterns
        )
        if isinstance(size, LogSize):
            return BuildPoint(run.head_sha, size.size_bytes, run.conclusion, run.id,
                              job.html_url, _say("log_source", job=job.name), "wheel",
                              size.resolution_bytes)  # fmt: skip
    return None


def _mb(value: float) -> str:
    return f"{in_mb(value, signed=True, digits=2)} MB"


def _at(point: BuildPoint) -> str:
    assert point.size_bytes is not None
    return f"{point.source or 'build'} at {point.sha[:12]} ({in_mb(point.size_bytes, digits=2)} MB)"


def _measurement(point: BuildPoint) -> Measurement:
    assert point.size_bytes is not None
    return Measurement(
        point.sha, point.size_bytes, point.resolution_bytes, point.kind,
        point.source or "build", point.url,
    )  # fmt: skip


def _say(verdict: str, **values: object) -> str:
    """A build verdict's words: the macro ``verdict`` of ``build_verdict.txt.j2``."""
    return render_macro("build_verdict.txt.j2", verdict, **values)


def _verdict(
    cov: Coverage, result: BracketResult, jump: int, options: BuildEvidenceOptions, n: int
) -> BuildVerdict:
    failed = [(b.run_id, b.conclusion) for b in cov.failed]
    before, after = cov.before, cov.after
    if before is None or after is None or cov.span is None:
        return BuildVerdict(cov.sha, None, LIKELY, _say("no_side", failed=failed))
    parent = before.sha
    delta = cov.delta or 0
    span = cov.span
    between = _say("between", before=_at(before), after=_at(after))
    if cov.before_index == -1 and cov.after_index == n - 1 and n > 1 and cov.bracket is not None:
        # Only the two nightlies: the builds say nothing the night did not.
        return BuildVerdict(cov.sha, None, LIKELY, _say("nightlies_only", failed=failed))
    suspect, base = _measurement(after), _measurement(before)
    noise = result.noise_bytes + cov.slack
    same = delta != 0 and (delta > 0) == (jump > 0)
    if cov.bracket is None:
        why = _say(
            "within_noise", between=between, delta=_mb(delta), noise=_mb(noise)[1:], failed=failed
        )
        return BuildVerdict(cov.sha, parent, NOT_CONFIRMED, why, suspect, base)
    if not same and abs(delta) > noise:
        why = _say("other_way", between=between, span=span, delta=_mb(delta), failed=failed)
        return BuildVerdict(cov.sha, parent, CLEARED, why, suspect, base)
    if span > 1:
        why = _say("not_alone", span=span, between=between, delta=_mb(delta), failed=failed)
        return BuildVerdict(cov.sha, None, LIKELY, why)
    share = abs(delta) / abs(jump) if jump else 0.0
    if share < options.min_share:
        why = _say("negligible", between=between, delta=_mb(delta), jump=_mb(jump))
        return BuildVerdict(cov.sha, parent, NOT_CONFIRMED, why, suspect, base)
    if share > options.max_share:
        why = _say("too_much", between=between, delta=_mb(delta), jump=_mb(jump))
        return BuildVerdict(cov.sha, parent, LIKELY, why, suspect, base)
    why = _say("confirmed", between=between, delta=_mb(delta), share=share, jump=_mb(jump))
    return BuildVerdict(cov.sha, parent, CONFIRMED, why, suspect, base)


def verdicts_from_brackets(
    result: BracketResult,
    candidates: Sequence[str],
    *,
    jump_bytes: int,
    options: BuildEvidenceOptions,
    not_looked_up: str | None = None,
) -> dict[str, BuildVerdict]:
    """Every candidate's verdict from the builds around it (LIKELY: no build decides it,
    with the reason; the caller keeps the code's status then). ``not_looked_up``: why a
    candidate the builds do not cover was not (None: not among the window's commits)."""
    n = len(result.coverage)
    out: dict[str, BuildVerdict] = {}
    for sha in candidates:
        cov = result.of(sha)
        if cov is None:
            why = _say("not_looked_up", why=not_looked_up)
            out[sha] = BuildVerdict(sha, None, LIKELY, why)
        else:
            out[sha] = _verdict(cov, result, jump_bytes, options, n)
    return out


def comparable(points: Sequence[BuildPoint], old: int, new: int, noise: int) -> bool:
    """Whether the builds measure what the nightlies measure, so the two nights can be the
    window's two ends: every build's size lies within the nights' sizes widened by twice
    the night's change and the noise (a commit may move the size the other way, or two
    steps may overshoot; a build further off than that is another configuration)."""
    slack = 2 * abs(new - old) + noise
    low, high = min(old, new) - slack, max(old, new) + slack
    sizes = [p.size_bytes for p in points if p.size_bytes is not None and p.kind == "artifact"]
    return all(low <= s <= high for s in sizes)


def configured_noise_band(jump_bytes: int, options: BuildEvidenceOptions, history: int = 0) -> int:
    """:func:`~wheel_size.regressions.builds.bracket.noise_band` with the options' floor
    and share (``history``: the night-to-night wobble)."""
    return bracket_noise(
        jump_bytes, history, floor_bytes=options.noise_mb * MB, share=options.noise_share
    )

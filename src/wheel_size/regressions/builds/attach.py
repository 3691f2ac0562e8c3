"""Put per-commit build evidence into an investigation: statuses, a Markdown section, JSON.

The enricher runs :func:`~wheel_size.regressions.builds.evidence.verify_candidates` down the
ranking of a jump and never fails the issue: an unexpected error becomes a note and the
candidates keep their statuses. Measured builds are the decisive evidence, so they re-rank:
a CONFIRMED candidate goes first, one measured with negligible impact (NOT CONFIRMED) or
disproved (CLEARED) goes below every candidate not measured.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Sequence

from wheel_size.oneline import one_line
from wheel_size.ports.builds import (
    ArtifactListing,
    BuildArtifact,
    BuildJob,
    BuildRun,
    RunListing,
)
from wheel_size.regressions.builds.bracket import (
    Bisection,
    BracketResult,
    BuildPoint,
    bracket_steps,
)
from wheel_size.regressions.builds.evidence import (
    BuildCache,
    BuildEvidenceOptions,
    BuildPort,
    BuildVerdict,
)
from wheel_size.regressions.builds.window import (
    WindowBuilds,
    comparable,
    configured_noise_band,
    history_noise,
    read_window_builds,
    verdicts_from_brackets,
)
from wheel_size.regressions.investigation import Candidate, Investigation
from wheel_size.regressions.ranking.order import order_by_score
from wheel_size.regressions.ranking.rank import Ranked
from wheel_size.render import render
from wheel_size.render.templates import render_macro
from wheel_size.series import MB

__all__ = [
    "Bisections",
    "attach_build_evidence",
    "bisection_enricher",
    "build_evidence_enricher",
    "build_markdown",
    "locate_builds",
    "rerank",
    "rerank_ranked",
]


def _proofs(verdict: BuildVerdict) -> list[dict[str, str]]:
    proofs = []
    for label, measured in (("after", verdict.suspect), ("before", verdict.base)):
        if measured is not None and measured.url:
            proofs.append({"label": f"{label}: {measured.source}", "url": measured.url})
    return proofs


def build_markdown(
    inv: Investigation, verdicts: dict[str, BuildVerdict], options: BuildEvidenceOptions
) -> str:
    """The "Per-commit builds" section (text from logs and names is neutralised)."""
    repo_url = f"https://github.com/{inv.repo}"
    by_sha = {c.classified.commit.sha: c.classified.commit for c in inv.candidates}
    status_of = {c.classified.commit.sha: c.status.status for c in inv.candidates}
    rows = []
    for sha, verdict in verdicts.items():
        commit = by_sha.get(sha)
        delta = verdict.delta_bytes
        rows.append(
            {
                "sha": sha[:12],
                "url": (commit.html_url if commit else "") or f"{repo_url}/commit/{sha}",
                "page_url": options.commit_url(sha),
                "parent": (verdict.parent or "")[:12] or None,
                "parent_url": f"{repo_url}/commit/{verdict.parent}",
                # One status per candidate per issue: the candidate's own.
                "status": status_of.get(sha, verdict.status),
                "measured": verdict.measured,
                "base_mb": verdict.base.size_bytes / MB if verdict.base else None,
                "delta_mb": None if delta is None else delta / MB,
                "proofs": _proofs(verdict),
                "reason": verdict.reason,
            }
        )
    return render(
        "build_evidence.md.j2",
        rows=rows,
        measured=[r for r in rows if r["measured"]],
        jump_mb=inv.event.delta_mb,
    )


def rerank_ranked(items: Sequence[Ranked], verdicts: dict[str, BuildVerdict]) -> list[Ranked]:
    """A plain ranking ordered with its builds (the evaluation set uses it): the one order
    of :func:`~wheel_size.regressions.ranking.order.order_by_score`."""
    return order_by_score(items, verdicts)


def rerank(candidates: list[Candidate], verdicts: dict[str, BuildVerdict]) -> list[Candidate]:
    """Candidates in the one order (:func:`order_by_score`), their statuses unchanged."""
    by_sha = {c.classified.commit.sha: c for c in candidates}
    items = [c.classified for c in candidates]
    if not all(isinstance(i, Ranked) for i in items):
        return candidates
    ordered = order_by_score([i for i in items if isinstance(i, Ranked)], verdicts)
    return [dataclasses.replace(by_sha[i.commit.sha], classified=i) for i in ordered]


def attach_build_evidence(
    inv: Investigation, verdicts: dict[str, BuildVerdict], options: BuildEvidenceOptions
) -> Investigation:
    """The builds' verdicts kept, then :meth:`Investigation.settle` (the one place that
    sets statuses and the order); the section and its JSON."""
    inv.commit_url_template = options.commit_url_template
    if not verdicts:
        return inv
    inv.build_verdicts = dict(verdicts)
    inv.settle()
    shown = {s: v for s, v in verdicts.items() if v.measured or v.suspect is not None}
    inv.build_markdown = build_markdown(inv, shown, options) if shown else None
    inv.build_json = [v.to_json() for v in verdicts.values()]
    return inv


def locate_builds(
    port: BuildPort, inv: Investigation, options: BuildEvidenceOptions, history: int = 0
) -> tuple[dict[str, BuildVerdict], BracketResult | None, WindowBuilds]:
    """Every build in the event's window, the brackets they draw and each candidate's
    verdict (issue 28): one listing of the window's runs, one of the artifact's sizes."""
    event, window = inv.event, inv.window
    commits = [c.sha for c in window.commits]
    base_sha = window.compared[0] if window.compared else None
    start = event.before.date - dt.timedelta(days=1)
    end = event.after.date + dt.timedelta(days=options.created_slack_days)
    # With a bisection, dispatched runs are its own (their head_sha is the dispatched
    # branch's tip, not the commit they built): their sizes come from its state instead.
    skip = ("workflow_dispatch",) if inv.bisection is not None else ()
    found = read_window_builds(
        port, commits=commits, base_sha=base_sha, start=start, end=end,
        variant=event.variant, artifact=event.after.artifact, options=options,
        skip_events=skip,
    )  # fmt: skip
    if inv.bisection is not None:  # the bisection's own builds: more points of the series
        found.points.extend(inv.bisection.points)
    jump = event.after.size_bytes - event.before.size_bytes
    night = "nightly of {}"
    base = (
        BuildPoint(base_sha, event.before.size_bytes, "success", event.before.run_id, "",
                   night.format(event.before.date.isoformat()))
        if base_sha else None
    )  # fmt: skip
    head = (
        BuildPoint(commits[-1], event.after.size_bytes, "success", event.after.run_id, "",
                   night.format(event.after.date.isoformat()))
        if commits and not window.truncated else None
    )  # fmt: skip
    noise = configured_noise_band(jump, options, history)
    if not comparable(found.points, event.before.size_bytes, event.after.size_bytes, noise):
        base = head = None
        found.notes.append(render_macro("build_verdict.txt.j2", "incomparable"))
    result = bracket_steps(
        commits, found.points, noise_bytes=noise, base=base, head=head, base_sha=base_sha
    )
    shas = [c.classified.commit.sha for c in inv.candidates]
    verdicts = verdicts_from_brackets(result, shas, jump_bytes=jump, options=options)
    return verdicts, result, found


class _SharedRuns:
    """The port, with the window's run listings kept: the variants of one night share their
    window, so its runs are listed once per run of the nightly (each variant still reads
    its own artifact's sizes)."""

    def __init__(self, port: BuildPort) -> None:
        self.port = port
        self.listings: dict[tuple[str | None, str, str | None, int], RunListing] = {}

    def runs_created(
        self, workflow: str | None, created: str, branch: str | None, max_pages: int
    ) -> RunListing:
        key = (workflow, created, branch, max_pages)
        if key not in self.listings:
            self.listings[key] = self.port.runs_created(workflow, created, branch, max_pages)
            return self.listings[key]
        kept = self.listings[key]
        return RunListing(kept.runs, 0, kept.complete)  # asked already: no request

    def artifacts_named(self, name: str, since: str, max_pages: int) -> ArtifactListing:
        return self.port.artifacts_named(name, since, max_pages)

    def runs_for_sha(self, sha: str) -> Sequence[BuildRun]:
        return self.port.runs_for_sha(sha)

    def artifacts_of_run(self, run: BuildRun) -> Sequence[BuildArtifact]:
        return self.port.artifacts_of_run(run)

    def check_runs_for_sha(self, sha: str, max_pages: int) -> Sequence[BuildJob]:
        return self.port.check_runs_for_sha(sha, max_pages)

    def jobs_of_run(self, run: BuildRun) -> Sequence[BuildJob]:
        return self.port.jobs_of_run(run)

    def job_log(self, job: BuildJob) -> str:
        return self.port.job_log(job)

    def parent_of(self, sha: str) -> str | None:
        return self.port.parent_of(sha)


#: The bisection of an event, by variant and night (None: none was started).
Bisections = Callable[[str, dt.date], Bisection | None]


def build_evidence_enricher(
    port: BuildPort,
    options: BuildEvidenceOptions,
    cache: BuildCache | None = None,
    bisections: Bisections | None = None,
) -> Callable[[Investigation], Investigation]:
    """An ``enrich`` step for :func:`~wheel_size.regressions.issues.alerts.alert_night`: the
    window's builds located (:func:`locate_builds`), with the builds of the event's
    bisection when ``bisections`` knows one, the statuses set from them."""
    del cache  # the per-candidate answers are gone; the window's run listing is shared
    shared = _SharedRuns(port)

    def enrich(inv: Investigation) -> Investigation:
        event = inv.event
        if bisections is not None and event.kind == "jump":
            inv.bisection = bisections(event.variant, event.date)
        if not options.enabled or options.top <= 0 or event.kind != "jump" or not inv.candidates:
            inv.commit_url_template = options.commit_url_template
            return inv
        try:
            wobble = history_noise(inv.chart, event.before.date + dt.timedelta(days=1))
            verdicts, result, found = locate_builds(shared, inv, options, wobble)
        except Exception as exc:  # the issue matters more than its evidence
            said = render_macro(
                "build_verdict.txt.j2", "evidence_failed", kind=type(exc).__name__, error=exc
            )
            inv.notes.append(one_line(said, 300))
            inv.commit_url_template = options.commit_url_template
            return inv
        inv.notes.extend(found.notes)
        inv.brackets = result
        inv.build_requests = found.requests
        return attach_build_evidence(inv, verdicts, options)

    return enrich


class _NoListing(_SharedRuns):
    """A port that lists no run (the window's builds were not asked for): only the
    bisection's own builds are read."""

    def __init__(self) -> None:
        self.listings = {}

    def runs_created(
        self, workflow: str | None, created: str, branch: str | None, max_pages: int
    ) -> RunListing:
        return RunListing((), 0, True)


def bisection_enricher(bisections: Bisections) -> Callable[[Investigation], Investigation]:
    """The builds of each event's bisection, without listing the window's other builds (the
    build evidence is turned off): the same brackets and statuses, one place to set them.
    An event without a bisection is left as it is."""
    inner = build_evidence_enricher(_NoListing(), BuildEvidenceOptions(), bisections=bisections)

    def enrich(inv: Investigation) -> Investigation:
        event = inv.event
        if event.kind != "jump" or bisections(event.variant, event.date) is None:
            return inv
        return inner(inv)

    return enrich

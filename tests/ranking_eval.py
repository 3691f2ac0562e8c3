"""The ranking evaluation set: load a window, explain it the way ``investigate`` does
(revert pairs out, night fingerprint, content facts, per-commit builds), score the answer.

Parts: ``tests/data/ranking`` (development: rules may be written against it),
``tests/data/ranking_blind`` (frozen: written before the rules it judges; never tuned on),
``tests/data/ranking_blind2`` (frozen: written after those rules, run once; never tuned on) and
``tests/data/ranking_blind3`` (frozen: written blind to the rules' code, run once; never tuned on).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wheel_size.ports.builds import (
    ArtifactListing,
    BuildArtifact,
    BuildDataUnavailable,
    BuildJob,
    BuildRun,
    NamedArtifact,
    RunListing,
)
from wheel_size.regressions.builds.attach import rerank_ranked
from wheel_size.regressions.builds.bracket import BuildPoint, bracket_steps
from wheel_size.regressions.builds.evidence import (
    BuildEvidenceOptions,
    BuildVerdict,
    SuspectRef,
    verify_candidates,
)
from wheel_size.regressions.builds.window import (
    comparable,
    configured_noise_band,
    read_window_builds,
    verdicts_from_brackets,
)
from wheel_size.regressions.ranking.content_facts import facts_from_diff_json
from wheel_size.regressions.ranking.fingerprint import Fingerprint, fingerprint
from wheel_size.regressions.ranking.rank import Ranked, leading_group, rank_commits
from wheel_size.regressions.window.commits import Commit, commit_from_api
from wheel_size.regressions.window.reverts import remove_revert_pairs

DATA = Path(__file__).resolve().parent / "data" / "ranking"
#: Issue 28's blind set: windows of real shape from a stretch of history not used before,
#: with sparse per-commit builds (``builds_at``); judged once.
BLIND4 = Path(__file__).resolve().parent / "data" / "ranking_blind4"
BLIND = Path(__file__).resolve().parent / "data" / "ranking_blind"
BLIND2 = Path(__file__).resolve().parent / "data" / "ranking_blind2"
BLIND3 = Path(__file__).resolve().parent / "data" / "ranking_blind3"
MB = 1 << 20
BASE_BYTES = 800 * MB
BUILD_STATUSES = ("CONFIRMED", "NOT CONFIRMED", "CLEARED")


@dataclass
class Window:
    name: str
    path: Path
    direction: str  # growth, shrink, or none (no jump in the investigated variant)
    variant: str
    deltas: dict[str, float | None]
    commits: list[Commit]
    expected: list[str]  # the culprits (several for joint culprits; none: no jump/unclear)
    content: dict[str, Any] | None
    threshold_mb: float = 1.0
    builds_mb: dict[str, float] = field(default_factory=dict)  # sha -> its per-commit delta
    expected_status: dict[str, str] = field(default_factory=dict)
    expected_moved: list[str] = field(default_factory=list)
    unclear: bool = False  # the right answer is "no clear culprit"
    # Issue 28: commits with a build of their own (sparse; sizes follow from the true
    # per-commit deltas) and commits whose build failed.
    builds_at: list[str] = field(default_factory=list)
    builds_failed: list[str] = field(default_factory=list)
    # The true change of commits without a measured delta (MB), when the window says it.
    true_mb: dict[str, float] = field(default_factory=dict)

    @property
    def no_jump(self) -> bool:
        return self.direction == "none"


@dataclass
class Result:
    window: Window
    ranked: list[Ranked]
    fingerprint: Fingerprint
    rank: int | None  # the worst rank of the culprits; None: a culprit was removed
    statuses: dict[str, str | None] = field(default_factory=dict)
    said_no_jump: bool = False
    said_unclear: bool = False
    group: list[Ranked] = field(default_factory=list)  # the leading group when unclear
    verdicts: dict[str, BuildVerdict] = field(default_factory=dict)

    @property
    def culprit(self) -> Ranked | None:
        return next((r for r in self.ranked if r.commit.sha in self.window.expected), None)

    @property
    def first(self) -> bool:
        return bool(self.ranked) and self.ranked[0].commit.sha in self.window.expected

    @property
    def statuses_right(self) -> tuple[int, int]:
        """(right, expected): a commit not looked up counts as not right (strict)."""
        want = self.window.expected_status
        return sum(self.statuses.get(s) == v for s, v in want.items()), len(want)

    @property
    def statuses_wrong(self) -> int:
        """Build statuses given that contradict the expected ones (LIKELY is no status)."""
        want = self.window.expected_status
        given = {s: v for s, v in self.statuses.items() if v in BUILD_STATUSES}
        return sum(1 for s, v in given.items() if s in want and want[s] != v)

    @property
    def statuses_not_looked_up(self) -> int:
        """Expected statuses of commits the lookups never reached (the night was accounted
        for by builds above them, or the budget ended)."""
        return sum(1 for s in self.window.expected_status if self.statuses.get(s) is None)

    @property
    def answered(self) -> bool:
        """The window's question answered right: no jump, no clear culprit, or the culprits
        in the top 3."""
        if self.window.no_jump:
            named = {name for name, _ in self.fingerprint.elsewhere}
            return self.said_no_jump and set(self.window.expected_moved) <= named
        if self.window.unclear:
            return self.said_unclear
        return not self.said_no_jump and self.rank is not None and self.rank <= 3


def _api_commit(entry: dict[str, Any]) -> dict[str, Any]:
    files = []
    for f in entry.get("files") or []:
        patch = f.get("patch")
        if f.get("submodule"):
            patch = "@@ -1 +1 @@\n-Subproject commit aaaa\n+Subproject commit bbbb"
        files.append(
            {
                "filename": f["path"],
                "status": f.get("status", "modified"),
                "additions": f.get("additions", 0),
                "deletions": f.get("deletions", 0),
                **({"patch": patch} if patch else {}),
            }
        )
    return {"sha": entry["sha"], "commit": {"message": entry["message"]}, "files": files}


def load_window(path: Path) -> Window:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    expected = doc.get("expected_culprits") or (
        [doc["expected_culprit"]] if doc.get("expected_culprit") else []
    )
    return Window(
        name=doc["name"],
        path=path,
        direction=doc["direction"],
        variant=doc["variant"],
        deltas=dict(doc["deltas_mb"]),
        commits=[commit_from_api(_api_commit(c), with_files=True) for c in doc["commits"]],
        expected=list(expected),
        content=doc.get("content"),
        threshold_mb=float(doc.get("threshold_mb", 1.0)),
        builds_mb=dict(doc.get("builds_mb") or {}),
        expected_status=dict(doc.get("expected_status") or {}),
        expected_moved=list(doc.get("expected_moved") or []),
        unclear=bool(doc.get("unclear")),
        builds_at=list(doc.get("builds_at") or []),
        builds_failed=list(doc.get("builds_failed") or []),
        true_mb=dict(doc.get("true_mb") or {}),
    )


def load_windows(directory: Path = DATA) -> list[Window]:
    return [load_window(p) for p in sorted(directory.glob("*.yaml"))]


class WindowBuilds:
    """A build port answering from a window's ``builds_mb``: a run with the variant's
    artifact at every measured commit and at its parent (sizes add up along the window)."""

    def __init__(self, window: Window) -> None:
        self.artifact = f"manywheel-py3_12-{window.variant}"
        self.parents: dict[str, str] = {}
        self.sizes: dict[str, int] = {}
        previous = "0" * 40
        size = BASE_BYTES
        for commit in window.commits:
            self.parents[commit.sha] = previous
            if commit.sha in window.builds_mb:
                self.sizes[previous] = size
                size += int(window.builds_mb[commit.sha] * MB)
                self.sizes[commit.sha] = size
            previous = commit.sha
        self.requests = 0

    def runs_for_sha(self, sha: str) -> Sequence[BuildRun]:
        self.requests += 1
        if sha not in self.sizes:
            return []
        url = f"https://github.com/o/r/actions/runs/{sha[:8]}"
        return [BuildRun(int(sha[:8], 16), "nightly-binaries", ".github/workflows/b.yml", sha,
                         "completed", "success", url)]  # fmt: skip

    def artifacts_of_run(self, run: BuildRun) -> Sequence[BuildArtifact]:
        self.requests += 1
        return [BuildArtifact(self.artifact, self.sizes[run.head_sha], False)]

    def check_runs_for_sha(self, sha: str, max_pages: int) -> Sequence[BuildJob]:
        self.requests += 1
        return []

    def jobs_of_run(self, run: BuildRun) -> Sequence[BuildJob]:
        self.requests += 1
        return []

    def job_log(self, job: BuildJob) -> str:
        raise BuildDataUnavailable("no logs in the evaluation set")

    def parent_of(self, sha: str) -> str | None:
        self.requests += 1
        return self.parents.get(sha)


def true_deltas(window: Window) -> dict[str, float]:
    """Each commit's true change (MB): a measured one from ``builds_mb``, a stated one from
    ``true_mb``; an expected culprit without either carries its share of the rest of the
    night's change; every other commit none."""
    jump = window.deltas.get(window.variant) or 0.0
    known = {**window.true_mb, **window.builds_mb}
    rest = [s for s in window.expected if s not in known]
    left = jump - sum(v for s, v in known.items())
    out = {c.sha: known.get(c.sha, 0.0) for c in window.commits}
    for sha in rest:
        out[sha] = left / len(rest)
    return out


class WindowRuns(WindowBuilds):
    """The window's builds as GitHub lists them (issue 28): a run with the variant's artifact
    at every commit with a build (``builds_at``, and each ``builds_mb`` commit and its
    parent), a failed run at each ``builds_failed`` commit; sizes from the true deltas."""

    def __init__(self, window: Window) -> None:
        super().__init__(window)
        deltas = true_deltas(window)
        self.true_sizes: dict[str, int] = {}
        size = BASE_BYTES
        self.true_sizes["0" * 40] = size
        for commit in window.commits:
            size += int(deltas[commit.sha] * MB)
            self.true_sizes[commit.sha] = size
        built = set(window.builds_at) | set(self.sizes)
        self.built = [s for s in self.true_sizes if s in built]
        self.failed = [s for s in window.builds_failed if s in self.true_sizes]
        # The per-SHA lookups (``--legacy``) see the same builds.
        self.sizes = {s: self.true_sizes[s] for s in self.built}

    def runs_created(
        self, workflow: str | None, created: str, branch: str | None, max_pages: int
    ) -> RunListing:
        self.requests += 1
        runs = [
            BuildRun(int(sha[:8], 16) + k, "nightly-binaries", ".github/workflows/b.yml", sha,
                     "completed", conclusion, f"https://github.com/o/r/actions/runs/{sha[:8]}")
            for k, (shas, conclusion) in enumerate(((self.built, "success"),
                                                    (self.failed, "failure")))
            for sha in shas
        ]  # fmt: skip
        return RunListing(tuple(runs), 1, True)

    def artifacts_named(self, name: str, since: str, max_pages: int) -> ArtifactListing:
        self.requests += 1
        found = [
            NamedArtifact(int(sha[:8], 16), sha, BuildArtifact(name, self.true_sizes[sha], True))
            for sha in self.built
        ]
        return ArtifactListing(tuple(found), 1, True)


def window_verdicts(window: Window, shas: Sequence[str]) -> dict[str, BuildVerdict]:
    """Every candidate's verdict from the window's builds, the way ``investigate`` reads
    them (issue 28): one listing, brackets anchored by the two nightlies."""
    import datetime as dt

    port = WindowRuns(window)
    options = BuildEvidenceOptions()
    commits = [c.sha for c in window.commits]
    found = read_window_builds(
        port, commits=commits, base_sha="0" * 40, start=dt.date(2025, 1, 1),
        end=dt.date(2025, 1, 2), variant=window.variant, artifact=port.artifact, options=options,
    )  # fmt: skip
    jump = int((window.deltas.get(window.variant) or 0.0) * MB)
    noise = configured_noise_band(jump, options)
    ends = comparable(found.points, BASE_BYTES, BASE_BYTES + jump, noise)
    result = bracket_steps(
        commits, found.points, noise_bytes=noise, base_sha="0" * 40,
        base=BuildPoint("0" * 40, BASE_BYTES, "success", source="nightly before") if ends else None,
        head=BuildPoint(commits[-1], BASE_BYTES + jump, "success", source="nightly after")
        if ends else None,
    )  # fmt: skip
    return verdicts_from_brackets(result, shas, jump_bytes=jump, options=options)


def evaluate(
    window: Window, *, use_content: bool = True, use_builds: bool = True, legacy: bool = False
) -> Result:
    """``legacy``: the per-candidate lookups down the ranking (before issue 28)."""
    kept, _pairs = remove_revert_pairs(window.commits)
    own = window.deltas.get(window.variant)
    jumped = own is not None and abs(own) >= window.threshold_mb
    fp = fingerprint(window.variant, window.deltas, jumped=jumped, threshold_mb=window.threshold_mb)
    facts = facts_from_diff_json(window.content) if use_content else None
    ranked = rank_commits(kept, fp, facts)
    statuses: dict[str, str | None] = {}
    verdicts: dict[str, BuildVerdict] = {}
    if use_builds and not legacy and (window.builds_mb or window.builds_at) and ranked:
        verdicts = window_verdicts(window, [r.commit.sha for r in ranked])
        statuses = {sha: v.status for sha, v in verdicts.items()}
        ranked = rerank_ranked(ranked, verdicts)
    if use_builds and legacy and (window.builds_mb or window.builds_at) and ranked:
        port = WindowRuns(window)
        jump = window.deltas.get(window.variant) or 0.0
        verdicts = verify_candidates(
            port,
            [SuspectRef(r.commit.sha, (port.parents[r.commit.sha],)) for r in ranked],
            variant=window.variant,
            artifact=port.artifact,
            jump_bytes=int(jump * MB),
            options=BuildEvidenceOptions(),
        )
        statuses = {sha: v.status for sha, v in verdicts.items()}
        ranked = rerank_ranked(ranked, verdicts)
    group = leading_group(ranked)
    ranks = [next((r.rank for r in ranked if r.commit.sha == s), None) for s in window.expected]
    rank = None if None in ranks or not ranks else max(r for r in ranks if r is not None)
    return Result(
        window,
        ranked,
        fp,
        rank,
        statuses,
        said_no_jump=not ranked and fp.direction == 0,
        said_unclear=len(group) > 1,
        group=group if len(group) > 1 else [],
        verdicts=verdicts,
    )

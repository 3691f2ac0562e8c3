"""Per-commit build evidence (the seed's Method A, generalised): did this commit move the size?

Going down the ranking, for each candidate and its parent we look for builds at exactly
those commits: workflow runs with that head SHA that uploaded the variant's artifact (its
size is what the history measures; an expired artifact still lists its ``size_in_bytes``),
else the log of the job that builds that wheel (chosen by a job-name pattern, by default
PyTorch's ``manywheel-{python}-{variant}-build``; never a test job that merely names the
variant), read by :mod:`wheel_size.regressions.builds.logs`. The lookups stop once measured
builds account for the night's change, when ``top`` candidates were looked at, or when the
request budget is spent. Suspect minus parent, against the night's jump, gives the status,
in the seed's words:

* CONFIRMED: the build shows a real share of the jump on this commit (same direction, at
  least ``min_share`` and at most ``max_share`` of it, after the logs' rounding);
* NOT CONFIRMED: the build shows negligible or no impact (within ``noise``, or less than
  ``min_share`` of the jump);
* CLEARED: the build disproves it: the size moved the other way at this commit;
* LIKELY, with the reason, whenever the data is missing or cannot decide ("no build at
  <sha>", "check-runs API forbidden (403)", "log too large", ...). Nothing here raises for
  missing data: the port reports it as :class:`BuildDataUnavailable` and it becomes a reason.

GitHub is reached through :class:`BuildPort` (``wheel_size.github.checks`` implements it
with PyGithub), so this module is plain logic. Requests are capped per event
(:attr:`BuildEvidenceOptions.max_requests`); the formula is in docs/regressions.md.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from wheel_size.errors import InputError
from wheel_size.ports.builds import (
    DEFAULT_MAX_LOG_BYTES,
    BuildArtifact,
    BuildDataUnavailable,
    BuildJob,
    BuildPort,
    BuildRun,
)
from wheel_size.regressions.builds.bracket import noise_band
from wheel_size.regressions.builds.logs import DEFAULT_PATTERNS, LogSize, find_wheel_size
from wheel_size.regressions.document import BuildVerdictDocument, MeasurementDocument
from wheel_size.regressions.ranking.evidence import CLEARED, CONFIRMED, LIKELY, NOT_CONFIRMED
from wheel_size.render.templates import render_macro
from wheel_size.series import MB
from wheel_size.units import in_mb
from wheel_size.variants import canonical_python, variant_key

__all__ = [
    "BuildArtifact",
    "BuildCache",
    "BuildDataUnavailable",
    "BuildEvidenceOptions",
    "BuildJob",
    "BuildPort",
    "BuildRun",
    "BuildVerdict",
    "Measurement",
    "SuspectRef",
    "request_bound",
    "verify_candidates",
]

#: Candidates looked at, at most, going down the ranking (the lookups stop earlier once
#: measured builds account for the night's change).
DEFAULT_TOP = 10
#: API requests per event, at most (a candidate and its parent with artifacts cost ~5).
DEFAULT_MAX_REQUESTS = 60
#: The job that builds a variant's wheel; ``{python}``/``{variant}`` from the artifact name.
DEFAULT_JOB_PATTERN = "manywheel-{python}-{variant}-build"
#: Measured builds "account for" the night once they explain this share of it.
ACCOUNTED_SHARE = 0.8
DEFAULT_MAX_RUNS = 2
DEFAULT_MAX_LOGS = 2
DEFAULT_CHECK_PAGES = 2
_BUILDISH = re.compile(r"wheel|binary|build|release|nightly|manywheel", re.IGNORECASE)
_DONE = {"success", "failure", "neutral", "timed_out"}  # a log exists and ran to its end


@dataclass(frozen=True)
class BuildEvidenceOptions:
    """How to look for per-commit builds (CLI ``--build-evidence*``, Action inputs)."""

    enabled: bool = True
    top: int = DEFAULT_TOP  # candidates checked, in rank order
    # fnmatch patterns (case-insensitive) naming the workflows (name or file) and check
    # runs / jobs that count; empty: any run, and the job named by ``job_pattern``.
    workflows: tuple[str, ...] = ()
    # fnmatch pattern (case-insensitive) of the job that builds the wheel, matched against
    # the job's name and each " / " part of it ("linux-binary-manywheel / manywheel-py3_12-
    # cuda12_8-build / build"); ``{python}`` and ``{variant}`` come from the artifact name.
    job_pattern: str = DEFAULT_JOB_PATTERN
    log_patterns: tuple[re.Pattern[str], ...] = DEFAULT_PATTERNS
    log_url_template: str | None = None  # e.g. https://logs.example/{job_id}
    commit_url_template: str | None = None  # e.g. https://hud.pytorch.org/o/r/commit/{sha}
    max_runs: int = DEFAULT_MAX_RUNS  # runs per commit whose artifacts are listed
    max_logs: int = DEFAULT_MAX_LOGS  # logs read per commit
    check_pages: int = DEFAULT_CHECK_PAGES  # pages of 100 check runs per commit
    max_log_bytes: int = DEFAULT_MAX_LOG_BYTES
    max_requests: int | None = DEFAULT_MAX_REQUESTS  # per event; None: request_bound(self)
    min_share: float = 0.25
    max_share: float = 2.0
    noise_mb: float = 0.1
    noise_share: float = 0.05
    # Issue 28: every build in the window, listed over its ``created`` range.
    branch: str | None = None  # the branch the per-commit builds run on (None: any)
    window_pages: int = 5  # pages of 100 runs (and of artifacts) read per listing
    created_slack_days: int = 3  # builds of the window's commits created after the night

    def commit_url(self, sha: str) -> str | None:
        if not self.commit_url_template:
            return None
        return self.commit_url_template.replace("{sha}", sha)

    @classmethod
    def of(
        cls,
        *,
        enabled: bool = True,
        top: int = DEFAULT_TOP,
        workflows: str = "",
        log_pattern: str | None = None,
        log_url_template: str | None = None,
        commit_url_template: str | None = None,
        names: dict[str, str] | None = None,
        job_pattern: str | None = None,
    ) -> BuildEvidenceOptions:
        """The options as a user gives them (text); ``names`` says how the CLI or the Action
        calls each one in its error messages."""
        from wheel_size.regressions.builds.logs import compile_log_pattern

        said = {
            "top": "--build-evidence-top",
            "log_url_template": "--log-url-template",
            "commit_url_template": "--commit-url-template",
            **(names or {}),
        }
        if top < 0:
            raise InputError(f"{said['top']} must not be negative")
        pattern = (job_pattern or "").strip() or DEFAULT_JOB_PATTERN
        if "{variant}" not in pattern:
            said_job = said.get("job_pattern", "--build-evidence-job-pattern")
            raise InputError(f"{said_job} {pattern!r}: give a job-name pattern with {{variant}}")
        return cls(
            enabled=enabled,
            top=top,
            job_pattern=pattern,
            workflows=tuple(w.strip() for w in workflows.split(",") if w.strip()),
            log_patterns=(compile_log_pattern(log_pattern),) if log_pattern else DEFAULT_PATTERNS,
            log_url_template=_url_template(log_url_template, said["log_url_template"], "{job_id}"),
            commit_url_template=_url_template(
                commit_url_template, said["commit_url_template"], "{sha}"
            ),
        )


def _url_template(value: str | None, said: str, field: str) -> str | None:
    if not value or not value.strip():
        return None
    value = value.strip()
    if not value.startswith(("https://", "http://")) or field not in value:
        raise InputError(f"{said} {value!r}: give an http(s) URL containing {field}")
    return value


def request_bound(options: BuildEvidenceOptions) -> int:
    """The most API requests one event can cost: per candidate one parent lookup, and per
    commit (candidate and parent) 1 run listing + ``max_runs`` artifact listings +
    ``check_pages`` check-run pages + ``max_runs`` job listings (only when check runs are
    refused) + ``max_logs`` log requests."""
    per_commit = 1 + 2 * options.max_runs + options.check_pages + options.max_logs
    return options.top * (1 + 2 * per_commit)


@dataclass(frozen=True)
class Measurement:
    """A size measured at one commit, and the build it came from."""

    sha: str
    size_bytes: int
    resolution_bytes: int
    kind: str  # "artifact" (zip, as the history) or "wheel" (a log's wheel line)
    source: str  # "artifact NAME of run ID" / "log of job NAME"
    url: str
    line: str | None = None

    def to_json(self) -> MeasurementDocument:
        return {
            "sha": self.sha,
            "size_bytes": self.size_bytes,
            "resolution_bytes": self.resolution_bytes,
            "kind": self.kind,
            "source": self.source,
            "url": self.url,
            "line": self.line,
        }


@dataclass(frozen=True)
class BuildVerdict:
    """A candidate's status from per-commit builds, and which builds say so."""

    sha: str
    parent: str | None
    status: str  # CONFIRMED, NOT CONFIRMED, CLEARED or LIKELY
    reason: str  # plain text, one sentence
    suspect: Measurement | None = None
    base: Measurement | None = None  # the parent's

    @property
    def measured(self) -> bool:
        return self.status != LIKELY

    @property
    def delta_bytes(self) -> int | None:
        if self.suspect is None or self.base is None:
            return None
        return self.suspect.size_bytes - self.base.size_bytes

    def to_json(self) -> BuildVerdictDocument:
        delta = self.delta_bytes
        return {
            "sha": self.sha,
            "parent": self.parent,
            "status": self.status,
            "reason": self.reason,
            "delta_bytes": delta,
            "suspect": self.suspect.to_json() if self.suspect else None,
            "parent_build": self.base.to_json() if self.base else None,
        }


@dataclass(frozen=True)
class SuspectRef:
    """A candidate commit: its SHA and, when known, its parents (compare lists them)."""

    sha: str
    parents: tuple[str, ...] = ()


@dataclass
class BuildCache:
    """Answers shared by the events of one run (variants of one night share candidates)."""

    answers: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    requests: int = 0  # API requests actually made through this cache


class _Budget(Exception):
    """This event's request budget is spent."""


class _Session:
    """The port, memoised through a :class:`BuildCache`, with this event's request cap."""

    def __init__(self, port: BuildPort, cache: BuildCache, limit: int) -> None:
        self.port = port
        self.cache = cache
        self.limit = limit
        self.spent = 0

    def call(self, key: tuple[Any, ...], cost: int, fn: Any, *args: Any) -> Any:
        refused = self.cache.answers.get(("refused", key[0]))
        if refused is not None:
            raise refused
        if key in self.cache.answers:
            answer = self.cache.answers[key]
        else:
            if self.spent + cost > self.limit:
                raise _Budget
            self.spent += cost
            self.cache.requests += cost
            try:
                answer = fn(*args)
            except BuildDataUnavailable as exc:
                answer = exc
                if exc.whole_repo:
                    self.cache.answers[("refused", key[0])] = exc
            self.cache.answers[key] = answer
        if isinstance(answer, BuildDataUnavailable):
            raise answer
        return answer


def _matches(patterns: tuple[str, ...], *names: str) -> bool:
    lowered = [n.lower() for n in names if n]
    return any(fnmatch.fnmatchcase(n, p.lower()) for p in patterns for n in lowered)


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _names_variant(name: str, variant: str, artifact: str | None) -> bool:
    squashed = _squash(name)
    return _squash(variant) in squashed or bool(artifact and _squash(artifact) in squashed)


def _names_job(name: str, pattern: str) -> bool:
    low = name.lower()
    parts = [low, *(p.strip() for p in low.split(" / "))]
    return any(fnmatch.fnmatchcase(p, pattern) for p in parts)


def build_job_pattern(pattern: str, variant: str, artifact: str | None) -> str:
    """The job-name pattern for one variant: ``{python}`` from the artifact name
    (``manywheel-py3_12-cuda12_8`` → ``py3_12``; none: ``*``)."""
    python = variant_key(artifact or "").python
    tag = canonical_python(python) if python else "*"
    return pattern.replace("{variant}", variant).replace("{python}", tag)


def _short(sha: str) -> str:
    return sha[:12]


@dataclass
class _Target:
    variant: str
    artifact: str | None


def _runs(session: _Session, sha: str, options: BuildEvidenceOptions) -> list[BuildRun]:
    runs = session.call(("runs", sha), 1, session.port.runs_for_sha, sha)
    done = [r for r in runs if r.status in (None, "completed") and r.conclusion != "cancelled"]
    if options.workflows:
        done = [r for r in done if _matches(options.workflows, r.name, r.path.rsplit("/", 1)[-1])]
    done.sort(key=lambda r: (not _BUILDISH.search(f"{r.name} {r.path}"), -r.id))
    return done[: options.max_runs]


def _wanted_jobs(
    jobs: Sequence[BuildJob], target: _Target, options: BuildEvidenceOptions
) -> list[BuildJob]:
    """The jobs that build the variant's wheel: named by the job pattern (a test job such
    as ``linux-jammy-cuda12.8-py3.10 / test`` names the variant but builds no wheel)."""
    done = [j for j in jobs if j.conclusion in _DONE]
    wanted = build_job_pattern(options.job_pattern, target.variant, target.artifact).lower()
    chosen = [j for j in done if _names_job(j.name, wanted)]
    if options.workflows:
        chosen += [
            j for j in done if j not in chosen and _matches(options.workflows, j.name, j.workflow)
        ]
        chosen.sort(key=lambda j: not _names_variant(j.name, target.variant, target.artifact))
    chosen.sort(key=lambda j: j.conclusion != "success")
    return chosen[: options.max_logs]


def _measure(
    session: _Session, sha: str, target: _Target, options: BuildEvidenceOptions
) -> Measurement | str:
    """The size at ``sha``, or why there is none (one short clause)."""
    runs_reason: str | None = None
    try:
        runs = _runs(session, sha, options)
    except BuildDataUnavailable as exc:
        runs, runs_reason = [], exc.reason
    for run in runs:
        try:
            artifacts = session.call(("artifacts", run.id), 1, session.port.artifacts_of_run, run)
        except BuildDataUnavailable:
            continue
        for artifact in artifacts:
            # An expired artifact cannot be downloaded, but its size is still listed.
            if artifact.name == target.artifact and artifact.size_in_bytes > 0:
                source = _say(
                    "artifact_source",
                    name=artifact.name,
                    run=run.id,
                    run_name=run.name,
                    expired=artifact.expired,
                )
                return Measurement(sha, artifact.size_in_bytes, 1, "artifact", source, run.html_url)
    try:
        jobs = session.call(
            ("checks", sha), options.check_pages,
            session.port.check_runs_for_sha, sha, options.check_pages,
        )  # fmt: skip
        checks_reason = None
    except BuildDataUnavailable as exc:
        checks_reason = exc.reason
        jobs = []
        for run in runs:  # the jobs API needs `actions: read` only
            try:
                jobs += session.call(("jobs", run.id), 1, session.port.jobs_of_run, run)
            except BuildDataUnavailable:
                continue
    reasons: list[str] = []
    for job in _wanted_jobs(jobs, target, options):
        try:
            text = session.call(("log", job.id), 1, session.port.job_log, job)
        except BuildDataUnavailable as exc:
            reasons.append(f"job {job.name!r}: {exc.reason}")
            continue
        found = find_wheel_size(
            text, variant=target.variant, artifact=target.artifact, patterns=options.log_patterns
        )
        if isinstance(found, LogSize):
            return Measurement(
                sha, found.size_bytes, found.resolution_bytes, found.kind,
                _say("log_source", job=job.name), job.html_url, found.line,
            )  # fmt: skip
        reasons.append(f"job {job.name!r}: {found}")
    if reasons:
        return "; ".join(reasons[:2])
    why = (checks_reason or runs_reason) if not jobs else None
    return _say("no_build", variant=target.variant, sha=_short(sha), why=why)


def _mb(value: float) -> str:
    return f"{in_mb(value, signed=True, digits=2)} MB"


def _say(words: str, **values: object) -> str:
    """A verification's words: the macro ``words`` of ``build_verdict.txt.j2``."""
    return render_macro("build_verdict.txt.j2", words, **values)


def _judge(
    ref: str,
    parent: str,
    suspect: Measurement,
    base: Measurement,
    jump: int,
    options: BuildEvidenceOptions,
) -> BuildVerdict:
    delta = suspect.size_bytes - base.size_bytes
    slack = (suspect.resolution_bytes + base.resolution_bytes) // 2
    noise = noise_band(jump, floor_bytes=options.noise_mb * MB, share=options.noise_share)
    said = _say(
        "measured",
        source=suspect.source,
        delta=_mb(delta),
        parent=_short(parent),
        base_source=base.source,
        jump=_mb(jump),
    )
    same = (delta > 0) == (jump > 0) and delta != 0
    low, high = abs(delta) - slack, abs(delta) + slack

    def verdict(status: str, why: str) -> BuildVerdict:
        return BuildVerdict(ref, parent, status, f"{said}: {why}", suspect, base)

    if high <= noise:
        return verdict(NOT_CONFIRMED, _say("no_impact"))
    if same and options.min_share * abs(jump) <= low <= options.max_share * abs(jump):
        return verdict(CONFIRMED, _say("explains", share=low / abs(jump)))
    if same and high < options.min_share * abs(jump):
        return verdict(NOT_CONFIRMED, _say("negligible_impact"))
    if not same and low > noise:
        return verdict(CLEARED, _say("disproved"))
    if same and low > options.max_share * abs(jump):
        return verdict(LIKELY, _say("far_more"))
    return verdict(LIKELY, _say("too_coarse", slack=slack))


def verify_candidates(
    port: BuildPort,
    candidates: Sequence[SuspectRef],
    *,
    variant: str,
    artifact: str | None,
    jump_bytes: int,
    options: BuildEvidenceOptions,
    cache: BuildCache | None = None,
) -> dict[str, BuildVerdict]:
    """Verdicts going down ``candidates`` (rank order), keyed by SHA: until CONFIRMED
    builds account for :data:`ACCOUNTED_SHARE` of the night's change, ``options.top``
    candidates were looked at, or the request budget is spent (that candidate says so;
    the ones below it get no verdict).

    ``variant``/``artifact`` name what the history measures (e.g. ``cuda12_8`` /
    ``manywheel-py3_12-cuda12_8``); ``jump_bytes`` is the night's change (negative for a
    drop). Never raises for missing data: every candidate gets a verdict, LIKELY with the
    reason when nothing could be measured.
    """
    if not options.enabled or options.top <= 0:
        return {}
    cache = cache if cache is not None else BuildCache()
    limit = options.max_requests if options.max_requests is not None else request_bound(options)
    session = _Session(port, cache, limit)
    target = _Target(variant, artifact)
    verdicts: dict[str, BuildVerdict] = {}
    explained = 0
    for ref in candidates[: options.top]:
        try:
            verdict = _verify_one(session, ref, target, jump_bytes, options)
        except _Budget:
            why = _say("budget_spent", limit=limit)
            verdicts[ref.sha] = BuildVerdict(ref.sha, None, LIKELY, why)
            break
        verdicts[ref.sha] = verdict
        if verdict.status == CONFIRMED and verdict.delta_bytes is not None:
            explained += verdict.delta_bytes
            if jump_bytes and explained / jump_bytes >= ACCOUNTED_SHARE:
                break
    return verdicts


def _verify_one(
    session: _Session, ref: SuspectRef, target: _Target, jump: int, options: BuildEvidenceOptions
) -> BuildVerdict:
    parent = ref.parents[0] if ref.parents else None
    if parent is None:
        try:
            parent = session.call(("parent", ref.sha), 1, session.port.parent_of, ref.sha)
        except BuildDataUnavailable as exc:
            why = _say("parent_unknown", why=exc.reason)
            return BuildVerdict(ref.sha, None, LIKELY, why)
        if parent is None:
            return BuildVerdict(ref.sha, None, LIKELY, _say("root_commit"))
    suspect = _measure(session, ref.sha, target, options)
    if isinstance(suspect, str):
        return BuildVerdict(ref.sha, parent, LIKELY, suspect)
    base = _measure(session, parent, target, options)
    if isinstance(base, str):
        why = _say("parent_unmeasured", sha=_short(ref.sha), source=suspect.source, why=base)
        return BuildVerdict(ref.sha, parent, LIKELY, why, suspect)
    if base.kind != suspect.kind:
        why = _say(
            "different_kinds",
            kind=suspect.kind,
            sha=_short(ref.sha),
            base_kind=base.kind,
            parent=_short(parent),
        )
        return BuildVerdict(ref.sha, parent, LIKELY, why, suspect, base)
    if jump == 0:
        return BuildVerdict(ref.sha, parent, LIKELY, _say("night_still"), suspect, base)
    return _judge(ref.sha, parent, suspect, base, jump, options)

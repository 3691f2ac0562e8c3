"""The Action's ``mode: track`` inputs, turned into the library's options directly.

Every input is checked here and named in its error ("input threshold-mb must be a
number, not 'lots'"), before anything is collected or stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from wheel_size.action.inputs import (
    action_input,
    bool_input,
    bot_login_input,
    repository,
    words,
)
from wheel_size.errors import InputError
from wheel_size.evidence.options import (
    DEFAULT_MAX_DOWNLOAD_MB,
    DEFAULT_MEMORY_MB,
    DEFAULT_TIME_BUDGET,
    EvidenceOptions,
)
from wheel_size.history.location import StoreLocation
from wheel_size.nightly import NightlyOptions
from wheel_size.regressions.builds.evidence import BuildEvidenceOptions
from wheel_size.regressions.issues.options import IssueOptions, parse_labels

if TYPE_CHECKING:
    from wheel_size.check.budget import Limits
    from wheel_size.collect.installed import InstalledOptions
    from wheel_size.collect.jobs import JobPattern
    from wheel_size.deps.nightly import NightlyDeps
    from wheel_size.regressions.ranking.reach_table import ReachTable
    from wheel_size.report.forecast import ForecastOptions
    from wheel_size.series import Baseline
    from wheel_size.series.buildtime import BuildThresholds

__all__ = ["TrackInputs", "record_files", "track_inputs"]

DEFAULT_REPORT = "wheel-size-report.md"


@dataclass(frozen=True)
class TrackInputs:
    """What the inputs ask of one nightly run, and where its results go."""

    nightly: NightlyOptions
    store: StoreLocation
    report_path: Path  # in the workspace (a .json is written beside it)
    fail_on_regression: bool = False


def _number(env: Mapping[str, str], name: str, default: float | None) -> float | None:
    text = action_input(env, name)
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"input {name} must be a number, not {text!r}") from None
    if value != value:  # nan
        raise InputError(f"input {name} must be a number, not {text!r}")
    return value


def _integer(env: Mapping[str, str], name: str, default: int) -> int:
    text = action_input(env, name)
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise InputError(f"input {name} must be a whole number, not {text!r}") from None


def _list(env: Mapping[str, str], name: str) -> list[str]:
    """A list input: items separated by commas or newlines (spaces belong to an item)."""
    return [item.strip() for item in action_input(env, name).replace("\n", ",").split(",")]


def record_files(env: Mapping[str, str]) -> list[Path]:
    """Record files (``collect --out``) named by the ``records`` input: paths or glob
    patterns, one per line or space-separated, relative to the workspace."""
    workspace = Path(env.get("GITHUB_WORKSPACE") or ".")
    found: list[Path] = []
    for pattern in action_input(env, "records").split():
        path = Path(pattern) if Path(pattern).is_absolute() else workspace / pattern
        magic = [i for i, part in enumerate(path.parts) if any(c in part for c in "*?[")]
        if magic:
            base = Path(*path.parts[: magic[0]])
            matches = sorted(base.glob(str(Path(*path.parts[magic[0] :]))))
        else:
            matches = [path]
        if not matches or not all(m.is_file() for m in matches):
            raise InputError(f"input records: no record file matches {pattern!r}")
        found += [m for m in matches if m not in found]
    return found


def _store(env: Mapping[str, str]) -> StoreLocation:
    history = action_input(env, "history-dir")
    if history:
        return StoreLocation(history=history)
    timeout = _number(env, "git-timeout", None)
    return StoreLocation(
        data_branch=action_input(env, "data-branch") or None,
        data_remote=action_input(env, "data-remote") or None,
        git_timeout=timeout,
    )


def _issues(env: Mapping[str, str], store: StoreLocation) -> IssueOptions | None:
    if not bool_input(env, "create-issues"):
        return None
    return IssueOptions(
        labels=parse_labels(action_input(env, "issue-labels") or "wheel-size-regression"),
        accepted_label=action_input(env, "accepted-label") or "size-accepted",
        close_on_rollback=bool_input(env, "close-on-rollback"),
        drop_issues=bool_input(env, "drop-issues"),
        cc_culprit=bool_input(env, "cc-culprit"),
        creep_mb=_number(env, "creep-mb", 5.0) or 0.0,
        creep_days=_integer(env, "creep-days", 14),
        silence_nights=_integer(env, "silence-nights", 2),
        reproduce=store.reproduce_args(repository(env), env),
        bot_login=bot_login_input(env),
        builds=BuildEvidenceOptions.of(
            enabled=bool_input(env, "build-evidence", default=True),
            workflows=action_input(env, "build-evidence-workflows"),
            log_pattern=action_input(env, "build-evidence-log-pattern") or None,
            log_url_template=action_input(env, "log-url-template") or None,
            commit_url_template=action_input(env, "commit-url-template") or None,
            job_pattern=action_input(env, "build-evidence-job-pattern") or None,
            names={
                "log_url_template": "input log-url-template",
                "commit_url_template": "input commit-url-template",
                "job_pattern": "input build-evidence-job-pattern",
            },
        ),
        reach_table=_reach_table(env),
    )


def _reach_table(env: Mapping[str, str]) -> ReachTable | None:
    """The ``reach-table`` input: a YAML file in the workspace, or None (the packaged one)."""
    from wheel_size.regressions.ranking.reach_table import load_reach_table

    given = action_input(env, "reach-table")
    if not given:
        return None
    path = Path(given)
    if not path.is_absolute():
        path = Path(env.get("GITHUB_WORKSPACE") or ".") / path
    return load_reach_table(path)


def _limits(env: Mapping[str, str]) -> Limits | None:
    """The size limits the nightly reports (inputs shared with the PR check)."""
    from wheel_size.check.budget import Budget, Limits, parse_ceilings

    ceiling = _number(env, "ceiling-mb", None)
    per_variant = parse_ceilings(words(action_input(env, "ceilings")))
    pypi = _number(env, "pypi-limit-mb", None)
    if ceiling is None and not per_variant and pypi is None:
        return None
    budget = Budget(growth_mb=None, ceiling_mb=ceiling, ceilings=per_variant, pypi_limit_mb=pypi)
    return Limits(budget, action_input(env, "ceiling-ack") or None)


def _evidence(env: Mapping[str, str]) -> EvidenceOptions:
    return EvidenceOptions.of(
        enabled=bool_input(env, "evidence", default=True),
        max_download_mb=_integer(env, "evidence-max-download-mb", DEFAULT_MAX_DOWNLOAD_MB),
        memory_mb=_integer(env, "evidence-memory-mb", DEFAULT_MEMORY_MB),
        time_budget=_integer(env, "evidence-time-budget", DEFAULT_TIME_BUDGET),
    )


def _baseline(env: Mapping[str, str]) -> Baseline:
    """Input ``baseline``: previous (default), median:N or window:N."""
    from wheel_size.series import Baseline

    try:
        return Baseline.parse(action_input(env, "baseline"))
    except InputError as exc:
        raise InputError(f"input {exc}") from None


def _job_pattern(env: Mapping[str, str], artifact_pattern: str) -> JobPattern | None:
    """Inputs ``build-time`` and ``job-pattern``: the jobs to list, or None (off)."""
    from wheel_size.collect.jobs import DEFAULT_JOB_PATTERN, JobPattern

    if not bool_input(env, "build-time"):
        return None
    try:
        return JobPattern(action_input(env, "job-pattern") or DEFAULT_JOB_PATTERN, artifact_pattern)
    except InputError as exc:
        raise InputError(f"input {exc}") from None


def _installed(env: Mapping[str, str]) -> InstalledOptions | None:
    """Input ``installed-size``: each new artifact's installed size (ranged reads)."""
    from wheel_size.collect.installed import InstalledOptions

    return InstalledOptions() if bool_input(env, "installed-size") else None


def _deps(env: Mapping[str, str]) -> NightlyDeps | None:
    """Input ``deps``: each new night's watched wheels resolved with their dependencies,
    against ``deps-index-url``."""
    from wheel_size.deps.nightly import NightlyDeps

    index = action_input(env, "deps-index-url")
    if not bool_input(env, "deps"):
        if index:
            raise InputError("input deps-index-url needs deps: true")
        return None
    return NightlyDeps(index_url=index or "https://pypi.org/simple")


def _forecast(env: Mapping[str, str], limits: Limits | None) -> ForecastOptions | None:
    """Input ``forecast``: the trend's nights (0: off), against the size-limit inputs."""
    from wheel_size.report.forecast import ForecastOptions

    nights = _integer(env, "forecast", 0)
    if nights == 0:
        return None
    if nights < 2:
        raise InputError("input forecast must be 0 (off) or at least 2 nights")
    budget = limits.budget if limits is not None else None
    return ForecastOptions(
        nights=nights,
        min_nights=min(14, nights),
        ceilings=dict(budget.ceilings) if budget else {},
        ceiling_mb=budget.ceiling_mb if budget else None,
        pypi_limit_mb=budget.pypi_limit_mb if budget else None,
    )


def _build_thresholds(env: Mapping[str, str]) -> BuildThresholds:
    from wheel_size.series.buildtime import BuildThresholds

    return BuildThresholds(
        minutes=_number(env, "build-threshold-min", 15.0) or None,
        pct=_number(env, "build-threshold-pct", 25.0) or None,
    )


DEFAULT_BRANCH = "nightly"  # as action.yml and `wheel-size track --branch` (issue 29 item 4)


def _branch(env: Mapping[str, str]) -> str | None:
    """The nightly branch: ``nightly`` when the input is not set at all (``docker run -e
    INPUT_…`` without it: before, every branch, so ``ciflow/binaries/*`` PR runs were stored
    as nights); an input given empty means any branch, as action.yml says."""
    if "INPUT_BRANCH" not in env:
        return DEFAULT_BRANCH
    return action_input(env, "branch") or None


def track_inputs(env: Mapping[str, str], workspace: Path) -> TrackInputs:
    """The options of ``mode: track``, from ``INPUT_*`` (see action.yml)."""
    from wheel_size.collect.runs import WorkflowSource
    from wheel_size.dates import explicit_periods
    from wheel_size.history import read_bundle
    from wheel_size.report.model import Thresholds
    from wheel_size.track import TrackOptions
    from wheel_size.variants import ArtifactNaming, canonical_python

    repo = repository(env)
    if not repo:
        raise InputError("input repository is empty and GITHUB_REPOSITORY is not set")
    workflow = action_input(env, "workflow")
    if not workflow:
        raise InputError("input workflow is required: the nightly build workflow's id or file")
    from wheel_size.collect.trusted import parse_events

    events = parse_events(action_input(env, "run-events") or None)
    source = WorkflowSource(repo, workflow, _branch(env), events)
    variants = [v for v in _list(env, "variants") if v] or ["cuda12_8"]
    naming = ArtifactNaming(
        action_input(env, "artifact-pattern") or "manywheel-{python}-{variant}",
        canonical_python(action_input(env, "python") or "py3_12"),
    )
    rollback_days = _integer(env, "rollback-days", 10)
    if rollback_days < 1:
        raise InputError("input rollback-days must be at least 1")
    report_days = _integer(env, "report-days", 30)
    if report_days < 1:
        raise InputError("input report-days must be at least 1")
    dashboard = bool_input(env, "dashboard")
    dashboard_days = _integer(env, "dashboard-days", 365) if dashboard else 365
    if dashboard_days < 1:
        raise InputError("input dashboard-days must be at least 1")
    periods = explicit_periods(
        action_input(env, "date") or None,
        action_input(env, "from") or None,
        action_input(env, "to") or None,
        [m for m in _list(env, "months") if m],
    )
    store = _store(env)
    track = TrackOptions(
        source=source,
        variants=tuple(variants),
        naming=naming,
        thresholds=Thresholds(
            mb=_number(env, "threshold-mb", 1.0) or None,
            pct=_number(env, "threshold-pct", None) or None,
            baseline=_baseline(env),
        ),
        rollback_days=rollback_days,
        periods=periods,
        report_days=report_days,
        records=tuple(r for path in record_files(env) for r in read_bundle(path)),
        dashboard=dashboard,
        dashboard_days=dashboard_days,
        server_url=env.get("GITHUB_SERVER_URL") or "https://github.com",
        jobs=_job_pattern(env, naming.pattern),
        build_thresholds=_build_thresholds(env),
        installed=_installed(env),
        forecast=_forecast(env, _limits(env)),
        deps=_deps(env),
    )
    nightly = NightlyOptions(
        track, issues=_issues(env, store), evidence=_evidence(env), limits=_limits(env)
    )
    report = Path(action_input(env, "report-path") or DEFAULT_REPORT)
    return TrackInputs(
        nightly=nightly,
        store=store,
        report_path=report if report.is_absolute() else workspace / report,
        fail_on_regression=bool_input(env, "fail-on-regression"),
    )

"""The Action's ``mode: track`` inputs, turned into the library's options directly.

Every input is checked here and named in its error ("input threshold-mb must be a
number, not 'lots'"), before anything is collected or stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from wheel_size.action.inputs import Inputs, action_input, bot_login_input, repository
from wheel_size.action.tables.track import TRACK
from wheel_size.errors import InputError
from wheel_size.evidence.options import (
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


@dataclass(frozen=True)
class TrackInputs:
    """What the inputs ask of one nightly run, and where its results go."""

    nightly: NightlyOptions
    store: StoreLocation
    report_path: Path  # in the workspace (a .json is written beside it)
    fail_on_regression: bool = False


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


def _store(read: Inputs) -> StoreLocation:
    history = read.text("history-dir")
    if history:
        return StoreLocation(history=history)
    return StoreLocation(
        data_branch=read.optional_text("data-branch"),
        data_remote=read.optional_text("data-remote"),
        git_timeout=read.optional_number("git-timeout"),
    )


def _issues(read: Inputs, env: Mapping[str, str], store: StoreLocation) -> IssueOptions | None:
    if not read.flag("create-issues"):
        return None
    return IssueOptions(
        labels=parse_labels(read.text("issue-labels")),
        accepted_label=read.text("accepted-label"),
        close_on_rollback=read.flag("close-on-rollback"),
        drop_issues=read.flag("drop-issues"),
        cc_culprit=read.flag("cc-culprit"),
        creep_mb=read.number("creep-mb") or 0.0,
        creep_days=read.integer("creep-days"),
        silence_nights=read.integer("silence-nights"),
        reproduce=store.reproduce_args(repository(env), env),
        bot_login=bot_login_input(env),
        builds=BuildEvidenceOptions.of(
            enabled=read.flag("build-evidence"),
            workflows=read.text("build-evidence-workflows"),
            log_pattern=read.optional_text("build-evidence-log-pattern"),
            log_url_template=read.optional_text("log-url-template"),
            commit_url_template=read.optional_text("commit-url-template"),
            job_pattern=read.optional_text("build-evidence-job-pattern"),
            names={
                "log_url_template": "input log-url-template",
                "commit_url_template": "input commit-url-template",
                "job_pattern": "input build-evidence-job-pattern",
            },
        ),
        reach_table=_reach_table(read, env),
    )


def _reach_table(read: Inputs, env: Mapping[str, str]) -> ReachTable | None:
    """The ``reach-table`` input: a YAML file in the workspace, or None (the packaged one)."""
    from wheel_size.regressions.ranking.reach_table import load_reach_table

    given = read.text("reach-table")
    if not given:
        return None
    path = Path(given)
    if not path.is_absolute():
        path = Path(env.get("GITHUB_WORKSPACE") or ".") / path
    return load_reach_table(path)


def _limits(read: Inputs) -> Limits | None:
    """The size limits the nightly reports (inputs shared with the PR check)."""
    from wheel_size.check.budget import Budget, Limits, parse_ceilings

    ceiling = read.optional_number("ceiling-mb")
    per_variant = parse_ceilings(read.items("ceilings"))
    pypi = read.optional_number("pypi-limit-mb")
    if ceiling is None and not per_variant and pypi is None:
        return None
    budget = Budget(growth_mb=None, ceiling_mb=ceiling, ceilings=per_variant, pypi_limit_mb=pypi)
    return Limits(budget, read.optional_text("ceiling-ack"))


def _evidence(read: Inputs) -> EvidenceOptions:
    return EvidenceOptions.of(
        enabled=read.flag("evidence"),
        max_download_mb=read.integer("evidence-max-download-mb"),
        memory_mb=read.integer("evidence-memory-mb"),
        time_budget=read.integer("evidence-time-budget"),
    )


def _baseline(read: Inputs) -> Baseline:
    """Input ``baseline``: previous (default), median:N or window:N."""
    from wheel_size.series import Baseline

    try:
        return Baseline.parse(read.text("baseline"))
    except InputError as exc:
        raise InputError(f"input {exc}") from None


def _job_pattern(read: Inputs, artifact_pattern: str) -> JobPattern | None:
    """Inputs ``build-time`` and ``job-pattern``: the jobs to list, or None (off)."""
    from wheel_size.collect.jobs import JobPattern

    if not read.flag("build-time"):
        return None
    try:
        return JobPattern(read.text("job-pattern"), artifact_pattern)
    except InputError as exc:
        raise InputError(f"input {exc}") from None


def _installed(read: Inputs) -> InstalledOptions | None:
    """Input ``installed-size``: each new artifact's installed size (ranged reads)."""
    from wheel_size.collect.installed import InstalledOptions

    return InstalledOptions() if read.flag("installed-size") else None


def _deps(read: Inputs) -> NightlyDeps | None:
    """Input ``deps``: each new night's watched wheels resolved with their dependencies,
    against ``deps-index-url``."""
    from wheel_size.deps.nightly import NightlyDeps

    index = read.text("deps-index-url")
    if not read.flag("deps"):
        if index:
            raise InputError("input deps-index-url needs deps: true")
        return None
    return NightlyDeps(index_url=index or "https://pypi.org/simple")


def _forecast(read: Inputs, limits: Limits | None) -> ForecastOptions | None:
    """Input ``forecast``: the trend's nights (0: off), against the size-limit inputs."""
    from wheel_size.report.forecast import ForecastOptions

    nights = read.integer("forecast")
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


def _build_thresholds(read: Inputs) -> BuildThresholds:
    from wheel_size.series.buildtime import BuildThresholds

    return BuildThresholds(
        minutes=read.number("build-threshold-min") or None,
        pct=read.number("build-threshold-pct") or None,
    )


def track_inputs(env: Mapping[str, str], workspace: Path) -> TrackInputs:
    """The options of ``mode: track``, from ``INPUT_*`` (see action.yml)."""
    from wheel_size.collect.runs import WorkflowSource
    from wheel_size.dates import explicit_periods
    from wheel_size.history import read_bundle
    from wheel_size.report.model import Thresholds
    from wheel_size.track import TrackOptions
    from wheel_size.variants import ArtifactNaming, canonical_python

    read = TRACK.read(env)
    read.check_all()  # every input refused by its kind, before anything runs
    repo = repository(env)
    if not repo:
        raise InputError("input repository is empty and GITHUB_REPOSITORY is not set")
    workflow = read.text("workflow")
    if not workflow:
        raise InputError("input workflow is required: the nightly build workflow's id or file")
    from wheel_size.collect.trusted import parse_events

    events = parse_events(read.text("run-events"))
    source = WorkflowSource(repo, workflow, read.optional_text("branch"), events)
    variants = read.items("variants") or ["cuda12_8"]
    naming = ArtifactNaming(read.text("artifact-pattern"), canonical_python(read.text("python")))
    dashboard = read.flag("dashboard")
    periods = explicit_periods(
        read.optional_text("date"),
        read.optional_text("from"),
        read.optional_text("to"),
        read.items("months"),
    )
    store = _store(read)
    track = TrackOptions(
        source=source,
        variants=tuple(variants),
        naming=naming,
        thresholds=Thresholds(
            mb=read.number("threshold-mb") or None,
            pct=read.optional_number("threshold-pct") or None,
            baseline=_baseline(read),
        ),
        rollback_days=read.integer("rollback-days"),
        periods=periods,
        report_days=read.integer("report-days"),
        records=tuple(r for path in record_files(env) for r in read_bundle(path)),
        dashboard=dashboard,
        dashboard_days=read.integer("dashboard-days") if dashboard else 365,
        server_url=env.get("GITHUB_SERVER_URL") or "https://github.com",
        jobs=_job_pattern(read, naming.pattern),
        build_thresholds=_build_thresholds(read),
        installed=_installed(read),
        forecast=_forecast(read, _limits(read)),
        deps=_deps(read),
    )
    nightly = NightlyOptions(
        track, issues=_issues(read, env, store), evidence=_evidence(read), limits=_limits(read)
    )
    report = Path(read.text("report-path"))
    return TrackInputs(
        nightly=nightly,
        store=store,
        report_path=report if report.is_absolute() else workspace / report,
        fail_on_regression=read.flag("fail-on-regression"),
    )

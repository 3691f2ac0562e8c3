"""Command-line options several subcommands share: the store, the variants, the thresholds."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from wheel_size.errors import InputError
from wheel_size.history.location import DEFAULT_HISTORY_DIR, StoreLocation

if TYPE_CHECKING:
    from wheel_size.collect.jobs import JobPattern
    from wheel_size.collect.runs import WorkflowSource
    from wheel_size.dates import DateRange
    from wheel_size.github.client import GithubClient
    from wheel_size.github.port import PyGithubPort
    from wheel_size.history.store import HistoryStore
    from wheel_size.report.model import Thresholds
    from wheel_size.series.buildtime import BuildThresholds
    from wheel_size.variants import ArtifactNaming

__all__ = [
    "DEFAULT_HISTORY_DIR",
    "add_naming_options",
    "add_range_options",
    "add_store_options",
    "add_threshold_options",
    "naming_from_args",
    "open_store_from_args",
    "print_or_write",
    "store_location_from_args",
    "thresholds_from_args",
    "variants_from_args",
]


def add_store_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("history store")
    g.add_argument(
        "--history",
        metavar="DIR",
        help=f"history directory (default {DEFAULT_HISTORY_DIR}/ unless --data-branch is given)",
    )
    g.add_argument(
        "--data-branch",
        metavar="BRANCH",
        help="keep the history on this branch of a git remote instead (e.g. wheel-size-data)",
    )
    g.add_argument(
        "--data-remote",
        metavar="URL",
        help="git remote of the data branch (default: the repository's GitHub remote, "
        "authenticated with the token); alone, it implies --data-branch wheel-size-data",
    )
    g.add_argument(
        "--push-attempts",
        type=int,
        default=30,
        metavar="N",
        help="fetch-rebase-push attempts when a push loses a race with another writer, with "
        "exponential backoff (default 30)",
    )
    g.add_argument(
        "--git-timeout",
        type=float,
        metavar="SECONDS",
        help="limit of each git fetch/push of the data branch "
        "(default $WHEEL_SIZE_GIT_TIMEOUT, else 120)",
    )


def add_naming_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("variants")
    g.add_argument(
        "--variant",
        action="append",
        metavar="V",
        help="variant to report: cpu, xpu, cuda12_8, cu128, 'CUDA 12.8', rocm6.4 … "
        "(repeat or comma-separate; default cuda12_8)",
    )
    g.add_argument(
        "--artifact-pattern",
        default="manywheel-{python}-{variant}",
        metavar="PATTERN",
        help="artifact name pattern (default manywheel-{python}-{variant})",
    )
    g.add_argument(
        "--python", default="py3_12", metavar="TAG", help="Python tag, e.g. 3.12 (default py3_12)"
    )


def add_range_options(
    parser: argparse.ArgumentParser, *, night_help: str | None = None, title: str = "dates"
) -> None:
    """``--from``/``--to``/``--month``, and ``--date`` (one night) when ``night_help`` is given:
    what :func:`explicit_periods_from_args` reads."""
    g = parser.add_argument_group(title)
    if night_help is not None:
        g.add_argument("--date", metavar="YYYY-MM-DD", help=night_help)
    g.add_argument("--from", dest="date_from", metavar="YYYY-MM-DD", help="first day")
    g.add_argument("--to", dest="date_to", metavar="YYYY-MM-DD", help="last day (default today)")
    g.add_argument(
        "--month",
        action="append",
        metavar="MONTH",
        help="a whole month, e.g. 'October 2025' or 2025-10 (repeatable)",
    )


def add_threshold_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("thresholds")
    g.add_argument(
        "--threshold-mb",
        type=float,
        default=1.0,
        metavar="MB",
        help="a day-over-day change of at least this many MB is a jump (default 1; 0 = off)",
    )
    g.add_argument(
        "--threshold-pct",
        type=float,
        default=None,
        metavar="PCT",
        help="a change of at least this percent is a jump too (default off)",
    )
    g.add_argument(
        "--baseline",
        default="previous",
        metavar="previous|median:N|window:N",
        help="what a night is measured against: the previous night (default), the median "
        "of the N nights before it, or the mean of the last N nights against the N before "
        "(a change that keeps crossing is one jump)",
    )
    g.add_argument(
        "--build-threshold-min",
        type=float,
        default=15.0,
        metavar="MIN",
        help="a build-time change of at least this many minutes beyond the noise band of its "
        "baseline (the 7 nights before, or --baseline) is a build-time jump (reported only; "
        "default 15; 0 = off)",
    )
    g.add_argument(
        "--build-threshold-pct",
        type=float,
        default=25.0,
        metavar="PCT",
        help="a build-time change of at least this percent is one too (default 25; 0 = off)",
    )
    g.add_argument(
        "--rollback-days",
        type=int,
        default=10,
        metavar="N",
        help="a jump undone within N days is reported as a rollback (default 10)",
    )


def thresholds_from_args(args: argparse.Namespace) -> Thresholds:
    from wheel_size.report.model import Thresholds

    if args.rollback_days < 1:
        raise InputError("--rollback-days must be at least 1")
    from wheel_size.series import Baseline

    # 0 turns a rule off; a negative value is refused by Thresholds itself.
    return Thresholds(
        mb=args.threshold_mb or None,
        pct=args.threshold_pct or None,
        baseline=Baseline.parse(getattr(args, "baseline", None)),
    )


def add_build_time_options(
    parser: argparse.ArgumentParser, *, with_artifact_pattern: bool = True
) -> None:
    """``--build-time`` and ``--job-pattern`` (``collect`` also takes the artifact pattern
    the job pattern pairs with; ``track`` has it among its naming options)."""
    g = parser.add_argument_group("build time")
    g.add_argument(
        "--build-time",
        action="store_true",
        help="also list each new run's jobs (one more request a run, 100 jobs a page) and "
        "store the jobs that built the artifacts, for build time beside size",
    )
    g.add_argument(
        "--job-pattern",
        default=None,
        metavar="PATTERN",
        help="name of the job that builds an artifact, with the artifact pattern's {python} "
        "and {variant} (default manywheel-{python}-{variant}-build)",
    )
    if with_artifact_pattern:
        g.add_argument(
            "--artifact-pattern",
            default="manywheel-{python}-{variant}",
            metavar="PATTERN",
            help="artifact name pattern the job pattern pairs with "
            "(default manywheel-{python}-{variant})",
        )


def job_pattern_from_args(args: argparse.Namespace) -> JobPattern | None:
    """``--build-time`` (with ``--job-pattern``): the jobs to list, or None (off)."""
    from wheel_size.collect.jobs import DEFAULT_JOB_PATTERN, JobPattern

    if not args.build_time:
        if args.job_pattern is not None:
            raise InputError("--job-pattern needs --build-time")
        return None
    return JobPattern(args.job_pattern or DEFAULT_JOB_PATTERN, args.artifact_pattern)


def build_thresholds_from_args(args: argparse.Namespace) -> BuildThresholds:
    from wheel_size.series.buildtime import BuildThresholds

    return BuildThresholds(
        minutes=args.build_threshold_min or None, pct=args.build_threshold_pct or None
    )


def naming_from_args(args: argparse.Namespace) -> ArtifactNaming:
    from wheel_size.variants import ArtifactNaming, canonical_python

    return ArtifactNaming(args.artifact_pattern, canonical_python(args.python))


def variants_from_args(args: argparse.Namespace) -> list[str]:
    """The raw variant texts, split on commas; the default when none was given."""
    out: list[str] = []
    for item in args.variant or ["cuda12_8"]:
        out.extend(v.strip() for v in item.split(",") if v.strip())
    if not out:
        raise InputError("--variant is empty")
    return out


def store_location_from_args(args: argparse.Namespace) -> StoreLocation:
    """The store flags: ``--history``, ``--data-branch``, ``--data-remote`` and the rest."""
    return StoreLocation(
        history=args.history,
        data_branch=args.data_branch,
        data_remote=args.data_remote,
        push_attempts=args.push_attempts,
        git_timeout=args.git_timeout,
    )


@contextlib.contextmanager
def open_store_from_args(
    args: argparse.Namespace, *, repository: str | None = None, token: str | None = None
) -> Iterator[HistoryStore]:
    """The store the options name; a git store's scratch clone is removed afterwards."""
    from wheel_size.history.location import open_store as open_location

    with open_location(store_location_from_args(args), repository=repository, token=token) as store:
        yield store


def print_or_write(path: str | None, text: str) -> None:
    """Print, or write a file atomically (no half-written report on failure)."""
    if path is None or path == "-":
        print(text, end="")
        return
    from wheel_size.fileio import atomic_write

    try:
        atomic_write(Path(path), text.encode())
    except OSError as exc:
        raise InputError(f"{path}: cannot write output: {exc.strerror or exc}") from None


def add_source_options(parser: argparse.ArgumentParser, *, workflow_required: bool = True) -> None:
    g = parser.add_argument_group("workflow runs")
    g.add_argument(
        "--repo",
        metavar="OWNER/NAME",
        default=os.environ.get("GITHUB_REPOSITORY") or None,
        help="repository whose runs to read (default $GITHUB_REPOSITORY)",
    )
    g.add_argument(
        "--workflow",
        metavar="ID_OR_FILE",
        required=workflow_required,
        help="the nightly build workflow: numeric id (21257348) or file name (nightly.yml)",
    )
    g.add_argument(
        "--branch",
        default="nightly",
        metavar="BRANCH",
        help="branch the runs were built from (default nightly; '' for any)",
    )
    g.add_argument(
        "--run-events",
        metavar="EVENTS",
        default=None,
        help="events a nightly run is triggered by, comma-separated (default schedule, "
        "workflow_dispatch, push; '*' for any); runs of other events, and runs built from "
        "another repository (a fork's pull request), are skipped and counted",
    )


def source_from_args(args: argparse.Namespace) -> WorkflowSource:
    from wheel_size.collect.runs import WorkflowSource

    if not args.repo:
        raise InputError("--repo OWNER/NAME is required (or set GITHUB_REPOSITORY)")
    from wheel_size.collect.trusted import parse_events

    events = parse_events(getattr(args, "run_events", None))
    return WorkflowSource(args.repo, str(args.workflow), args.branch or None, events)


def explicit_periods_from_args(args: argparse.Namespace) -> list[DateRange] | None:
    """``--date``, ``--from/--to`` or ``--month``; None when none was given."""
    from wheel_size.dates import explicit_periods as periods

    return periods(getattr(args, "date", None), args.date_from, args.date_to, args.month)


def github_from_env(token: str | None = None) -> GithubClient:
    """A PyGithub client for GITHUB_API_URL with the token (fails before any request)."""
    from wheel_size.github.client import connect

    return connect(token=token)


def github_port_from_env(token: str | None = None) -> PyGithubPort:
    """The GitHub port over :func:`github_from_env`'s client."""
    from wheel_size.github.port import PyGithubPort

    return PyGithubPort(github_from_env(token))

"""``wheel-size track``: the nightly job — collect, store, report, flag threshold crossings.

The flags become :class:`wheel_size.nightly.NightlyOptions`; the job is
:func:`wheel_size.nightly.run_nightly`, the same call the Action makes.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from wheel_size.cli.forecast_options import add_forecast_options, forecast_from_args
from wheel_size.cli.installed_options import add_installed_options, installed_from_args
from wheel_size.cli.issue_options import add_evidence_options, add_issue_options
from wheel_size.cli.options import (
    add_build_time_options,
    add_naming_options,
    add_range_options,
    add_source_options,
    add_store_options,
    add_threshold_options,
)

if TYPE_CHECKING:
    from wheel_size.check.budget import Limits
    from wheel_size.deps.nightly import NightlyDeps
    from wheel_size.nightly import NightlyOptions
    from wheel_size.track import TrackResult

__all__ = [
    "EXIT_REGRESSION",
    "configure_parser",
    "nightly_options_from_args",
    "run",
    "track_from_args",
]

EXIT_REGRESSION = 1


def configure_parser(parser: argparse.ArgumentParser) -> None:
    add_source_options(parser)
    add_range_options(
        parser,
        night_help="collect this night",
        title="dates (default: every night since the last stored one)",
    )
    add_store_options(parser)
    add_naming_options(parser)
    add_threshold_options(parser)
    add_build_time_options(parser, with_artifact_pattern=False)
    add_installed_options(parser)
    add_forecast_options(parser, with_limits=False)
    _add_deps_options(parser)
    parser.add_argument(
        "--report-days",
        type=int,
        default=30,
        metavar="N",
        help="without a range, report the last N days up to the newest night (default 30)",
    )
    parser.add_argument(
        "--records",
        nargs="+",
        metavar="FILE",
        help="also store the runs in these record files (from `collect --out`)",
    )
    parser.add_argument(
        "--no-collect",
        dest="collect",
        action="store_false",
        help="do not ask GitHub; only store --records and report",
    )
    parser.add_argument(
        "--dashboard", action="store_true", help="write index.html (GitHub Pages) to the store"
    )
    parser.add_argument(
        "--dashboard-days",
        type=int,
        default=365,
        metavar="N",
        help="history shown by the dashboard's charts, in days up to the newest night "
        "(default 365)",
    )
    parser.add_argument("--output", "-o", metavar="FILE", help="write the Markdown report here")
    parser.add_argument("--json", metavar="FILE", help="write the result (jumps, reports) as JSON")
    add_issue_options(parser)
    add_evidence_options(parser)
    limits = parser.add_argument_group("size limits (MB = 1,048,576 bytes)")
    limits.add_argument(
        "--ceiling-mb",
        type=float,
        metavar="MB",
        help="report every watched variant whose newest size is over MB",
    )
    limits.add_argument(
        "--ceiling",
        action="append",
        metavar="VARIANT=MB",
        help="a ceiling for one variant (repeatable), e.g. cuda12_8=850",
    )
    limits.add_argument(
        "--pypi-limit-mb",
        type=float,
        metavar="MB",
        help="PyPI's file-size limit of the project (100 unless raised)",
    )
    limits.add_argument(
        "--ceiling-ack",
        metavar="REASON",
        help="a known breach is accepted for this reason: reported, not failed",
    )
    parser.add_argument(
        "--fail-on-regression",
        action="store_true",
        help=f"exit {EXIT_REGRESSION} when a night grew past a threshold, or a watched variant "
        "is over a size limit without --ceiling-ack",
    )


def nightly_options_from_args(args: argparse.Namespace) -> NightlyOptions:
    """The options of the nightly job, from the flags above (checked before anything is
    collected or stored)."""
    import os
    from pathlib import Path

    from wheel_size.cli.issue_options import evidence_options_from_args, issue_options_from_args
    from wheel_size.cli.options import (
        build_thresholds_from_args,
        explicit_periods_from_args,
        job_pattern_from_args,
        naming_from_args,
        source_from_args,
        store_location_from_args,
        thresholds_from_args,
        variants_from_args,
    )
    from wheel_size.errors import InputError
    from wheel_size.history import read_bundle
    from wheel_size.nightly import NightlyOptions
    from wheel_size.track import TrackOptions

    source = source_from_args(args)
    if args.report_days < 1:
        raise InputError("--report-days must be at least 1")
    if args.dashboard_days < 1:
        raise InputError("--dashboard-days must be at least 1")
    track = TrackOptions(
        source=source,
        variants=tuple(variants_from_args(args)),
        naming=naming_from_args(args),
        thresholds=thresholds_from_args(args),
        rollback_days=args.rollback_days,
        periods=explicit_periods_from_args(args),
        report_days=args.report_days,
        records=tuple(r for name in args.records or [] for r in read_bundle(Path(name))),
        collect=args.collect,
        dashboard=args.dashboard,
        dashboard_days=args.dashboard_days,
        server_url=os.environ.get("GITHUB_SERVER_URL") or "https://github.com",
        jobs=job_pattern_from_args(args),
        build_thresholds=build_thresholds_from_args(args),
        installed=installed_from_args(args),
        forecast=forecast_from_args(args, _limits(args)),
        deps=_deps(args),
    )
    issues = (
        issue_options_from_args(args, store_location_from_args(args))
        if args.create_issues
        else None
    )
    return NightlyOptions(
        track, issues=issues, evidence=evidence_options_from_args(args), limits=_limits(args)
    )


def _add_deps_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("the whole download")
    g.add_argument(
        "--deps",
        action="store_true",
        help="also resolve each new night's watched wheels with their dependencies (pip "
        "install --dry-run --report for the wheel's platform; one artifact download each), "
        "store the sets under deps/ and name the pins that moved the download",
    )
    g.add_argument(
        "--deps-index-url", default=None, metavar="URL", help="default https://pypi.org/simple"
    )
    g.add_argument("--deps-cache", default=None, metavar="FILE", help="file sizes by pin (JSON)")


def _deps(args: argparse.Namespace) -> NightlyDeps | None:
    from pathlib import Path

    from wheel_size.deps.nightly import NightlyDeps
    from wheel_size.errors import InputError

    if not args.deps:
        if args.deps_index_url or args.deps_cache:
            raise InputError("--deps-index-url and --deps-cache need --deps")
        return None
    return NightlyDeps(
        index_url=args.deps_index_url or "https://pypi.org/simple",
        cache=Path(args.deps_cache) if args.deps_cache else None,
    )


def _limits(args: argparse.Namespace) -> Limits | None:
    """``--ceiling-mb``, ``--ceiling V=MB``, ``--pypi-limit-mb`` and ``--ceiling-ack``."""
    from wheel_size.check.budget import Budget, Limits, parse_ceilings

    if args.ceiling_mb is None and not args.ceiling and args.pypi_limit_mb is None:
        return None
    budget = Budget(
        growth_mb=None,
        ceiling_mb=args.ceiling_mb,
        ceilings=parse_ceilings(args.ceiling),
        pypi_limit_mb=args.pypi_limit_mb,
    )
    return Limits(budget, (args.ceiling_ack or "").strip() or None)


def track_from_args(args: argparse.Namespace) -> TrackResult:
    """Run the job the flags describe."""
    import os

    from wheel_size.cli.options import github_port_from_env, open_store_from_args
    from wheel_size.nightly import run_nightly

    options = nightly_options_from_args(args)
    token = os.environ.get("GITHUB_TOKEN") or None
    # Fails before anything is stored (a missing token is known now, not after the write).
    github = github_port_from_env(token) if args.collect or args.create_issues else None
    with open_store_from_args(
        args, repository=options.track.source.repository, token=token
    ) as store:
        return run_nightly(store, options, github)


def _workflow_outputs(args: argparse.Namespace, result: TrackResult) -> None:
    """Inside a workflow: the Action's outputs (named as in action.yml), an annotation per
    jump and the step summary; the reports are the files --output and --json wrote (or
    the store's report.md, for a directory store)."""
    import os
    import sys
    from pathlib import Path

    from wheel_size.action.track_outputs import TrackPublisher
    from wheel_size.track import REPORT_FILE

    workspace = Path(os.environ.get("GITHUB_WORKSPACE") or ".")
    repository = args.repo or ""
    issues_repo = getattr(args, "issues_repo", None) or repository
    publisher = TrackPublisher(
        os.environ, sys.stdout, workspace, repository=repository, issues_repo=issues_repo
    )
    publisher.stored(result)
    report = Path(args.output) if args.output and args.output != "-" else None
    if report is None and not (args.data_branch or args.data_remote):
        report = Path(args.history or ".wheel-size") / REPORT_FILE
    publisher.report_paths(report, Path(args.json) if args.json else None)
    publisher.annotate()
    publisher.flush()
    publisher.summary(report_name=report.name if report is not None else REPORT_FILE)


def run(args: argparse.Namespace) -> int:
    import json
    import os
    import sys

    from wheel_size.cli.options import print_or_write
    from wheel_size.units import format_mb

    result = track_from_args(args)
    for j in result.jumps:
        delta = format_mb(j.delta_mb, signed=True)
        print(
            f"wheel-size: jump: {j.artifact} {j.prev_date} → {j.date}: {delta} MB "
            f"({format_mb(j.prev_size_mb)} → {format_mb(j.size_mb)} MB), run {j.run_id}",
            file=sys.stderr,
        )
    print(
        f"wheel-size: {len(result.collected)} run(s) collected, {result.ingested} ingested, "
        f"{len(result.write.changed)} file(s) written; {len(result.jumps)} jump(s)",
        file=sys.stderr,
    )
    if result.issues is not None:
        for line in result.issues.lines:
            print(f"wheel-size: issue {line}", file=sys.stderr)
    for warning in result.warnings:
        print(f"wheel-size: warning: {warning}", file=sys.stderr)
    if args.json:
        print_or_write(args.json, json.dumps(result.to_dict(), indent=2) + "\n")
    from wheel_size.nightly.summary import limits_markdown

    print_or_write(args.output, result.markdown + limits_markdown(result))
    if os.environ.get("GITHUB_ACTIONS") == "true":
        _workflow_outputs(args, result)
    if result.issue_error is not None:
        raise result.issue_error  # one line, non-zero; the history is stored already
    for breach in result.ceiling_breaches:
        from wheel_size.nightly.summary import ceiling_text

        said = f" (acknowledged: {result.ceiling_ack})" if result.ceiling_ack else ""
        print(f"wheel-size: limit: {breach.variant}: {ceiling_text(breach)}{said}", file=sys.stderr)
    if args.fail_on_regression and (result.regression or result.ceiling_failed):
        return EXIT_REGRESSION
    return 0

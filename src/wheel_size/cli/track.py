"""``wheel-size track``: the nightly job — collect, store, report, flag threshold crossings."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from wheel_size.cli.options import (
    add_naming_options,
    add_range_options,
    add_source_options,
    add_store_options,
    add_threshold_options,
)
from wheel_size.evidence.options import add_evidence_options
from wheel_size.regressions.options import add_issue_options

if TYPE_CHECKING:
    from wheel_size.track import TrackResult

__all__ = ["EXIT_REGRESSION", "configure_parser", "run", "track_from_args"]

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
    parser.add_argument(
        "--fail-on-regression",
        action="store_true",
        help=f"exit {EXIT_REGRESSION} when a night grew past a threshold",
    )


def track_from_args(args: argparse.Namespace) -> TrackResult:
    """Run the job the options describe; the Action calls this too."""
    import os
    from pathlib import Path

    from wheel_size.cli.options import (
        explicit_periods,
        github_from_env,
        naming_from_args,
        open_store,
        source_from_args,
        thresholds_from_args,
        variants_from_args,
    )
    from wheel_size.errors import InputError
    from wheel_size.history import read_bundle
    from wheel_size.track import TrackOptions, track

    source = source_from_args(args)
    if args.report_days < 1:
        raise InputError("--report-days must be at least 1")
    if args.dashboard_days < 1:
        raise InputError("--dashboard-days must be at least 1")
    options = TrackOptions(
        source=source,
        variants=variants_from_args(args),
        naming=naming_from_args(args),
        thresholds=thresholds_from_args(args),
        rollback_days=args.rollback_days,
        periods=explicit_periods(args),
        report_days=args.report_days,
        records=[r for name in args.records or [] for r in read_bundle(Path(name))],
        collect=args.collect,
        dashboard=args.dashboard,
        dashboard_days=args.dashboard_days,
        server_url=os.environ.get("GITHUB_SERVER_URL") or "https://github.com",
        issue_lookback_days=_issue_lookback(args) if args.create_issues else None,
    )
    token = os.environ.get("GITHUB_TOKEN") or None
    # Fails before anything is stored (a missing token is known now, not after the write).
    github = github_from_env(token) if args.collect or args.create_issues else None
    issues_repo = getattr(args, "issues_repo", None) or source.repository
    if args.create_issues and args.dashboard and github is not None:
        options.issue_links = _issue_links(github, issues_repo, args)
    with open_store(args, repository=source.repository, token=token) as store:
        result = track(store, options, github=github)
        if args.create_issues and github is not None:
            # After the write: a refused issue never costs the night's sizes.
            from wheel_size.errors import WheelSizeError
            from wheel_size.regressions.track_step import issues_after_track

            nights = sorted({r.date for r in result.collected} | {r.date for r in options.records})
            try:
                result.issues = issues_after_track(
                    args,
                    store,
                    github,
                    nights,
                    repo=source.repository,
                    naming=options.naming,
                    variants=options.variants,
                    workflow=source.workflow,
                    series=result.series,
                )
            except WheelSizeError as exc:
                result.issue_error = exc
            if args.dashboard and result.issues is not None and result.issues.created:
                from wheel_size.track import relink_dashboard

                relink_dashboard(
                    store, result.reports, options, _issue_links(github, issues_repo, args)
                )
        return result


def _issue_lookback(args: argparse.Namespace) -> int | None:
    """How far back the issue step reads, so the run's one history load covers it too.

    None when the issue options are bad: the issue step reports that after the write.
    """
    from wheel_size.errors import WheelSizeError
    from wheel_size.regressions.options import alert_settings_from_args
    from wheel_size.series import lookback_days

    try:
        return lookback_days(alert_settings_from_args(args).creep)
    except WheelSizeError:
        return None


def _issue_links(github: object, repo: str, args: argparse.Namespace) -> dict[tuple[str, str], str]:
    """The dashboard's links to regression issues; without them the page is still drawn."""
    import sys

    from wheel_size.dashboard.links import issue_links_from_github
    from wheel_size.errors import WheelSizeError
    from wheel_size.regressions.options import alert_settings_from_args

    label = alert_settings_from_args(args).issues.label
    try:
        return issue_links_from_github(github, repo, label)
    except WheelSizeError as exc:
        print(f"wheel-size: warning: dashboard without issue links: {exc}", file=sys.stderr)
        return {}


def _workflow_outputs(result: TrackResult) -> None:
    """Inside a workflow: an annotation per jump, step outputs and the job summary, as the
    container action gives (the reusable workflow runs this command directly)."""
    import json
    import os
    import sys

    from wheel_size.action.commands import workflow_command, write_outputs, write_step_summary
    from wheel_size.render import render
    from wheel_size.track import REPORT_FILE

    for j in result.jumps:
        workflow_command(
            sys.stdout,
            "warning",
            f"{j.artifact}: {j.delta_mb:+.1f} MB on {j.date} "
            f"({j.prev_size_mb:.1f} → {j.size_mb:.1f} MB, run {j.run_id})",
            {"title": "Wheel size jump"},
        )
    write_outputs(
        os.environ.get("GITHUB_OUTPUT"),
        {
            "regression": "true" if result.regression else "false",
            "jump-count": str(len(result.jumps)),
            "jumps": json.dumps([j.to_dict() for j in result.jumps]),
            "report": REPORT_FILE,
            "commit": result.write.commit or "",
            "issues": " ".join(
                str(n)
                for n in dict.fromkeys(
                    [*result.issues.created, *result.issues.updated] if result.issues else []
                )
            ),
        },
    )
    note = render("action-summary-truncated.md.j2", path=REPORT_FILE)
    write_step_summary(os.environ.get("GITHUB_STEP_SUMMARY"), result.markdown, note)


def run(args: argparse.Namespace) -> int:
    import json
    import os
    import sys

    from wheel_size.cli.options import write_output

    result = track_from_args(args)
    for j in result.jumps:
        print(
            f"wheel-size: jump: {j.artifact} {j.prev_date} → {j.date}: {j.delta_mb:+.1f} MB "
            f"({j.prev_size_mb:.1f} → {j.size_mb:.1f} MB), run {j.run_id}",
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
    if args.json:
        write_output(args.json, json.dumps(result.to_dict(), indent=2) + "\n")
    write_output(args.output, result.markdown)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        _workflow_outputs(result)
    if result.issue_error is not None:
        raise result.issue_error  # one line, non-zero; the history is stored already
    if args.fail_on_regression and result.regression:
        return EXIT_REGRESSION
    return 0

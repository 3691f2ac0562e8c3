"""``wheel-size report``: the size report from the stored history."""

from __future__ import annotations

import argparse

from wheel_size.cli.forecast_options import add_forecast_options
from wheel_size.cli.options import (
    add_naming_options,
    add_range_options,
    add_store_options,
    add_threshold_options,
    print_or_write,
)

__all__ = ["configure_parser", "run"]


def configure_parser(parser: argparse.ArgumentParser) -> None:
    add_store_options(parser)
    add_naming_options(parser)
    add_range_options(parser)
    add_threshold_options(parser)
    parser.add_argument("--repo", metavar="OWNER/NAME", help="only runs of this repository")
    parser.add_argument("--workflow", metavar="ID_OR_FILE", help="only runs of this workflow")
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    parser.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")
    add_forecast_options(parser, with_limits=True)


def run(args: argparse.Namespace) -> int:
    import os

    from wheel_size.cli.forecast_options import forecast_from_args
    from wheel_size.cli.options import (
        build_thresholds_from_args,
        naming_from_args,
        open_store_from_args,
        thresholds_from_args,
        variants_from_args,
    )
    from wheel_size.dates import periods_from_args
    from wheel_size.report.build import reports_for
    from wheel_size.report.render import render_json, render_size_report

    periods = periods_from_args(args.date_from, args.date_to, args.month)
    token = os.environ.get("GITHUB_TOKEN") or None
    with open_store_from_args(args, repository=args.repo, token=token) as store:
        reports = reports_for(
            store,
            variants_from_args(args),
            periods,
            naming=naming_from_args(args),
            thresholds=thresholds_from_args(args),
            build_thresholds=build_thresholds_from_args(args),
            rollback_days=args.rollback_days,
            repository=args.repo,
            workflow=args.workflow,
        )
    forecast = forecast_from_args(args)
    if forecast is not None:
        from wheel_size.report.forecast import with_forecast

        reports = [with_forecast(r, forecast) for r in reports]
    text = render_json(reports) if args.format == "json" else render_size_report(reports)
    print_or_write(args.output, text)
    return 0

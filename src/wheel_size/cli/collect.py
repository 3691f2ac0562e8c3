"""``wheel-size collect``: read run and artifact sizes for a date or range and store them
(or write them to a record file for a fan-in job)."""

from __future__ import annotations

import argparse

from wheel_size.cli.installed_options import add_installed_options, installed_from_args
from wheel_size.cli.options import (
    add_build_time_options,
    add_range_options,
    add_source_options,
    add_store_options,
    job_pattern_from_args,
)

__all__ = ["configure_parser", "run"]


def configure_parser(parser: argparse.ArgumentParser) -> None:
    add_source_options(parser)
    add_range_options(parser, night_help="one night")
    add_store_options(parser)
    add_build_time_options(parser)
    add_installed_options(parser)
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="write the records to this file (for `wheel-size store` / `track --records`) "
        "instead of the store",
    )


def run(args: argparse.Namespace) -> int:
    import sys

    from wheel_size.cli.options import (
        explicit_periods_from_args,
        github_port_from_env,
        open_store_from_args,
        source_from_args,
    )
    from wheel_size.collect import collect
    from wheel_size.errors import InputError
    from wheel_size.history import write_bundle

    source = source_from_args(args)
    periods = explicit_periods_from_args(args)
    if not periods:
        raise InputError("collect needs --date, --from/--to or --month")
    if args.out and (args.history or args.data_branch):
        raise InputError("give either --out or a store (--history/--data-branch), not both")
    from wheel_size.collect.trusted import SkippedRun, skipped_line

    github = github_port_from_env()
    jobs = job_pattern_from_args(args)
    runs = []
    skipped: list[SkippedRun] = []
    for p in periods:
        runs += collect(github, source, p.start, p.end, jobs=jobs, skipped=skipped)
    installed = installed_from_args(args)
    if installed is not None:
        from wheel_size.collect.installed import with_installed_sizes

        warnings: list[str] = []
        runs = [
            with_installed_sizes(github, source.repository, r, installed, warnings) for r in runs
        ]
        for line in warnings:
            print(f"wheel-size: warning: {line}", file=sys.stderr)
    for run in skipped:
        print(f"wheel-size: warning: {run.warning()}", file=sys.stderr)
    if skipped:
        print(f"wheel-size: {skipped_line(skipped)}", file=sys.stderr)
    artifacts = sum(len(r.artifacts) for r in runs)
    span = ", ".join(str(p) for p in periods)
    if args.out:
        from pathlib import Path

        write_bundle(Path(args.out), runs)
        where = args.out
        changed = len(runs)
    else:
        import os

        with open_store_from_args(
            args, repository=source.repository, token=os.environ.get("GITHUB_TOKEN")
        ) as store:
            result = store.write_runs(runs)
            where = store.description
            changed = len(result.changed)
    print(
        f"wheel-size: collected {len(runs)} run(s) with {artifacts} artifact(s) of "
        f"{source.repository} {span}; {changed} written to {where}",
        file=sys.stderr,
    )
    return 0

"""``wheel-size diff OLD NEW``: where two wheels differ, down to ELF sections and GPU archs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["OFFLINE", "configure_parser", "run"]

# Two local inputs in, a report out: no HTTPS call, so the console script loads no trust
# store for it (truststore, urllib3, requests and ssl: ~0.08 CPU-s of a torch diff's start).
OFFLINE = True


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", type=Path, help="old wheel, or a zip artifact holding wheels")
    parser.add_argument("new", type=Path, help="new wheel, or a zip artifact holding wheels")
    parser.add_argument(
        "--format", choices=("markdown", "json"), default="markdown", help="output format"
    )
    parser.add_argument("--output", "-o", type=Path, help="write the report here (default stdout)")
    parser.add_argument(
        "--limit", type=int, default=25, help="files listed per comparison (default 25)"
    )
    parser.add_argument(
        "--by",
        choices=("kernel", "symbol", "family"),
        help="compare GPU kernels, host symbols or kernel template families instead of files",
    )
    parser.add_argument(
        "--top", type=int, default=20, help="rows per table with --by, the rest summed (20)"
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        metavar="N",
        help="worker processes for --by (default: one per usable core, at most 4)",
    )


def run(args: argparse.Namespace) -> int:
    from wheel_size.diff.run import diff_inputs
    from wheel_size.diff.view import cell, diff_view
    from wheel_size.fileio import atomic_write_text
    from wheel_size.history.tempwork import temporary_work
    from wheel_size.render import render

    with temporary_work():
        if args.by:
            return _run_by(args)
        report = diff_inputs(args.old, args.new)
    if args.format == "json":
        text = json.dumps(report.to_json(), indent=2) + "\n"
    else:
        text = render(
            "diff.md.j2",
            comparisons=[diff_view(c, limit=args.limit) for c in report.comparisons],
            problems=[cell(p) for p in report.problems],
        )
    if args.output:
        atomic_write_text(args.output, text)
    else:
        sys.stdout.write(text)
    for problem in [*report.problems, *(p for c in report.comparisons for p in c.problems)]:
        print(f"wheel-size: warning: {problem}", file=sys.stderr)
    return 0


def _run_by(args: argparse.Namespace) -> int:
    from wheel_size.diff.by_run import diff_inputs_by
    from wheel_size.diff.by_view import by_view
    from wheel_size.fileio import atomic_write_text
    from wheel_size.render import render

    report = diff_inputs_by(args.old, args.new, by=args.by, top=args.top, jobs=args.jobs)
    if args.format == "json":
        text = json.dumps(report.to_json(), indent=2) + "\n"
    else:
        text = render("diff_by.md.j2", **by_view(report))
    if args.output:
        atomic_write_text(args.output, text)
    else:
        sys.stdout.write(text)
    for problem in [*report.problems, *(p for c in report.comparisons for p in c.problems)]:
        print(f"wheel-size: warning: {problem}", file=sys.stderr)
    return 0

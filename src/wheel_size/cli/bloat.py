"""``wheel-size bloat WHEEL``: duplicate kernels, template families by size, and
architectures whose code equals a neighbour's, with the bytes each fix saves."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["configure_parser", "run"]


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("wheel", type=Path, help="a wheel (or an unpacked wheel directory)")
    parser.add_argument(
        "--format", choices=("markdown", "json"), default="markdown", help="output format"
    )
    parser.add_argument("--output", "-o", type=Path, help="write the report here (default stdout)")
    parser.add_argument("--top", type=int, default=20, help="rows per list (default 20)")


def run(args: argparse.Namespace) -> int:
    from wheel_size.errors import InputError
    from wheel_size.fileio import atomic_write_text
    from wheel_size.kernels.bloat import find_bloat
    from wheel_size.kernels.bloat_view import bloat_json, bloat_view
    from wheel_size.render import render

    if args.top < 1:
        raise InputError(f"--top {args.top}: must be at least 1")
    report = find_bloat(args.wheel, top=args.top)
    if args.format == "json":
        text = json.dumps(bloat_json(report), indent=2) + "\n"
    else:
        text = render("bloat.md.j2", **bloat_view(report, top=args.top))
    if args.output:
        atomic_write_text(args.output, text)
    else:
        sys.stdout.write(text)
    for problem in report.problems:
        print(f"wheel-size: warning: {problem}", file=sys.stderr)
    return 0

"""``wheel-size audit PATHS…``: which wheels of a build matrix to keep, drop or fix."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["configure_parser", "run"]


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        type=Path,
        help="wheels, directories of wheels (searched recursively) or zip artifacts",
    )
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    parser.add_argument("--output", "-o", type=Path, help="write the report here (default stdout)")
    parser.add_argument(
        "--trust-record",
        action="store_true",
        help="take hashes from RECORD instead of hashing every member (faster, no RECORD check)",
    )
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 when any wheel is to be dropped or fixed"
    )


def run(args: argparse.Namespace) -> int:
    from wheel_size.audit.run import audit_paths
    from wheel_size.audit.view import view
    from wheel_size.diff.hip import hip_arch_scanners
    from wheel_size.diff.output import write_text_atomic
    from wheel_size.render import render

    report = audit_paths(args.paths, trust_record=args.trust_record, scanners=hip_arch_scanners())
    if args.format == "json":
        text = json.dumps(report.to_json(), indent=2) + "\n"
    else:
        text = render("audit.md.j2", **view(report))
    if args.output:
        write_text_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    for finding in report.unreadable:
        print(f"wheel-size: warning: {finding.detail}", file=sys.stderr)
    if args.strict and any(v.verdict != "keep" for v in report.verdicts):
        return 1
    return 0

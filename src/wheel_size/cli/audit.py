"""``wheel-size audit PATHS…``: which wheels of a build matrix to keep, drop or fix."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

__all__ = ["configure_parser", "run"]


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        help="wheels, directories of wheels (searched recursively) or zip artifacts",
    )
    api = parser.add_argument_group("a workflow run's artifacts (GITHUB_TOKEN, GITHUB_API_URL)")
    api.add_argument("--repo", metavar="OWNER/NAME", help="repository of the run")
    api.add_argument("--run-id", type=int, metavar="ID", help="audit every artifact of this run")
    api.add_argument(
        "--artifact-pattern",
        metavar="GLOB",
        default="*",
        help="only artifacts whose name matches (default all)",
    )
    api.add_argument(
        "--max-download-mb",
        type=int,
        default=4096,
        metavar="MB",
        help="skip artifacts larger than this (default 4096; 0: no limit)",
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
    from wheel_size.errors import InputError
    from wheel_size.fileio import atomic_write_text
    from wheel_size.render import render

    if (args.repo is None) != (args.run_id is None):
        raise InputError("--repo and --run-id go together")
    if not args.paths and args.run_id is None:
        raise InputError("give wheels, directories or artifacts to audit, or --repo and --run-id")
    with tempfile.TemporaryDirectory(prefix="wheel-size-run-") as tmp:
        paths = list(args.paths)
        skipped: list[str] = []
        display: dict[Path, str] = {}
        if args.run_id is not None:
            from wheel_size.audit.remote import download_run_artifacts

            found, skipped = download_run_artifacts(
                args.repo,
                args.run_id,
                Path(tmp),
                pattern=args.artifact_pattern,
                max_bytes=(args.max_download_mb << 20) if args.max_download_mb else None,
            )
            paths += [path for path, _ in found]
            display = dict(found)
        report = audit_paths(
            paths, display=display, trust_record=args.trust_record, scanners=hip_arch_scanners()
        )
    for message in skipped:
        print(f"wheel-size: warning: {message}", file=sys.stderr)
    if args.format == "json":
        text = json.dumps(report.to_json(), indent=2) + "\n"
    else:
        text = render("audit.md.j2", **view(report))
    if args.output:
        atomic_write_text(args.output, text)
    else:
        sys.stdout.write(text)
    for finding in report.unreadable:
        print(f"wheel-size: warning: {finding.detail}", file=sys.stderr)
    if args.strict and any(v.verdict != "keep" for v in report.verdicts):
        return 1
    return 0

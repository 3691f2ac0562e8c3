"""``wheel-size audit PATHS…``: which wheels of a build matrix to keep, drop or fix."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wheel_size.cli.quota_options import add_quota_options, quota_from_args
from wheel_size.ports import ArtifactDownloads

__all__ = ["configure_parser", "run"]


def configure_parser(parser: argparse.ArgumentParser) -> None:
    from wheel_size.audit.run import DEFAULT_MAX_DOWNLOAD_MB

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
        default=DEFAULT_MAX_DOWNLOAD_MB,
        metavar="MB",
        help=f"skip artifacts larger than this (default {DEFAULT_MAX_DOWNLOAD_MB}; 0: no limit)",
    )
    parser.add_argument(
        "--prefer",
        action="append",
        default=[],
        metavar="GLOB",
        help="keep the wheel whose path or job matches first, of identical builds and of "
        "jobs writing the same file name (repeatable, in order of preference)",
    )
    add_quota_options(parser, release="the wheels the audit keeps")
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


def _github() -> ArtifactDownloads:
    """The GitHub port, opened only when a run's artifacts are asked for."""
    from wheel_size.github.port import PyGithubPort

    return PyGithubPort.connected()


def run(args: argparse.Namespace) -> int:
    from wheel_size.audit.run import AuditOptions, run_audit
    from wheel_size.errors import InputError
    from wheel_size.fileio import atomic_write_text

    if (args.repo is None) != (args.run_id is None):
        raise InputError("--repo and --run-id go together")
    if not args.paths and args.run_id is None:
        raise InputError("give wheels, directories or artifacts to audit, or --repo and --run-id")
    if args.max_download_mb < 0:
        raise InputError("--max-download-mb must be 0 (no limit) or more")
    from wheel_size.history.tempwork import temporary_work

    options = AuditOptions(
        paths=tuple(args.paths),
        repo=args.repo,
        run_id=args.run_id,
        artifact_pattern=args.artifact_pattern,
        max_download_mb=args.max_download_mb,
        trust_record=args.trust_record,
        prefer=tuple(args.prefer),
        quota=quota_from_args(args),
    )
    with temporary_work():
        result = run_audit(options, _github)
    for message in result.skipped:
        print(f"wheel-size: warning: {message}", file=sys.stderr)
    text = result.json_text() if args.format == "json" else result.markdown()
    if args.output:
        atomic_write_text(args.output, text)
    else:
        sys.stdout.write(text)
    from wheel_size.cli.summary import workflow_summary

    workflow_summary(result.markdown(), str(args.output) if args.output else None)
    for finding in result.report.unreadable:
        print(f"wheel-size: warning: {finding.detail}", file=sys.stderr)
    if result.quota_error:
        print(f"wheel-size: warning: project quota unknown: {result.quota_error}", file=sys.stderr)
    return 1 if args.strict and not result.clean else 0

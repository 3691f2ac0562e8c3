"""``wheel-size split``: a ROCm fat wheel into a host wheel and per-GPU device wheels.

The flags are those of ``rocm_kpack.tools.split_python_wheels`` so its users can switch, plus
``--extra-naming`` and the report outputs.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["SplitOutcome", "configure_parser", "run", "split_from_args"]


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: must be at least 1")
    return value


def configure_parser(parser: argparse.ArgumentParser) -> None:
    from wheel_size.split.databases import DATABASES

    add = parser.add_argument
    add("--input", required=True, type=Path, help="a .whl file or an unpacked wheel directory")
    add("--output-dir", required=True, type=Path, help="where the wheels go")
    add(
        "--device-package-prefix",
        required=True,
        help="distribution-name prefix of device wheels, e.g. amd-torch-device",
    )
    add(
        "--overlay-root", required=True, help="folder inside the wheel holding .kpack/, e.g. torch/"
    )
    add("--wheel-type", choices=["torch-fat"], help="preset list of database handlers")
    add(
        "--databases",
        nargs="+",
        action="extend",
        choices=sorted(DATABASES),
        metavar="NAME",
        help=f"database handlers (overrides --wheel-type): {', '.join(sorted(DATABASES))}",
    )
    add("--output-format", choices=["wheel", "directory"], default="wheel")
    add("--compression", choices=["zstd", "none"], default="zstd", help="kpack blob compression")
    add("--compression-level", type=int, default=3, help="zstd level of kpack blobs (default 3)")
    add("-j", "--jobs", type=_positive, default=1, help="worker processes (default 1)")
    add(
        "--device-requires-dist",
        nargs="+",
        action="extend",
        default=[],
        metavar="REQ",
        help="extra Requires-Dist of device wheels; @GFXARCH@ becomes the target",
    )
    add("--generate-variant-wheel", action="store_true", help="also write a PEP 825 variant wheel")
    add("--variant-label", default="variant", help="label of the variant wheel (default: variant)")
    add("--tmp-dir", type=Path, help="where extracted libraries and kernels are staged")
    add("--verbose", action="store_true")
    add(
        "--extra-naming",
        choices=["plain", "device"],
        default="plain",
        help="host extras: plain = torch[gfx1100], torch[all]; "
        "device = torch[device-gfx1100], torch[device-all]",
    )
    add(
        "--host-installs",
        choices=["extras", "all"],
        default="extras",
        help="what a plain `pip install torch` of the host wheel installs: extras = the host "
        "only (kernels come with torch[gfx1100] or torch[all]); all = every device wheel too, "
        "for an index that must stay backwards compatible (no download saved by default)",
    )
    add("--deflate-level", type=int, default=6, help="zip deflate level of rewritten files")
    add(
        "--verify-bundle-hash",
        action="store_true",
        help="check the MD5 of compressed (CCOB) bundles; sizes, zstd framing and e_flags "
        "are always checked",
    )
    add("--report-json", type=Path, help="write the savings report as JSON")
    add("--report-md", type=Path, help="write the savings report as Markdown")
    add(
        "--report-targets",
        nargs="+",
        action="extend",
        default=[],
        metavar="GFX",
        help="list only these GPUs in the report's download table (default: all)",
    )
    add(
        "--comment-pr",
        type=_positive,
        metavar="NUMBER",
        help="post the report as one comment on this pull request (updated in place on reruns)",
    )
    add(
        "--repository",
        default=os.environ.get("GITHUB_REPOSITORY"),
        metavar="OWNER/NAME",
        help="repository of --comment-pr (default: $GITHUB_REPOSITORY)",
    )
    add("--comment-key", default="split", help="tells apart several split comments on one PR")


@dataclass
class SplitOutcome:
    """What a split run produced, for the CLI and the container action."""

    report: dict[str, Any]
    markdown: str
    outputs: list[Path]
    comment_url: str | None = None


def run(args: argparse.Namespace) -> int:
    outcome = split_from_args(args)
    if args.verbose or not args.report_md:
        sys.stdout.write(outcome.markdown)
    if outcome.comment_url:
        print(f"wheel-size: split report posted: {outcome.comment_url}", file=sys.stderr)
    return 0


def split_from_args(args: argparse.Namespace) -> SplitOutcome:
    """Validate, split, write the reports and post the comment.

    Every flag that reaches a file name or METADATA is checked before any work, report paths
    are checked to be writable before the split, and a report that still cannot be written
    removes the split's wheels again: a failure leaves no partial output.
    """
    from wheel_size.errors import InputError
    from wheel_size.fileio import atomic_write_all, check_writable, make_dirs, remove_dirs
    from wheel_size.split.apply import remove_outputs, split_wheel
    from wheel_size.split.databases import select_databases
    from wheel_size.split.metadata import check_requirement, check_variant_label
    from wheel_size.split.names import check_device_prefix
    from wheel_size.split.plan import SplitOptions
    from wheel_size.split.report import build_report, render_markdown, to_json

    if not 1 <= args.compression_level <= 22:
        raise InputError(f"--compression-level {args.compression_level}: must be 1..22")
    if not 0 <= args.deflate_level <= 9:
        raise InputError(f"--deflate-level {args.deflate_level}: must be 0..9")
    label = check_variant_label(args.variant_label) if args.generate_variant_wheel else None
    check_device_prefix(args.device_package_prefix)
    for requirement in args.device_requires_dist:
        check_requirement(requirement)
    if args.comment_pr and not args.repository:
        raise InputError("--comment-pr needs --repository OWNER/NAME (or $GITHUB_REPOSITORY)")
    reports = [path for path in (args.report_json, args.report_md) if path is not None]
    for path in reports:
        check_writable(path)
    made_tmp = []
    if args.tmp_dir is not None:
        made_tmp = make_dirs(args.tmp_dir)
        os.environ["TMPDIR"] = str(args.tmp_dir)
    options = SplitOptions(
        device_package_prefix=args.device_package_prefix,
        overlay_root=args.overlay_root,
        databases=select_databases(args.wheel_type, args.databases),
        output_format=args.output_format,
        compression=args.compression,
        compression_level=args.compression_level,
        jobs=args.jobs,
        device_requires_dist=tuple(args.device_requires_dist),
        variant_label=label,
        extra_naming=args.extra_naming,
        host_installs=args.host_installs,
        deflate_level=args.deflate_level,
        verify_bundle_hash=args.verify_bundle_hash,
        verbose=args.verbose,
    )
    try:
        result = split_wheel(args.input, args.output_dir, options, tmp_dir=args.tmp_dir)
    except BaseException:
        remove_dirs(made_tmp)  # a --tmp-dir this run created goes again, if it is empty
        raise
    try:
        report = build_report(result, args.report_targets)
        markdown = render_markdown(report)
        files = [(args.report_json, to_json(report)), (args.report_md, markdown)]
        atomic_write_all([(path, text.encode()) for path, text in files if path is not None])
    except BaseException:
        remove_outputs(result)
        raise
    outcome = SplitOutcome(report, markdown, [w.path for w in result.wheels])
    if args.comment_pr:
        outcome.comment_url = _comment(args, report)
    return outcome


def _comment(args: argparse.Namespace, report: dict[str, Any]) -> str:
    from wheel_size.github.client import connect
    from wheel_size.github.port import PyGithubPort
    from wheel_size.ports import worded
    from wheel_size.split.comment import post_comment, render_comment

    body = render_comment(report, args.comment_key)
    where = f"commenting on {args.repository}#{args.comment_pr}"
    with worded(where):
        repo = PyGithubPort(connect()).repository(args.repository)
    return post_comment(repo, args.comment_pr, body, args.comment_key)

"""``wheel-size split``: a ROCm fat wheel into a host wheel and per-GPU device wheels.

The flags are those of ``rocm_kpack.tools.split_python_wheels`` so its users can switch, plus
``--extra-naming`` and the report outputs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from wheel_size.errors import InputError

if TYPE_CHECKING:
    from wheel_size.split.job import SplitOutcome
    from wheel_size.split.plan import SplitOptions

__all__ = ["IMPORTS", "OFFLINE", "configure_parser", "dry_run_from_args", "run", "split_from_args"]

# Local files in, local files out: no HTTPS call, so the console script loads no trust
# store for it (truststore, urllib3, requests and ssl: ~0.06 CPU-s of imports per split).
OFFLINE = True
# What every split imports (the job, its waves, the report): imported while the command
# starts, before the collector runs (``wheel_size.cli.main``).
IMPORTS = ("wheel_size.split.job", "wheel_size.split.apply", "wheel_size.split.report")


def _jobs(text: str) -> int | str:
    """``auto`` or a positive count."""
    return text if text == "auto" else _positive(text)


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
    add(
        "--kpack-layout",
        choices=["per-processor", "per-target-id"],
        default="per-processor",
        help="per-processor: one archive per GPU processor serving every feature-qualified "
        "agent (needs rocm-kpack's loader of 2026-02-19 or later); per-target-id: AMD's "
        "split_python_wheels layout for older runtimes (fewer agents served)",
    )
    add(
        "-j",
        "--jobs",
        type=_jobs,
        default="auto",
        help="the most worker processes, or auto (default): one per idle core (cores minus "
        "the load now), at least 1; a wheel whose libraries are too small to pay for a pool "
        "is split in this process alone (and auto then does not sample the load)",
    )
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
    add(
        "--trust-record",
        action="store_true",
        help="check no RECORD line (by default the hashes of the libraries, which are "
        "inflated anyway, and the sizes of all other members are checked)",
    )
    add(
        "--verify-record",
        action="store_true",
        help="also inflate and hash every member copied verbatim, to check its RECORD hash "
        "(costs an inflate of everything copied)",
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
    add(
        "--bot-login",
        metavar="LOGIN",
        help="whose --comment-pr comment is the bot's (default: the token's login, a GitHub "
        "App's APP-SLUG[bot] included; [bot] may be left out)",
    )
    add(
        "--dry-run",
        action="store_true",
        help="print the plan (what moves where, sizes) and write nothing, not even --output-dir",
    )
    add(
        "--format",
        choices=["text", "json"],
        default="text",
        help="how --dry-run prints the plan (default: text)",
    )


def run(args: argparse.Namespace) -> int:
    if args.dry_run:
        sys.stdout.write(dry_run_from_args(args))
        return 0
    outcome = split_from_args(args)
    if args.verbose or not args.report_md:
        sys.stdout.write(outcome.markdown)
    from wheel_size.cli.summary import workflow_summary

    workflow_summary(outcome.markdown, str(args.report_md) if args.report_md else None)
    if outcome.comment_url:
        print(f"wheel-size: split report posted: {outcome.comment_url}", file=sys.stderr)
    return 0


def split_from_args(args: argparse.Namespace) -> SplitOutcome:
    """The split the flags describe (validated before any work), with its reports and
    comment: :func:`wheel_size.split.job.run_split_job`."""
    from wheel_size.split.job import SplitRequest, run_split_job

    if args.format != "text":
        raise InputError("--format applies to --dry-run only")
    request = SplitRequest(
        input=args.input,
        output_dir=args.output_dir,
        options=_options(args),
        report_json=args.report_json,
        report_md=args.report_md,
        report_targets=tuple(args.report_targets or ()),
        tmp_dir=args.tmp_dir,
    )
    post = None
    if args.comment_pr:
        from functools import partial

        from wheel_size.github.port import PyGithubPort
        from wheel_size.ports import check_login
        from wheel_size.split.comment import split_commenter

        bot = check_login(args.bot_login, "--bot-login") if args.bot_login else None
        post = split_commenter(
            partial(PyGithubPort.connected, bot_login=bot),
            args.repository,
            args.comment_pr,
            args.comment_key,
        )
    return run_split_job(request, post)


def _options(args: argparse.Namespace) -> SplitOptions:
    """Every flag checked (those that reach a file name or METADATA too), as options."""
    from wheel_size.split.job import checked_split_options

    if args.comment_pr and not args.repository:
        raise InputError("--comment-pr needs --repository OWNER/NAME (or $GITHUB_REPOSITORY)")
    return checked_split_options(
        device_package_prefix=args.device_package_prefix,
        overlay_root=args.overlay_root,
        wheel_type=args.wheel_type,
        databases=args.databases,
        output_format=args.output_format,
        compression=args.compression,
        compression_level=args.compression_level,
        jobs=args.jobs,
        device_requires_dist=args.device_requires_dist,
        variant_label=args.variant_label if args.generate_variant_wheel else None,
        extra_naming=args.extra_naming,
        host_installs=args.host_installs,
        deflate_level=args.deflate_level,
        verify_bundle_hash=args.verify_bundle_hash,
        verbose=args.verbose,
        trust_record=args.trust_record,
        verify_record=args.verify_record,
        kpack_layout=args.kpack_layout,
    )


def dry_run_from_args(args: argparse.Namespace) -> str:
    """The plan of the split these flags ask for, as text or JSON; nothing is written (a
    ``--tmp-dir`` this run had to create is removed again)."""
    from wheel_size.fileio import make_dirs, remove_dirs
    from wheel_size.split.apply import plan_only
    from wheel_size.split.dryrun import dry_run_json, plan_data, render_text

    options = _options(args)
    flags = [("--report-json", args.report_json), ("--report-md", args.report_md)]
    flags.append(("--comment-pr", args.comment_pr))
    for flag, value in flags:
        if value:
            raise InputError(f"{flag}: --dry-run writes and posts nothing; drop one of them")
    made_tmp = make_dirs(args.tmp_dir) if args.tmp_dir is not None else []
    try:
        plan = plan_only(args.input, args.output_dir, options, tmp_dir=args.tmp_dir)
    finally:
        remove_dirs(made_tmp)
    size = args.input.stat().st_size if args.input.is_file() else sum(m.size for m in plan.members)
    data = plan_data(plan, size)
    return dry_run_json(data) if args.format == "json" else render_text(data, args.verbose)

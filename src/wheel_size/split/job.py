"""One split as a library call: validate, split, write the reports, post the comment.

The CLI's flags and the Action's inputs both become a :class:`SplitRequest`; the comment is
posted through the callable the adapter gives (PyGithub stays in ``github/``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from wheel_size.errors import InputError
from wheel_size.split.plan import SplitOptions

if TYPE_CHECKING:
    from wheel_size.split.document import SplitReport

__all__ = ["SplitOutcome", "SplitRequest", "checked_split_options", "run_split_job"]


@dataclass(frozen=True)
class SplitRequest:
    input: Path
    output_dir: Path
    options: SplitOptions
    report_json: Path | None = None
    report_md: Path | None = None
    report_targets: tuple[str, ...] = ()
    tmp_dir: Path | None = None


@dataclass
class SplitOutcome:
    """What a split run produced, for the CLI and the container action."""

    report: SplitReport
    markdown: str
    outputs: list[Path]
    comment_url: str | None = None


def checked_split_options(
    *,
    device_package_prefix: str,
    overlay_root: str,
    wheel_type: str | None = None,
    databases: Sequence[str] | None = None,
    output_format: str = "wheel",
    compression: str = "zstd",
    compression_level: int = 3,
    jobs: int | str = 1,
    device_requires_dist: Sequence[str] = (),
    variant_label: str | None = None,
    extra_naming: str = "plain",
    host_installs: str = "extras",
    deflate_level: int = 6,
    verify_bundle_hash: bool = False,
    verbose: bool = False,
    trust_record: bool = False,
    verify_record: bool = False,
    kpack_layout: str = "per-processor",
) -> SplitOptions:
    """Every option checked (those that reach a file name or METADATA too), as options;
    ``variant_label`` None means no variant wheel."""
    from wheel_size.rocm.kpack_layout import LAYOUTS
    from wheel_size.split.databases import select_databases
    from wheel_size.split.metadata import check_requirement, check_variant_label
    from wheel_size.split.names import check_device_prefix

    if not 1 <= compression_level <= 22:
        raise InputError(f"--compression-level {compression_level}: must be 1..22")
    if not 0 <= deflate_level <= 9:
        raise InputError(f"--deflate-level {deflate_level}: must be 0..9")
    if trust_record and verify_record:
        raise InputError("--trust-record and --verify-record: choose one")
    auto = jobs == "auto"
    if auto:  # the cores; the split samples their load only if a pool could pay
        from wheel_size.cpus import usable_cpus

        jobs = usable_cpus()
    if not isinstance(jobs, int) or jobs < 1:
        raise InputError(f"--jobs {jobs}: must be at least 1")
    choices = {
        "--output-format": (output_format, ("wheel", "directory")),
        "--compression": (compression, ("zstd", "none")),
        "--extra-naming": (extra_naming, ("plain", "device")),
        "--kpack-layout": (kpack_layout, LAYOUTS),
        "--host-installs": (host_installs, ("extras", "all")),
    }
    for flag, (value, allowed) in choices.items():
        if value not in allowed:
            raise InputError(f"{flag} {value!r}: choose one of {', '.join(allowed)}")
    label = check_variant_label(variant_label) if variant_label is not None else None
    check_device_prefix(device_package_prefix)
    for requirement in device_requires_dist:
        check_requirement(requirement)
    return SplitOptions(
        device_package_prefix=device_package_prefix,
        overlay_root=overlay_root,
        databases=select_databases(wheel_type, databases),
        output_format=output_format,
        compression=compression,
        compression_level=compression_level,
        jobs=jobs,
        jobs_auto=auto,
        device_requires_dist=tuple(device_requires_dist),
        variant_label=label,
        extra_naming=extra_naming,
        host_installs=host_installs,
        deflate_level=deflate_level,
        verify_bundle_hash=verify_bundle_hash,
        verbose=verbose,
        record_check="none" if trust_record else "all" if verify_record else "inflated",
        kpack_layout=kpack_layout,
    )


def run_split_job(
    request: SplitRequest, post_comment: Callable[[SplitReport], str] | None = None
) -> SplitOutcome:
    """Split, write the reports, then post the report with ``post_comment`` when given.

    Report paths are checked to be writable before the split, and a report that still cannot
    be written removes the split's wheels again: a failure leaves no partial output.
    """
    from wheel_size.fileio import atomic_write_all, check_writable, make_dirs, remove_dirs
    from wheel_size.split.apply import remove_outputs, split_wheel
    from wheel_size.split.report import build_split_report, render_split_report, split_report_json

    for path in (request.report_json, request.report_md):
        if path is not None:
            check_writable(path)
    made_tmp = []
    if request.tmp_dir is not None:
        made_tmp = make_dirs(request.tmp_dir)  # passed on explicitly: os.environ stays as it was
    try:
        result = split_wheel(
            request.input, request.output_dir, request.options, tmp_dir=request.tmp_dir
        )
    except BaseException:
        remove_dirs(made_tmp)  # a tmp dir this run created goes again, if it is empty
        raise
    try:
        report = build_split_report(result, request.report_targets)
        markdown = render_split_report(report)
        files = [(request.report_json, split_report_json(report)), (request.report_md, markdown)]
        atomic_write_all([(path, text.encode()) for path, text in files if path is not None])
    except BaseException:
        remove_outputs(result)
        raise
    outcome = SplitOutcome(report, markdown, [w.path for w in result.wheels])
    if post_comment is not None:
        outcome.comment_url = post_comment(report)
    return outcome

"""The container Action's ``mode: split``: INPUT_* → ``wheel-size split`` per wheel → outputs,
job summary and one pull-request comment per wheel (updated in place on reruns)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from wheel_size.action.commands import workflow_command, write_outputs, write_step_summary
from wheel_size.action.inputs import (
    action_input,
    bool_input,
    parse_argv,
    repository,
    words,
    workspace_paths,
)
from wheel_size.errors import InputError
from wheel_size.fileio import make_dirs, path_inside

__all__ = ["SPLIT_OUTPUTS", "run_split", "split_argv"]

SPLIT_OUTPUTS = ("split-wheels", "split-report-path", "split-report-json-path")


def _inputs(env: Mapping[str, str], workspace: Path) -> list[Path]:
    if not action_input(env, "split-input"):
        raise InputError("input split-input is required in split mode: the wheel(s) to split")
    return workspace_paths(env, "split-input", workspace)


def split_argv(env: Mapping[str, str], wheel: Path, out: Path, report: Path) -> list[str]:
    """The ``wheel-size split`` command line for one wheel."""
    argv = ["split", "--input", str(wheel), "--output-dir", str(out)]

    def opt(flag: str, name: str) -> None:
        value = action_input(env, name)
        if value:
            argv.extend([flag, value])

    opt("--device-package-prefix", "device-package-prefix")
    opt("--overlay-root", "overlay-root")
    opt("--wheel-type", "wheel-type")
    databases = words(action_input(env, "databases"))
    if databases:
        argv += ["--databases", *databases]
    opt("--output-format", "output-format")
    opt("--compression", "compression")
    opt("--compression-level", "compression-level")
    opt("--jobs", "jobs")
    opt("--extra-naming", "extra-naming")
    opt("--host-installs", "host-installs")
    requires = [
        r.strip() for r in action_input(env, "device-requires-dist").splitlines() if r.strip()
    ]
    if requires:
        argv += ["--device-requires-dist", *requires]
    if bool_input(env, "generate-variant-wheel"):
        argv += ["--generate-variant-wheel"]
        opt("--variant-label", "variant-label")
    argv += ["--report-json", str(report.with_suffix(".json")), "--report-md", str(report)]
    pr = action_input(env, "pr-number")
    if pr and bool_input(env, "split-comment", default=True):
        argv += ["--comment-pr", pr, "--repository", repository(env), "--comment-key", wheel.stem]
    return argv


def run_split(env: Mapping[str, str], out: TextIO, workspace: Path) -> int:
    """Split every wheel ``split-input`` names; raise WheelSizeError on bad input."""
    from wheel_size.cli.main import build_parser
    from wheel_size.cli.split import split_from_args
    from wheel_size.render import render

    wheels = _inputs(env, workspace)
    out_root = workspace / (action_input(env, "split-output-dir") or "wheel-size-split")
    if not action_input(env, "jobs"):
        env = {**env, "INPUT_JOBS": str(len(os.sched_getaffinity(0)) or 1)}
    parser = build_parser()
    written: list[str] = []
    reports: list[Path] = []
    for wheel in wheels:
        name = wheel.name.removesuffix(".whl")
        try:  # a per-input folder and report named by the wheel stay under out_root
            out_dir = path_inside(out_root, name)
            report = path_inside(out_root, f"{name}.split.md")
        except InputError:
            raise InputError(f"{wheel}: its name cannot name an output folder") from None
        make_dirs(out_root)
        argv = split_argv(env, wheel, out_dir, report)
        args = parse_argv(argv, parser)
        outcome = split_from_args(args)
        written += [str(p) for p in outcome.outputs]
        reports.append(report)
        note = render("action-summary-truncated.md.j2", path=report.name)
        write_step_summary(env.get("GITHUB_STEP_SUMMARY"), outcome.markdown, note)
        for warning in outcome.report["warnings"]:
            workflow_command(out, "warning", warning, {"title": "wheel-size split"})
        out.write(f"wheel-size: {wheel.name}: {len(outcome.outputs)} wheel(s) written\n")
        if outcome.comment_url:
            out.write(f"wheel-size: savings posted on {outcome.comment_url}\n")
    write_outputs(
        env.get("GITHUB_OUTPUT"),
        {
            "split-wheels": json.dumps(written),
            "split-report-path": str(reports[-1]),
            "split-report-json-path": str(reports[-1].with_suffix(".json")),
        },
    )
    return 0

"""The container Action's ``mode: split``: INPUT_* → ``wheel-size split`` per wheel → outputs,
job summary and one pull-request comment per wheel (updated in place on reruns)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from wheel_size.action.commands import workflow_command, write_outputs, write_step_summary
from wheel_size.action.inputs import (
    action_input,
    bool_input,
    bot_login_input,
    repository,
    words,
    workspace_paths,
)
from wheel_size.action.workspace import Workspace
from wheel_size.errors import InputError
from wheel_size.fileio import make_dirs, path_inside
from wheel_size.split.jobs import auto_jobs
from wheel_size.split.plan import SplitOptions

__all__ = ["SPLIT_OUTPUTS", "run_split", "split_options"]

SPLIT_OUTPUTS = ("split-wheels", "split-report-path", "split-report-json-path")


def _inputs(env: Mapping[str, str], workspace: Path) -> list[Path]:
    if not action_input(env, "split-input"):
        raise InputError("input split-input is required in split mode: the wheel(s) to split")
    return workspace_paths(env, "split-input", workspace)


def _integer(env: Mapping[str, str], name: str, default: int) -> int:
    text = action_input(env, name)
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise InputError(f"input {name} must be a whole number, not {text!r}") from None


def split_options(env: Mapping[str, str]) -> SplitOptions:
    """The split options the inputs describe, checked as the CLI's flags are."""
    from wheel_size.split.job import checked_split_options

    jobs = _integer(env, "jobs", 0) or auto_jobs()
    variant = bool_input(env, "generate-variant-wheel")
    return checked_split_options(
        device_package_prefix=action_input(env, "device-package-prefix") or "amd-torch-device",
        overlay_root=action_input(env, "overlay-root") or "torch/",
        wheel_type=action_input(env, "wheel-type") or None,
        databases=words(action_input(env, "databases")) or None,
        output_format=action_input(env, "output-format") or "wheel",
        compression=action_input(env, "compression") or "zstd",
        compression_level=_integer(env, "compression-level", 3),
        jobs=jobs,
        device_requires_dist=[
            r.strip() for r in action_input(env, "device-requires-dist").splitlines() if r.strip()
        ],
        variant_label=(action_input(env, "variant-label") or "variant") if variant else None,
        extra_naming=action_input(env, "extra-naming") or "plain",
        host_installs=action_input(env, "host-installs") or "extras",
    )


def run_split(env: Mapping[str, str], out: TextIO, workspace: Path) -> int:
    """Split every wheel ``split-input`` names; raise WheelSizeError on bad input."""
    from wheel_size.render import render
    from wheel_size.split.job import SplitRequest, run_split_job

    wheels = _inputs(env, workspace)
    place = Workspace.at(workspace, env)
    out_root = place.output(
        "split-output-dir",
        action_input(env, "split-output-dir") or "wheel-size-split",
        directory=True,
    )
    options = split_options(env)
    pr = action_input(env, "pr-number")
    comment = bool(pr) and bool_input(env, "split-comment", default=True)
    if comment and not pr.isdigit():
        raise InputError(f"input pr-number must be a pull request number, not {pr!r}")
    if comment and not repository(env):
        raise InputError("input repository is empty and GITHUB_REPOSITORY is not set")
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
        request = SplitRequest(
            wheel, out_dir, options, report_json=report.with_suffix(".json"), report_md=report
        )
        post = None
        if comment:
            from functools import partial

            from wheel_size.github.port import PyGithubPort
            from wheel_size.split.comment import split_commenter

            post = split_commenter(
                partial(PyGithubPort.connected, bot_login=bot_login_input(env)),
                repository(env),
                int(pr),
                wheel.stem,
            )
        outcome = run_split_job(request, post)
        place.hand_over(out_dir, report, report.with_suffix(".json"))
        written += [place.relative(p) for p in outcome.outputs]
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
            "split-report-path": place.relative(reports[-1]),
            "split-report-json-path": place.relative(reports[-1].with_suffix(".json")),
        },
    )
    return 0

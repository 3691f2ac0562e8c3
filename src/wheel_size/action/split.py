"""The container Action's ``mode: split``: INPUT_* → ``wheel-size split`` per wheel → outputs,
job summary and one pull-request comment per wheel (updated in place on reruns)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from wheel_size.action.commands import workflow_command, write_outputs, write_step_summary
from wheel_size.action.inputs import bot_login_input, repository, workspace_paths
from wheel_size.action.tables.split import SPLIT
from wheel_size.action.workspace import Workspace
from wheel_size.errors import InputError
from wheel_size.fileio import make_dirs, path_inside
from wheel_size.split.jobs import auto_jobs
from wheel_size.split.plan import SplitOptions

__all__ = ["SPLIT_OUTPUTS", "run_split", "split_options"]

SPLIT_OUTPUTS = ("split-wheels", "split-report-path", "split-report-json-path")


def _inputs(env: Mapping[str, str], workspace: Path) -> list[Path]:
    if not SPLIT.read(env).text("split-input"):
        raise InputError("input split-input is required in split mode: the wheel(s) to split")
    return workspace_paths(env, "split-input", workspace)


def split_options(env: Mapping[str, str]) -> SplitOptions:
    """The split options the inputs describe, checked as the CLI's flags are."""
    from wheel_size.split.job import checked_split_options

    read = SPLIT.read(env)
    read.check_all()  # every input refused by its kind, before anything runs
    return checked_split_options(
        device_package_prefix=read.text("device-package-prefix"),
        overlay_root=read.text("overlay-root"),
        wheel_type=read.optional_text("wheel-type"),
        databases=read.items("databases") or None,
        output_format=read.text("output-format"),
        compression=read.text("compression"),
        compression_level=read.integer("compression-level"),
        jobs=read.optional_integer("jobs") or auto_jobs(),
        device_requires_dist=read.items("device-requires-dist"),
        variant_label=read.text("variant-label") if read.flag("generate-variant-wheel") else None,
        extra_naming=read.text("extra-naming"),
        host_installs=read.text("host-installs"),
    )


def run_split(env: Mapping[str, str], out: TextIO, workspace: Path) -> int:
    """Split every wheel ``split-input`` names; raise WheelSizeError on bad input."""
    from wheel_size.render import render
    from wheel_size.split.job import SplitRequest, run_split_job

    wheels = _inputs(env, workspace)
    place = Workspace.at(workspace, env)
    read = SPLIT.read(env)
    out_root = place.output("split-output-dir", read.text("split-output-dir"), directory=True)
    options = split_options(env)
    pr = read.text("pr-number")
    comment = bool(pr) and read.flag("split-comment")
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

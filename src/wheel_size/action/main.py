"""Entry point of the container Action: INPUT_* → ``wheel-size track`` → outputs, summary.

The runner passes every input as ``INPUT_<NAME>`` with hyphens kept (``INPUT_GITHUB-TOKEN``),
mounts the workspace at /github/workspace (owned by another user, so git needs it marked
safe) and reads outputs and the job summary from the files GITHUB_OUTPUT and
GITHUB_STEP_SUMMARY name.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import TextIO

from wheel_size.action.commands import (
    add_mask,
    workflow_command,
    write_outputs,
    write_step_summary,
)
from wheel_size.action.inputs import action_input, bool_input, parse_argv, repository
from wheel_size.errors import InputError, WheelSizeError

__all__ = ["action_argv", "main"]


def action_argv(env: Mapping[str, str]) -> list[str]:
    """The ``wheel-size track`` command line the inputs describe."""
    argv = ["track"]

    def opt(flag: str, name: str) -> None:
        value = action_input(env, name)
        if value:
            argv.extend([flag, value])

    repo = repository(env)
    if repo:
        argv += ["--repo", repo]
    if not action_input(env, "workflow"):
        raise InputError("input workflow is required: the nightly build workflow's id or file")
    opt("--workflow", "workflow")
    argv += ["--branch", action_input(env, "branch")]
    for variant in action_input(env, "variants").replace("\n", ",").split(","):
        if variant.strip():
            argv += ["--variant", variant.strip()]
    opt("--python", "python")
    opt("--artifact-pattern", "artifact-pattern")
    opt("--threshold-mb", "threshold-mb")
    opt("--threshold-pct", "threshold-pct")
    opt("--rollback-days", "rollback-days")
    opt("--report-days", "report-days")
    opt("--date", "date")
    opt("--from", "from")
    opt("--to", "to")
    for month in action_input(env, "months").replace("\n", ",").split(","):
        if month.strip():
            argv += ["--month", month.strip()]
    history = action_input(env, "history-dir")
    if history:
        argv += ["--history", history]
    else:
        opt("--data-branch", "data-branch")
        opt("--data-remote", "data-remote")
        opt("--git-timeout", "git-timeout")
    if bool_input(env, "dashboard"):
        argv.append("--dashboard")
        opt("--dashboard-days", "dashboard-days")
    records = _records(env)
    if records:
        argv += ["--records", *records]
    if bool_input(env, "create-issues"):
        argv.append("--create-issues")
        opt("--issue-labels", "issue-labels")
        opt("--accepted-label", "accepted-label")
        opt("--creep-mb", "creep-mb")
        opt("--creep-days", "creep-days")
        if bool_input(env, "close-on-rollback"):
            argv.append("--close-on-rollback")
        if action_input(env, "evidence"):
            argv.append("--evidence" if bool_input(env, "evidence") else "--no-evidence")
        opt("--evidence-max-download-mb", "evidence-max-download-mb")
    return argv


def _records(env: Mapping[str, str]) -> list[str]:
    """Record files (``collect --out``) named by the ``records`` input: paths or glob
    patterns, one per line or space-separated, relative to the workspace."""
    workspace = Path(env.get("GITHUB_WORKSPACE") or ".")
    found: list[str] = []
    for pattern in action_input(env, "records").split():
        path = Path(pattern) if Path(pattern).is_absolute() else workspace / pattern
        magic = [i for i, part in enumerate(path.parts) if any(c in part for c in "*?[")]
        if magic:
            base = Path(*path.parts[: magic[0]])
            matches = sorted(base.glob(str(Path(*path.parts[magic[0] :]))))
        else:
            matches = [path]
        if not matches or not all(m.is_file() for m in matches):
            raise InputError(f"input records: no record file matches {pattern!r}")
        found += [str(m) for m in matches if str(m) not in found]
    return found


def _mark_safe(workspace: str) -> None:
    """Git ≥ 2.35.2 refuses a repository owned by another user (the runner's uid 1001)."""
    # no git: only a directory store can work, and the store says so if not
    with contextlib.suppress(FileNotFoundError):
        subprocess.run(
            ["git", "config", "--global", "--add", "safe.directory", workspace],
            check=False,
            capture_output=True,
        )


def main(environ: MutableMapping[str, str] | None = None, stdout: TextIO | None = None) -> int:
    env = os.environ if environ is None else environ
    out = stdout or sys.stdout
    token = action_input(env, "github-token") or env.get("GITHUB_TOKEN", "")
    add_mask(out, token)
    workspace = env.get("GITHUB_WORKSPACE") or "/github/workspace"
    _mark_safe(workspace)
    if token:
        env["GITHUB_TOKEN"] = token  # where the GitHub client and the data branch read it
    mode = action_input(env, "mode") or "track"
    if mode in ("split", "audit", "check"):
        from wheel_size.action.audit import run_audit
        from wheel_size.action.check import run_check_mode
        from wheel_size.action.split import run_split

        runner = {"split": run_split, "audit": run_audit, "check": run_check_mode}[mode]
        try:
            return runner(env, out, Path(workspace))
        except WheelSizeError as exc:
            workflow_command(out, "error", str(exc), {"title": "wheel-size"})
            return exc.exit_code
    outputs = {"regression": "false", "jump-count": "0", "jumps": "[]"}
    try:
        if mode != "track":
            raise InputError(f"input mode must be track, split, audit or check, not {mode!r}")
        from wheel_size.cli.track import track_from_args
        from wheel_size.fileio import atomic_write
        from wheel_size.render import render

        fail_on_regression = bool_input(env, "fail-on-regression")
        args = parse_argv(action_argv(env))
        result = track_from_args(args)

        report_path = Path(workspace, action_input(env, "report-path") or "wheel-size-report.md")
        json_path = report_path.with_suffix(".json")
        atomic_write(report_path, result.markdown.encode())
        atomic_write(json_path, (json.dumps(result.to_dict(), indent=2) + "\n").encode())
        note = render("action-summary-truncated.md.j2", path=report_path.name)
        write_step_summary(env.get("GITHUB_STEP_SUMMARY"), result.markdown, note)
        for j in result.jumps:
            workflow_command(
                out,
                "warning",
                f"{j.artifact}: {j.delta_mb:+.1f} MB on {j.date} "
                f"({j.prev_size_mb:.1f} → {j.size_mb:.1f} MB, run {j.run_id})",
                {"title": "Wheel size jump"},
            )
        outputs = {
            "regression": "true" if result.regression else "false",
            "jump-count": str(len(result.jumps)),
            "jumps": json.dumps([j.to_dict() for j in result.jumps]),
            "report-path": str(report_path),
            "report-json-path": str(json_path),
            "collected-runs": str(len(result.collected)),
            "commit": result.write.commit or "",
        }
        if result.issues is not None:
            from wheel_size.regressions.track_step import issue_outputs

            issues = issue_outputs(result.issues)
            outputs["issues-created"] = issues.created
            outputs["issues-updated"] = issues.updated
        write_outputs(env.get("GITHUB_OUTPUT"), outputs)
        if result.issue_error is not None:
            # The history and the report are written; the issue step is what failed.
            workflow_command(out, "error", str(result.issue_error), {"title": "wheel-size"})
            return result.issue_error.exit_code
        out.write(
            f"wheel-size: {len(result.collected)} run(s) collected, "
            f"{len(result.write.changed)} file(s) stored, {len(result.jumps)} jump(s)\n"
        )
        if fail_on_regression and result.regression:
            workflow_command(out, "error", "wheel size grew past the threshold")
            return 1
        return 0
    except WheelSizeError as exc:
        workflow_command(out, "error", str(exc), {"title": "wheel-size"})
        write_outputs(env.get("GITHUB_OUTPUT"), outputs)
        return exc.exit_code

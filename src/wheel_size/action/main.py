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
from typing import TYPE_CHECKING, TextIO

from wheel_size.action.commands import (
    add_mask,
    workflow_command,
    write_outputs,
    write_step_summary,
)
from wheel_size.action.inputs import action_input, bool_input, parse_argv, repository
from wheel_size.cli.skipped import report_skipped, skipped_markdown
from wheel_size.crash import internal_error
from wheel_size.errors import InputError, WheelSizeError
from wheel_size.history.recordfile import SkippedRecord
from wheel_size.render.safe_markdown import neutralise

if TYPE_CHECKING:
    from wheel_size.track import TrackResult

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
        opt("--evidence-memory-mb", "evidence-memory-mb")
        opt("--evidence-time-budget", "evidence-time-budget")
        if action_input(env, "build-evidence"):
            enabled = bool_input(env, "build-evidence")
            argv.append("--build-evidence" if enabled else "--no-build-evidence")
        opt("--build-evidence-workflows", "build-evidence-workflows")
        opt("--build-evidence-log-pattern", "build-evidence-log-pattern")
        opt("--log-url-template", "log-url-template")
        opt("--commit-url-template", "commit-url-template")
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
    """Run the Action; every failure ends as one ``::error::`` and exit 2 (1 for
    fail-on-regression), with the outputs and step summary written as far as they got.
    Unexpected exceptions (MemoryError, RecursionError, bugs) included: no traceback unless
    ``WHEEL_SIZE_DEBUG=1``."""
    env = os.environ if environ is None else environ
    out = stdout or sys.stdout
    try:
        return _main(env, out)
    except Exception as exc:  # before a run could keep track of its outputs
        error = exc if isinstance(exc, WheelSizeError) else internal_error(exc)
        workflow_command(out, "error", str(error), {"title": "wheel-size"})
        with contextlib.suppress(Exception):
            write_outputs(env.get("GITHUB_OUTPUT"), dict(_DEFAULT_OUTPUTS))
        return error.exit_code


_DEFAULT_OUTPUTS = {"regression": "false", "jump-count": "0", "jumps": "[]"}


def _main(env: MutableMapping[str, str], out: TextIO) -> int:
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
        except Exception as exc:
            error = exc if isinstance(exc, WheelSizeError) else internal_error(exc)
            workflow_command(out, "error", str(error), {"title": "wheel-size"})
            return error.exit_code
    run = _TrackRun(env, out, Path(workspace))
    try:
        return run.track(mode)
    except Exception as exc:
        return run.fail(exc if isinstance(exc, WheelSizeError) else internal_error(exc))


class _TrackRun:
    """One ``track`` run of the Action, keeping what is already known (outputs, whether the
    summary is written) so that a failure at any point still reports it."""

    def __init__(self, env: MutableMapping[str, str], out: TextIO, workspace: Path) -> None:
        self.env = env
        self.out = out
        self.workspace = workspace
        self.outputs = dict(_DEFAULT_OUTPUTS)
        self.result: TrackResult | None = None
        self.summary_written = False

    def track(self, mode: str) -> int:
        env, out = self.env, self.out
        if mode != "track":
            raise InputError(f"input mode must be track, split, audit or check, not {mode!r}")
        from wheel_size.cli.track import track_from_args
        from wheel_size.fileio import atomic_write

        fail_on_regression = bool_input(env, "fail-on-regression")
        args = parse_argv(action_argv(env))
        result = self.result = track_from_args(args)
        # Stored: from here on every output is known, whatever fails next.
        self.outputs.update(
            {
                "regression": "true" if result.regression else "false",
                "jump-count": str(len(result.jumps)),
                "jumps": json.dumps([j.to_dict() for j in result.jumps]),
                "collected-runs": str(len(result.collected)),
                "commit": result.write.commit or "",
            }
        )
        if result.issues is not None:
            from wheel_size.regressions.track_step import issue_outputs

            issues = issue_outputs(result.issues)
            self.outputs["issues-created"] = issues.created
            self.outputs["issues-updated"] = issues.updated
        skipped = self._warn_skipped()
        markdown = result.markdown + (("\n" + skipped_markdown(skipped)) if skipped else "")
        report_path = self.workspace / (action_input(env, "report-path") or "wheel-size-report.md")
        json_path = report_path.with_suffix(".json")
        self._summary(markdown, report_path.name)
        atomic_write(report_path, markdown.encode())
        atomic_write(json_path, (json.dumps(result.to_dict(), indent=2) + "\n").encode())
        self.outputs["report-path"] = str(report_path)
        self.outputs["report-json-path"] = str(json_path)
        for j in result.jumps:
            workflow_command(
                out,
                "warning",
                f"{j.artifact}: {j.delta_mb:+.1f} MB on {j.date} "
                f"({j.prev_size_mb:.1f} → {j.size_mb:.1f} MB, run {j.run_id})",
                {"title": "Wheel size jump"},
            )
        write_outputs(env.get("GITHUB_OUTPUT"), self.outputs)
        self.outputs = {}  # written
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

    def _warn_skipped(self) -> list[SkippedRecord]:
        return report_skipped(sys.stderr, annotations=self.out)

    def _summary(self, markdown: str, report_name: str) -> None:
        from wheel_size.render import render

        note = render("action-summary-truncated.md.j2", path=report_name)
        self.summary_written = True  # once tried, never again (no half-written duplicate)
        write_step_summary(self.env.get("GITHUB_STEP_SUMMARY"), markdown, note)

    def fail(self, error: WheelSizeError) -> int:
        """Report ``error`` as the run's one ``::error::`` after writing what is known."""
        skipped = self._warn_skipped()
        workflow_command(self.out, "error", str(error), {"title": "wheel-size"})
        # Each write on its own: a full disk for one must not cost the others.
        with contextlib.suppress(Exception):
            if self.outputs:
                write_outputs(self.env.get("GITHUB_OUTPUT"), self.outputs)
        with contextlib.suppress(Exception):
            if not self.summary_written:
                done = self.result.markdown if self.result is not None else ""
                failed = f"\n\n**wheel-size failed:** {neutralise(str(error))}\n"
                extra = ("\n" + skipped_markdown(skipped)) if skipped else ""
                self._summary(done + failed + extra, "wheel-size-report.md")
        return error.exit_code

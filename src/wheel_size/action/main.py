"""Entry point of the container Action: INPUT_* → the nightly job → outputs, summary.

The runner passes every input as ``INPUT_<NAME>`` with hyphens kept (``INPUT_GITHUB-TOKEN``),
mounts the workspace at /github/workspace (owned by another user, so git needs it marked
safe) and reads outputs and the job summary from the files GITHUB_OUTPUT and
GITHUB_STEP_SUMMARY name. ``mode: track`` turns the inputs into the library's options
(:mod:`wheel_size.action.track_inputs`) and calls :func:`wheel_size.nightly.run_nightly`,
as ``wheel-size track`` does with its flags.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import TextIO

from wheel_size.action.commands import add_mask, workflow_command, write_outputs
from wheel_size.action.inputs import action_input, repository
from wheel_size.action.track_outputs import DEFAULT_OUTPUTS, TrackPublisher
from wheel_size.crash import internal_error
from wheel_size.errors import InputError, WheelSizeError

__all__ = ["main"]


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
            write_outputs(env.get("GITHUB_OUTPUT"), dict(DEFAULT_OUTPUTS))
        return error.exit_code


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
        self.publisher = TrackPublisher(env, out, workspace, repository=repository(env))

    def track(self, mode: str) -> int:
        env, out = self.env, self.out
        if mode != "track":
            raise InputError(f"input mode must be track, split, audit or check, not {mode!r}")
        from wheel_size.action.track_inputs import track_inputs
        from wheel_size.github.client import connect
        from wheel_size.github.port import PyGithubPort
        from wheel_size.history.location import open_store
        from wheel_size.nightly import run_nightly

        inputs = track_inputs(env, self.workspace)
        options = inputs.nightly
        self.publisher.repository = options.track.source.repository
        self.publisher.issues_repo = options.issues_repo
        token = env.get("GITHUB_TOKEN") or None
        # Fails before anything is stored (a missing token is known now, not after the write).
        github = PyGithubPort(connect(token=token, environ=env))
        with open_store(
            inputs.store, repository=options.track.source.repository, token=token, environ=env
        ) as store:
            result = run_nightly(store, options, github)
        # Stored: from here on every output is known, whatever fails next.
        self.publisher.stored(result)
        for warning in result.warnings:
            print(f"wheel-size: warning: {warning}", file=sys.stderr)
        skipped = self._skipped()
        markdown = result.markdown + (("\n" + skipped) if skipped else "")
        report_path = inputs.report_path
        self.publisher.summary(report_name=report_path.name, skipped=skipped)
        self.publisher.report_files(markdown, report_path)
        self.publisher.annotate()
        self.publisher.flush()
        if result.issue_error is not None:
            # The history and the report are written; the issue step is what failed.
            workflow_command(out, "error", str(result.issue_error), {"title": "wheel-size"})
            return result.issue_error.exit_code
        out.write(
            f"wheel-size: {len(result.collected)} run(s) collected, "
            f"{len(result.write.changed)} file(s) stored, {len(result.jumps)} jump(s)\n"
        )
        if inputs.fail_on_regression and result.regression:
            workflow_command(out, "error", "wheel size grew past the threshold")
            return 1
        if inputs.fail_on_regression and result.ceiling_failed:
            workflow_command(out, "error", "a wheel is over its size limit (not acknowledged)")
            return 1
        return 0

    def _skipped(self) -> str:
        """Warn about skipped stored records; their step-summary section (or "")."""
        from wheel_size.action.skipped import report_skipped, skipped_markdown

        skipped = report_skipped(sys.stderr, annotations=self.out)
        return skipped_markdown(skipped) if skipped else ""

    def fail(self, error: WheelSizeError) -> int:
        """Report ``error`` as the run's one ``::error::`` after writing what is known."""
        skipped = ""
        with contextlib.suppress(Exception):
            skipped = self._skipped()
        return self.publisher.fail(error, skipped=skipped)

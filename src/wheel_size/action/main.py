"""Entry point of the container actions: INPUT_* → the job → outputs, summary.

The runner passes every input as ``INPUT_<NAME>`` with hyphens kept (``INPUT_GITHUB-TOKEN``),
the action's ``runs.args`` (``check``, ``split``, ``audit``; none at the root) as arguments,
mounts the workspace at /github/workspace (owned by another user: see
:mod:`wheel_size.action.workspace`) and reads outputs and the job summary from the files
GITHUB_OUTPUT and GITHUB_STEP_SUMMARY name. The nightly job turns the inputs into the
library's options (:mod:`wheel_size.action.track_inputs`) and calls
:func:`wheel_size.nightly.run_nightly`, as ``wheel-size track`` does with its flags.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sys
from collections.abc import Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from wheel_size.action.catalog import ACTIONS, DEPRECATED_MODES, ActionSpec, check_inputs, uses_line
from wheel_size.action.commands import (
    add_mask,
    workflow_command,
    write_outputs,
    write_step_summary,
)
from wheel_size.action.inputs import action_input, repository
from wheel_size.action.track_outputs import DEFAULT_OUTPUTS, TrackPublisher
from wheel_size.action.workspace import Workspace
from wheel_size.action.written import local_remote, written_paths
from wheel_size.crash import internal_error
from wheel_size.errors import InputError, WheelSizeError
from wheel_size.trust import use_system_trust_store

if TYPE_CHECKING:
    from wheel_size.action.bisect import NightlyBisect
    from wheel_size.bisect.keep import Keeper
    from wheel_size.history.store import HistoryStore
    from wheel_size.nightly import NightlyOptions
    from wheel_size.regressions.builds.attach import Bisections
    from wheel_size.track import TrackResult

__all__ = ["INTERRUPTED", "main"]

INTERRUPTED = "interrupted (SIGINT): the run was cancelled; what it wrote so far is complete"


def main(
    environ: MutableMapping[str, str] | None = None,
    stdout: TextIO | None = None,
    argv: Sequence[str] = (),
) -> int:
    """Run the action named by ``argv`` (``check``, ``split``, ``audit``; none for the
    nightly job at the root); every failure ends as one ``::error::`` and exit 2 (1 for
    fail-on-regression and a failed check), with the outputs and step summary written as
    far as they got. Unexpected exceptions (MemoryError, RecursionError, bugs) included: no
    traceback unless ``WHEEL_SIZE_DEBUG=1``."""
    env = os.environ if environ is None else environ
    out = stdout or sys.stdout
    try:
        return _main(env, out, argv[0] if argv else "track")
    except KeyboardInterrupt:  # a cancelled job (SIGINT): one line, the shell's 130
        with contextlib.suppress(Exception):
            workflow_command(out, "error", INTERRUPTED, {"title": "wheel-size"})
            out.flush()
        return 130
    except Exception as exc:  # before a run could keep track of its outputs
        error = exc if isinstance(exc, WheelSizeError) else internal_error(exc)
        workflow_command(out, "error", str(error), {"title": "wheel-size"})
        if not argv:  # the nightly action's outputs say "nothing happened"
            with contextlib.suppress(Exception):
                write_outputs(env.get("GITHUB_OUTPUT"), dict(DEFAULT_OUTPUTS))
        with contextlib.suppress(Exception):
            _failure_summary(env, str(error))
        return error.exit_code


def _failure_summary(env: Mapping[str, str], message: str) -> None:
    """The step summary of a run that failed before it had a report of its own."""
    from wheel_size.render import render

    text = render("action-failure-summary.md.j2", message=message)
    write_step_summary(env.get("GITHUB_STEP_SUMMARY"), text, "")


def _resolve(env: Mapping[str, str], out: TextIO, name: str) -> tuple[ActionSpec, str]:
    """The action the container runs and its job; the root action's deprecated ``mode:``
    naming another action's job stops with one line naming that action."""
    spec = ACTIONS.get(name)
    if spec is None:
        raise InputError(f"unknown action {name!r}: the image runs track, check, split or audit")
    if spec.name != "track":
        return spec, spec.name
    mode = spec.read(env).text("mode") or "track"  # one of the choices its table declares
    if mode not in DEPRECATED_MODES:
        return spec, "track"
    # It used to run the job with the root action's defaults, not the sub-action's (a
    # split of 12 wheels instead of 17, no comment, track's report overwritten): a result
    # that differs quietly is worse than one line that names the fix.
    raise InputError(
        f"input mode: {mode} is no longer run by this action (its defaults differ from the "
        f"{mode} action's): use `uses: {uses_line(ACTIONS[mode], env)}` with the same inputs"
    )


def _main(env: MutableMapping[str, str], out: TextIO, name: str) -> int:
    token = action_input(env, "github-token") or env.get("GITHUB_TOKEN", "")
    add_mask(out, token)
    spec, job = _resolve(env, out, name)
    allowed = spec.inputs | ACTIONS[job].inputs
    check_inputs(env, allowed, spec)
    use_system_trust_store(env)
    workspace = Workspace.of(env)
    previous_gitconfig = env.get("GIT_CONFIG_GLOBAL")
    gitconfig = workspace.trust_for_git(env, *local_remote(env, workspace))
    if token:
        env["GITHUB_TOKEN"] = token  # where the GitHub client and the data branch read it
    try:
        return _run(env, out, job, workspace)
    finally:
        workspace.hand_over(*written_paths(job, env, workspace))
        gitconfig.unlink(missing_ok=True)
        if previous_gitconfig is None:
            env.pop("GIT_CONFIG_GLOBAL", None)
        else:
            env["GIT_CONFIG_GLOBAL"] = previous_gitconfig


def _run(env: MutableMapping[str, str], out: TextIO, job: str, workspace: Workspace) -> int:
    if job in ("split", "audit", "check"):
        from wheel_size.action.audit import run_audit_mode
        from wheel_size.action.check import run_check_mode
        from wheel_size.action.split import run_split

        runner = {"split": run_split, "audit": run_audit_mode, "check": run_check_mode}[job]
        try:
            return runner(env, out, workspace.root)
        except Exception as exc:
            error = exc if isinstance(exc, WheelSizeError) else internal_error(exc)
            workflow_command(out, "error", str(error), {"title": "wheel-size"})
            with contextlib.suppress(Exception):
                _failure_summary(env, str(error))
            return error.exit_code
    run = _TrackRun(env, out, workspace.root)
    try:
        return run.track()
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

    def track(self) -> int:
        env, out = self.env, self.out
        from wheel_size.action.track_inputs import track_inputs
        from wheel_size.github.client import connect
        from wheel_size.github.port import PyGithubPort
        from wheel_size.history.location import open_store
        from wheel_size.nightly import run_nightly
        from wheel_size.nightly.run import refresh_issues

        inputs = track_inputs(env, self.workspace)
        options = inputs.nightly
        bisect = self._bisect_inputs()  # refused now, before anything is stored
        self.publisher.repository = options.track.source.repository
        self.publisher.issues_repo = options.issues_repo
        token = env.get("GITHUB_TOKEN") or None
        # Fails before anything is stored (a missing token is known now, not after the write).
        github = PyGithubPort(connect(token=token, environ=env))
        with open_store(
            inputs.store, repository=options.track.source.repository, token=token, environ=env
        ) as store:
            keeper, bisections = self._keeper(bisect, options, store)
            result = run_nightly(store, options, github, bisections)
            moved: list[dt.date] = []
            bisect_error = self._bisect(bisect, options, result, github, keeper, moved)
            if moved and bisections is not None:  # the issues' verdicts read the bisections
                refresh_issues(store, options, github, result, sorted(set(moved)), bisections)
        # Stored: from here on every output is known, whatever fails next.
        self.publisher.stored(result)
        for warning in result.warnings:
            print(f"wheel-size: warning: {warning}", file=sys.stderr)
        skipped = self._skipped()
        from wheel_size.nightly.summary import limits_markdown

        markdown = result.markdown + limits_markdown(result)
        markdown += ("\n" + skipped) if skipped else ""
        report_path = inputs.report_path
        self.publisher.summary(report_name=report_path.name, skipped=skipped)
        self.publisher.report_files(markdown, report_path)
        self.publisher.annotate()
        self.publisher.flush()
        if bisect_error is not None:  # the night is stored and published; said after it
            workflow_command(out, "error", str(bisect_error), {"title": "wheel-size"})
            return bisect_error.exit_code
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

    def _bisect_inputs(self) -> NightlyBisect | None:
        from wheel_size.action.bisect import bisect_inputs

        where = ACTIONS["track"].read(self.env).text("bisect-state")
        workspace = Workspace.at(self.workspace)
        state_dir = workspace.output("bisect-state", where, directory=True) if where else None
        return bisect_inputs(self.env, state_dir)

    def _keeper(
        self, bisect: NightlyBisect | None, options: NightlyOptions, store: HistoryStore
    ) -> tuple[Keeper | None, Bisections | None]:
        """Where the bisections are kept, and the reader the issues use to show them."""
        if bisect is None:
            return None, None
        from wheel_size.action.bisect import bisection_reader
        from wheel_size.bisect.keep import DirectoryKeeper, StoreKeeper

        keeper: Keeper = (
            StoreKeeper(store) if bisect.state_dir is None else DirectoryKeeper(bisect.state_dir)
        )
        track = options.track
        reader = bisection_reader(
            bisect, keeper, repo_name=track.source.repository,
            workflow=str(track.source.workflow), naming=track.naming,
        )  # fmt: skip
        return keeper, reader

    def _bisect(
        self,
        bisect: NightlyBisect | None,
        options: NightlyOptions,
        result: TrackResult,
        github: Any,
        keeper: Keeper | None,
        moved: list[dt.date],
    ) -> WheelSizeError | None:
        """Bisect the night's jumps with builds (``bisect-*`` inputs), once the night is
        stored; what fails is returned, to be said after the rest is published."""
        if bisect is None or keeper is None:
            return None
        from wheel_size.action.bisect import run_bisect_step

        track = options.track
        try:
            run_bisect_step(
                bisect,
                keeper,
                github=github,
                repo_name=track.source.repository,
                workflow=str(track.source.workflow),
                naming=track.naming,
                thresholds=track.thresholds,
                jumps=[(j.variant, j.date.isoformat()) for j in result.jumps],
                series=result.series,
                issue_numbers=result.issues.events if result.issues is not None else {},
                out=self.out,
                moved=moved,
            )
        except WheelSizeError as exc:
            return exc
        return None

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

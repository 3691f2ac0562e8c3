"""The container Action's ``mode: check``: a pull request's wheels against the newest nightly,
one sticky comment, outputs and the job summary; the step fails only over a budget."""

from __future__ import annotations

import json
import tempfile
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

__all__ = ["CHECK_OUTPUTS", "check_argv", "run_check_mode"]

CHECK_OUTPUTS = ("check-failed", "check-report-path", "check-json-path", "check-comment-url")


def _event_body(env: Mapping[str, str], number: str) -> str | None:
    """The pull request's description from the triggering event, when it is that PR's."""
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        return None
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
        pull = event.get("pull_request") or {}
        if str(pull.get("number")) == number:
            return str(pull.get("body") or "")
    except (OSError, ValueError, AttributeError):
        return None
    return None


def check_argv(env: Mapping[str, str], workspace: Path, body_file: Path | None) -> list[str]:
    """The ``wheel-size check`` command line the inputs describe."""
    if not action_input(env, "check-wheels"):
        raise InputError("input check-wheels is required in check mode: the PR's wheels")
    argv = ["check", *map(str, workspace_paths(env, "check-wheels", workspace))]

    def opt(flag: str, name: str) -> None:
        value = action_input(env, name)
        if value:
            argv.extend([flag, value])

    repo = repository(env)
    if repo:
        argv += ["--repo", repo]
    opt("--workflow", "workflow")
    opt("--artifact-pattern", "artifact-pattern")
    opt("--python", "python")
    history = action_input(env, "history-dir")
    if history:
        argv += ["--history", str(workspace / history)]
    else:
        opt("--data-branch", "data-branch")
        opt("--data-remote", "data-remote")
    opt("--budget-mb", "check-budget-mb")
    opt("--budget-pct", "check-budget-pct")
    opt("--ceiling-mb", "ceiling-mb")
    for ceiling in words(action_input(env, "ceilings")):
        argv += ["--ceiling", ceiling]
    opt("--pypi-limit-mb", "pypi-limit-mb")
    opt("--footer", "check-footer")
    opt("--max-download-mb", "check-max-download-mb")
    opt("--pr-number", "pr-number")
    if body_file is not None:
        argv += ["--pr-body-file", str(body_file)]
    if not bool_input(env, "check-comment", default=True):
        argv.append("--no-comment")
    return argv


def run_check_mode(env: Mapping[str, str], out: TextIO, workspace: Path) -> int:
    from wheel_size.cli.check import EXIT_OVER_BUDGET, check_from_args
    from wheel_size.fileio import atomic_write

    number = action_input(env, "pr-number")
    body = _event_body(env, number) if number else None
    with tempfile.TemporaryDirectory(prefix="wheel-size-check-") as tmp:
        body_file = None
        if body is not None:
            body_file = Path(tmp) / "body.md"
            body_file.write_text(body, encoding="utf-8")
        outcome = check_from_args(parse_argv(check_argv(env, workspace, body_file)))
    report = Path(action_input(env, "check-report-path") or "wheel-size-check.md")
    json_report = report.with_suffix(".json")
    atomic_write(workspace / report, outcome.markdown.encode())
    result = outcome.result
    atomic_write(workspace / json_report, (json.dumps(result.to_json(), indent=2) + "\n").encode())
    from wheel_size.render import render

    note = render("action-summary-truncated.md.j2", path=report.as_posix())
    write_step_summary(env.get("GITHUB_STEP_SUMMARY"), outcome.markdown, note)
    write_outputs(
        env.get("GITHUB_OUTPUT"),
        {
            "check-failed": "true" if result.failed else "false",
            "check-report-path": report.as_posix(),
            "check-json-path": json_report.as_posix(),
            "check-comment-url": outcome.comment_url or "",
        },
    )
    for note in [*result.notes, *(f"{c.wheel.label}: {n}" for c in result.checks for n in c.notes)]:
        workflow_command(out, "notice", note, {"title": "wheel-size check"})
    if outcome.comment_error is not None:
        workflow_command(out, "warning", f"no comment posted: {outcome.comment_error}")
    for check in result.over_budget:
        level = "warning" if result.acknowledgement else "error"
        workflow_command(
            out, level, f"{check.wheel.label} is over its size budget", {"title": "Wheel size"}
        )
    return EXIT_OVER_BUDGET if result.failed else 0

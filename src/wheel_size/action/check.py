"""The container Action's ``mode: check``: a pull request's wheels against the stored nightly
nearest its merge base, one sticky comment, outputs and the job summary; the step fails only
over a budget, and a wheel compared with no night is "not checked" (conclusion neutral)."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from wheel_size.action.commands import workflow_command, write_outputs, write_step_summary
from wheel_size.action.inputs import (
    Inputs,
    action_input,
    bot_login_input,
    repository,
    workspace_paths,
)
from wheel_size.action.quota_inputs import quota_input
from wheel_size.action.tables.check import CHECK
from wheel_size.action.workspace import Workspace
from wheel_size.errors import InputError
from wheel_size.units import MB

if TYPE_CHECKING:
    from wheel_size.check.request import CheckRequest
    from wheel_size.check.target import BuildHead

__all__ = ["CHECK_OUTPUTS", "EXIT_OVER_BUDGET", "check_request", "run_check_mode"]

EXIT_OVER_BUDGET = 1  # as `wheel-size check`

CHECK_OUTPUTS = (
    "check-failed",
    "check-conclusion",
    "check-report-path",
    "check-json-path",
    "check-comment-url",
)


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


def _build_head(read: Inputs, env: Mapping[str, str]) -> BuildHead | None:
    """The run that built the wheels in a ``workflow_run`` job: head-sha, head-repository and
    head-branch, each defaulting to the event's when the triggering run was a pull request's
    (the same reading as ``wheel-size check --head-sha``)."""
    from wheel_size.check.target import build_head, head_defaults, triggering_run

    run = triggering_run(env)
    defaults = head_defaults(run)
    given = {name: read.text(name) or defaults[name] for name in defaults}
    sha, repo = given["head-sha"], given["head-repository"]
    if not sha and not repo:
        return None
    return build_head(
        run,
        sha,
        repo,
        given["head-branch"],
        names=("input head-sha", "input head-repository"),
        repository_given=bool(read.text("head-repository")),
    )


def check_request(env: Mapping[str, str], workspace: Path, body: str | None) -> CheckRequest:
    """The check the inputs describe (no command line in between)."""
    from wheel_size.check.budget import Budget, parse_ceilings
    from wheel_size.check.request import CheckRequest
    from wheel_size.check.run import CheckOptions
    from wheel_size.history.location import StoreLocation
    from wheel_size.variants import ArtifactNaming, canonical_python

    read = CHECK.read(env)
    read.check_all()  # every input refused by its kind, before anything runs
    if not read.text("check-wheels"):
        raise InputError("input check-wheels is required in check mode: the PR's wheels")
    history = read.text("history-dir")
    store = (
        StoreLocation(history=str(workspace / history))
        if history
        else StoreLocation(
            data_branch=read.optional_text("data-branch"),
            data_remote=read.optional_text("data-remote"),
            git_timeout=read.optional_number("git-timeout"),
        )
    )
    naming = ArtifactNaming(read.text("artifact-pattern"), canonical_python(read.text("python")))
    budget = Budget(
        growth_mb=read.number("check-budget-mb") or None,
        growth_pct=read.optional_number("check-budget-pct") or None,
        ceiling_mb=read.optional_number("ceiling-mb"),
        ceilings=parse_ceilings(read.items("ceilings")),
        pypi_limit_mb=read.optional_number("pypi-limit-mb"),
    )
    head = _build_head(read, env)
    number = read.text("pr-number")
    if number and not number.isdigit():
        raise InputError(f"input pr-number must be a pull request number, not {number!r}")
    download = read.number("check-max-download-mb")
    return CheckRequest(
        options=CheckOptions(
            wheels=tuple(workspace_paths(env, "check-wheels", workspace)), naming=naming,
            budget=budget, ceiling_ack=read.optional_text("ceiling-ack"),
            quota=quota_input(read),
        ),
        store=store,
        repository=repository(env) or None,
        workflow=read.optional_text("workflow"),
        pr_number=int(number) if number else None,
        pr_body=None if head is not None else body,
        head=head,
        comment=read.flag("check-comment"),
        footer=read.text("check-footer"),
        max_download_bytes=round(max(download, 0.0) * MB),
        server_url=env.get("GITHUB_SERVER_URL") or "https://github.com",
        compare_with=read.optional_text("compare-with"),
        bot_login=bot_login_input(env),
    )  # fmt: skip


def run_check_mode(env: Mapping[str, str], out: TextIO, workspace: Path) -> int:
    from wheel_size.check.pull_check import check_pull_request
    from wheel_size.check.view import breach_text, standing_texts
    from wheel_size.fileio import atomic_write
    from wheel_size.github.client import connect
    from wheel_size.github.port import PyGithubPort

    number = CHECK.read(env).text("pr-number")
    body = _event_body(env, number) if number else None
    token = action_input(env, "github-token") or env.get("GITHUB_TOKEN") or None
    place = Workspace.at(workspace, env)  # a report path outside it is refused before the check
    target = place.output("check-report-path", CHECK.read(env).text("check-report-path"))
    request = check_request(env, workspace, body)
    github = PyGithubPort(connect(token=token)) if token and request.uses_github else None
    outcome = check_pull_request(request, github, token=token, environ=env, progress=sys.stderr)
    report = Path(place.relative(target))
    json_report = report.with_suffix(".json")
    atomic_write(target, outcome.markdown.encode())
    result = outcome.result
    data = {**result.to_json(), "warnings": outcome.warnings}
    atomic_write(target.with_suffix(".json"), (json.dumps(data, indent=2) + "\n").encode())
    from wheel_size.render import render

    note = render("action-summary-truncated.md.j2", path=report.as_posix())
    write_step_summary(env.get("GITHUB_STEP_SUMMARY"), outcome.markdown, note)
    write_outputs(
        env.get("GITHUB_OUTPUT"),
        {
            "check-failed": "true" if result.failed else "false",
            "check-conclusion": result.conclusion,
            "check-report-path": report.as_posix(),
            "check-json-path": json_report.as_posix(),
            "check-comment-url": outcome.comment_url or "",
        },
    )
    for warning in outcome.warnings:
        workflow_command(out, "warning", warning, {"title": "wheel-size check"})
    if result.conclusion == "neutral":
        unchecked = ", ".join(c.wheel.label for c in result.not_checked)
        workflow_command(out, "warning", f"not checked: {unchecked}", {"title": "Wheel size"})
    for note in [
        *result.notes,
        *(f"{c.wheel.label}: {n}" for c in result.checks for n in [*c.notes, *standing_texts(c)]),
    ]:
        workflow_command(out, "notice", note, {"title": "wheel-size check"})
    if outcome.comment_error is not None:
        workflow_command(out, "warning", f"no comment posted: {outcome.comment_error}")
    for check in result.over_budget:
        failing = check.unaccepted(result.acknowledgement, result.ceiling_ack)
        for breach in check.breaches:
            workflow_command(
                out,
                "error" if breach in failing else "warning",
                f"{check.wheel.label} is over its size budget: {breach_text(breach, check)}",
                {"title": "Wheel size"},
            )
    return EXIT_OVER_BUDGET if result.failed else 0

"""The container Action's ``mode: audit``: INPUT_* → :class:`AuditOptions` → the same
library call as ``wheel-size audit`` → job summary, annotations, report files, outputs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from wheel_size.action.commands import workflow_command, write_outputs, write_step_summary
from wheel_size.action.inputs import repository, workspace_paths
from wheel_size.action.quota_inputs import quota_input
from wheel_size.action.tables.audit import AUDIT
from wheel_size.action.workspace import Workspace
from wheel_size.errors import InputError

if TYPE_CHECKING:
    from wheel_size.audit.run import AuditOptions
    from wheel_size.ports import ArtifactDownloads

__all__ = ["AUDIT_OUTPUTS", "audit_options", "run_audit_mode"]

AUDIT_OUTPUTS = (
    "audit-report-path",
    "audit-report-json-path",
    "audit-keep",
    "audit-drop",
    "audit-fix",
    "audit-jobs-to-disable",
)


def audit_options(env: Mapping[str, str], workspace: Path) -> AuditOptions:
    """The audit inputs as typed options (paths shown relative to the workspace)."""
    from wheel_size.audit.run import AuditOptions

    read = AUDIT.read(env)
    read.check_all()  # every input refused by its kind, before anything runs
    paths = workspace_paths(env, "audit-input", workspace)
    place = Workspace.at(workspace, env)
    run_id = read.text("audit-run-id")
    if not paths and not run_id:
        raise InputError("audit mode needs audit-input (wheels, folders, zips) or audit-run-id")
    if run_id and not run_id.isdigit():
        raise InputError(f"input audit-run-id must be a run id, not {run_id!r}")
    return AuditOptions(
        paths=tuple(paths),
        display={p: place.relative(p) for p in paths},
        repo=repository(env) if run_id else None,
        run_id=int(run_id) if run_id else None,
        artifact_pattern=read.text("audit-artifact-pattern"),
        max_download_mb=read.integer("audit-max-download-mb"),
        prefer=tuple(read.items("audit-prefer")),
        quota=quota_input(read),
    )


def _github() -> ArtifactDownloads:
    """The GitHub port, opened only when the run's artifacts are asked for."""
    from wheel_size.github.port import PyGithubPort

    return PyGithubPort.connected()


def run_audit_mode(env: Mapping[str, str], out: TextIO, workspace: Path) -> int:
    """Audit the wheels ``audit-input`` names and/or the artifacts of ``audit-run-id``."""
    from wheel_size.audit import run as audit_run
    from wheel_size.fileio import atomic_write_text
    from wheel_size.history.tempwork import temporary_work
    from wheel_size.render import render

    options = audit_options(env, workspace)
    place = Workspace.at(workspace, env)
    report_path = place.output("report-path", AUDIT.read(env).text("report-path"))
    with temporary_work():  # a full $TMPDIR is one line naming it, as for the CLI
        result = audit_run.run_audit(options, _github)
    for message in result.skipped:
        workflow_command(out, "warning", message, {"title": "wheel-size audit"})
    markdown = result.markdown()
    data = result.report.to_json()
    atomic_write_text(report_path, markdown)
    json_path = report_path.with_suffix(".json")
    atomic_write_text(json_path, result.json_text())
    note = render("action-summary-truncated.md.j2", path=report_path.name)
    write_step_summary(env.get("GITHUB_STEP_SUMMARY"), markdown, note)
    for verdict in result.report.verdicts:
        if verdict.verdict != "keep":
            workflow_command(
                out, "warning", f"{verdict.wheel}: {verdict.verdict}: {verdict.reason}",
                {"title": "wheel-size audit"},
            )  # fmt: skip
    summary = data["summary"]
    write_outputs(
        env.get("GITHUB_OUTPUT"),
        {
            "audit-report-path": place.relative(report_path),
            "audit-report-json-path": place.relative(json_path),
            "audit-keep": str(summary["keep"]),
            "audit-drop": str(summary["drop"]),
            "audit-fix": str(summary["fix"]),
            "audit-jobs-to-disable": json.dumps(data["jobs_to_disable"]),
        },
    )
    out.write(
        f"wheel-size: audited {len(result.report.verdicts)} wheel(s): keep {summary['keep']}, "
        f"drop {summary['drop']}, fix {summary['fix']}\n"
    )
    if AUDIT.read(env).flag("audit-strict") and not result.clean:
        workflow_command(out, "error", "some wheels of the matrix should be dropped or fixed")
        return 1
    return 0

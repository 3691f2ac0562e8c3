"""The container Action's ``mode: audit``: INPUT_* → ``wheel-size audit`` → job summary,
annotations for every wheel to drop or fix, report files and outputs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from wheel_size.action.commands import workflow_command, write_outputs, write_step_summary
from wheel_size.action.inputs import action_input, bool_input, repository, workspace_paths
from wheel_size.errors import InputError

__all__ = ["AUDIT_OUTPUTS", "run_audit"]

AUDIT_OUTPUTS = (
    "audit-report-path",
    "audit-report-json-path",
    "audit-keep",
    "audit-drop",
    "audit-fix",
)


def run_audit(env: Mapping[str, str], out: TextIO, workspace: Path) -> int:
    """Audit the wheels ``audit-input`` names and/or the artifacts of ``audit-run-id``."""
    from wheel_size.audit.run import audit_paths
    from wheel_size.audit.view import view
    from wheel_size.diff.hip import hip_arch_scanners
    from wheel_size.fileio import atomic_write_text
    from wheel_size.render import render

    paths = workspace_paths(env, "audit-input", workspace)
    run_id = action_input(env, "audit-run-id")
    display: dict[Path, str] = {
        p: str(p.relative_to(workspace)) for p in paths if p.is_relative_to(workspace)
    }
    if not paths and not run_id:
        raise InputError("audit mode needs audit-input (wheels, folders, zips) or audit-run-id")
    report_path = workspace / (action_input(env, "report-path") or "wheel-size-audit.md")
    if run_id:
        if not run_id.isdigit():
            raise InputError(f"input audit-run-id must be a run id, not {run_id!r}")
        from wheel_size.audit.remote import download_run_artifacts

        downloads = report_path.parent / ".wheel-size-audit-artifacts"
        found, skipped = download_run_artifacts(
            repository(env),
            int(run_id),
            downloads,
            pattern=action_input(env, "audit-artifact-pattern") or "*",
        )
        for message in skipped:
            workflow_command(out, "warning", message, {"title": "wheel-size audit"})
        paths += [path for path, _ in found]
        display.update(dict(found))
    report = audit_paths(paths, display=display, scanners=hip_arch_scanners())
    markdown = render("audit.md.j2", **view(report))
    data = report.to_json()
    atomic_write_text(report_path, markdown)
    json_path = report_path.with_suffix(".json")
    atomic_write_text(json_path, json.dumps(data, indent=2) + "\n")
    note = render("action-summary-truncated.md.j2", path=report_path.name)
    write_step_summary(env.get("GITHUB_STEP_SUMMARY"), markdown, note)
    for verdict in report.verdicts:
        if verdict.verdict != "keep":
            workflow_command(
                out, "warning", f"{verdict.wheel}: {verdict.verdict}: {verdict.reason}",
                {"title": "wheel-size audit"},
            )  # fmt: skip
    summary = data["summary"]
    write_outputs(
        env.get("GITHUB_OUTPUT"),
        {
            "audit-report-path": str(report_path),
            "audit-report-json-path": str(json_path),
            "audit-keep": str(summary["keep"]),
            "audit-drop": str(summary["drop"]),
            "audit-fix": str(summary["fix"]),
        },
    )
    out.write(
        f"wheel-size: audited {len(report.verdicts)} wheel(s): keep {summary['keep']}, "
        f"drop {summary['drop']}, fix {summary['fix']}\n"
    )
    if bool_input(env, "audit-strict") and (summary["drop"] or summary["fix"]):
        workflow_command(out, "error", "some wheels of the matrix should be dropped or fixed")
        return 1
    return 0

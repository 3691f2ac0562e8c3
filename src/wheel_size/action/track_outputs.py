"""A nightly run's outputs, annotations and step summary, written the way the runner reads
them: the one writer the Action's ``mode: track`` and ``wheel-size track`` inside a workflow
share, so both give the outputs ``action.yml`` names.

It keeps what is already known, so that a failure at any point still writes the outputs
as far as they got and a step summary that says what happened.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import MutableMapping
from pathlib import Path
from typing import TextIO

from wheel_size.action.commands import workflow_command, write_outputs, write_step_summary
from wheel_size.errors import WheelSizeError
from wheel_size.nightly import jump_annotation, nightly_outputs, nightly_summary
from wheel_size.track import TrackResult

__all__ = ["DEFAULT_OUTPUTS", "TrackPublisher", "workspace_relative"]

# What a run that failed before storing anything says.
DEFAULT_OUTPUTS = {"regression": "false", "jump-count": "0", "jumps": "[]"}


def workspace_relative(path: Path, workspace: Path) -> str:
    """``path`` as later steps of the job can open it: relative to the workspace when it
    is inside (the container's /github/workspace is another path on the host)."""
    try:
        return str(path.resolve().relative_to(workspace.resolve()))
    except ValueError:
        return str(path)


class TrackPublisher:
    """Writes one nightly run's outputs, annotations and step summary."""

    def __init__(
        self,
        env: MutableMapping[str, str],
        out: TextIO,
        workspace: Path,
        *,
        repository: str,
        issues_repo: str | None = None,
    ) -> None:
        self.env = env
        self.out = out
        self.workspace = workspace
        self.repository = repository
        self.issues_repo = issues_repo
        self.outputs = dict(DEFAULT_OUTPUTS)
        self.result: TrackResult | None = None
        self.summary_written = False

    def stored(self, result: TrackResult) -> None:
        """The night is stored: from here on every output it decides is known."""
        self.result = result
        self.outputs.update(nightly_outputs(result))

    def summary(self, *, report_name: str, skipped: str = "", failure: str = "") -> None:
        """Append the step summary (once: a second try would duplicate half of it)."""
        if self.summary_written:
            return
        from wheel_size.render import render

        self.summary_written = True
        path = self.env.get("GITHUB_STEP_SUMMARY")
        if self.result is None:
            text = f"**wheel-size failed:** {failure}\n" if failure else ""
            write_step_summary(path, text + (("\n" + skipped) if skipped else ""), "")
            return
        markdown = nightly_summary(
            self.result,
            repository=self.repository,
            issues_repo=self.issues_repo,
            server_url=self.env.get("GITHUB_SERVER_URL") or "https://github.com",
            report_name=report_name,
            skipped=skipped,
            failure=failure,
        )
        note = render("action-summary-truncated.md.j2", path=report_name)
        write_step_summary(path, markdown, note)

    def report_files(self, markdown: str, report_path: Path) -> None:
        """Write the Markdown report and the JSON result beside it, in the workspace."""
        from wheel_size.fileio import atomic_write

        assert self.result is not None
        json_path = report_path.with_suffix(".json")
        atomic_write(report_path, markdown.encode())
        atomic_write(json_path, (json.dumps(self.result.to_dict(), indent=2) + "\n").encode())
        self.report_paths(report_path, json_path)

    def report_paths(self, report_path: Path | None, json_path: Path | None) -> None:
        """Name reports written elsewhere (relative to the workspace when inside it)."""
        if report_path is not None:
            self.outputs["report-path"] = workspace_relative(report_path, self.workspace)
        if json_path is not None:
            self.outputs["report-json-path"] = workspace_relative(json_path, self.workspace)

    def annotate(self) -> None:
        """A ``::warning`` per crossing on the nights collected; an ``::error`` per size limit
        exceeded (a ``::notice`` once it is acknowledged)."""
        from wheel_size.nightly.summary import ceiling_text

        result = self.result
        for jump in result.jumps if result is not None else ():
            workflow_command(
                self.out, "warning", jump_annotation(jump), {"title": "Wheel size jump"}
            )
        for breach in result.ceiling_breaches if result is not None else ():
            level = "notice" if result is not None and result.ceiling_ack else "error"
            workflow_command(
                self.out,
                level,
                f"{breach.variant}: {ceiling_text(breach)}",
                {"title": "Wheel size limit"},
            )

    def flush(self) -> None:
        """Write the outputs known so far (once)."""
        if self.outputs:
            write_outputs(self.env.get("GITHUB_OUTPUT"), self.outputs)
        self.outputs = {}

    def fail(self, error: WheelSizeError, *, skipped: str = "") -> int:
        """Report ``error`` as the run's one ``::error::`` after writing what is known."""
        from wheel_size.render.safe_markdown import neutralise

        workflow_command(self.out, "error", str(error), {"title": "wheel-size"})
        # Each write on its own: a full disk for one must not cost the others.
        with contextlib.suppress(Exception):
            self.flush()
        with contextlib.suppress(Exception):
            self.summary(
                report_name="wheel-size-report.md",
                skipped=skipped,
                failure=neutralise(str(error)),
            )
        return error.exit_code

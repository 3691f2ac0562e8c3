"""The step summary of a command run inside a workflow (``GITHUB_ACTIONS=true``): what the
Action writes, written by ``wheel-size check|audit|split`` too, and a failure's one line for
every command — a failed step never leaves its summary empty."""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["failure_summary", "workflow_summary"]


def _summary_path(environ: Mapping[str, str] | None) -> str | None:
    env = os.environ if environ is None else environ
    if env.get("GITHUB_ACTIONS") != "true":
        return None
    return env.get("GITHUB_STEP_SUMMARY") or None


def workflow_summary(
    markdown: str, report: str | None = None, environ: Mapping[str, str] | None = None
) -> None:
    """Append ``markdown`` to the step summary (cut under GitHub's limit; ``report`` names
    the file that holds the whole of it); nothing outside a workflow."""
    path = _summary_path(environ)
    if path is None or not markdown:
        return
    from wheel_size.action.commands import write_step_summary
    from wheel_size.render import render

    note = render("action-summary-truncated.md.j2", path=report) if report else ""
    write_step_summary(path, markdown, note)


def failure_summary(message: str, environ: Mapping[str, str] | None = None) -> None:
    """ "**wheel-size failed:** <the error line>" in the step summary; never raises (the
    error itself is what the command reports)."""
    path = _summary_path(environ)
    if path is None:
        return
    try:
        from wheel_size.action.commands import write_step_summary
        from wheel_size.render import render

        write_step_summary(path, render("action-failure-summary.md.j2", message=message), "")
    except Exception as exc:  # an unwritable summary is a warning, never the failure
        import sys

        print(f"wheel-size: warning: cannot write the step summary: {exc}", file=sys.stderr)

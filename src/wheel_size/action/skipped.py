"""Tell the user about stored records that were skipped: they are not fatal, but someone
has to fix or remove them (see :mod:`wheel_size.history.recordfile`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from wheel_size.history.recordfile import SkippedRecord, drain_skipped

__all__ = ["SHOWN", "report_skipped", "skipped_markdown"]

#: Skipped files named one by one (log lines, annotations, summary rows); the rest are
#: counted in one line: 10^5 stray files on a data branch are one warning, not 10^5.
SHOWN = 20


def skipped_markdown(records: Sequence[SkippedRecord]) -> str:
    """The "Stored records skipped" section of a report or step summary ("" for none)."""
    if not records:
        return ""
    from wheel_size.render import render
    from wheel_size.render.safe_markdown import neutralise_cell

    rows = []
    for r in records[:SHOWN]:
        _, _, problem = r.message.partition(f"{r.path}: ")
        rows.append(
            {
                "path": neutralise_cell(r.path.replace("`", "'"), max_chars=200),
                "problem": neutralise_cell(problem or r.message, max_chars=300),
            }
        )
    return render("skipped-records.md.j2", records=rows, total=len(records))


def report_skipped(
    stderr: TextIO,
    *,
    annotations: TextIO | None = None,
    summary_path: str | None = None,
    records: Sequence[SkippedRecord] | None = None,
) -> list[SkippedRecord]:
    """Print a warning line per skipped record (and a ``::warning::`` annotation on
    ``annotations``, a section in the step summary at ``summary_path``, inside a workflow).
    Takes the records noted so far unless ``records`` are given; returns them."""
    found = list(drain_skipped() if records is None else records)
    for r in found[:SHOWN]:
        stderr.write(f"wheel-size: warning: {r.message} (skipped)\n")
        if annotations is not None:
            from wheel_size.action.commands import workflow_command

            workflow_command(
                annotations, "warning", f"{r.message} (skipped)", {"title": "wheel-size record"}
            )
    if len(found) > SHOWN:
        more = (
            f"{len(found) - SHOWN} more stored file(s) skipped ({len(found)} in all), not named "
            "one by one; fix or remove them on the data branch"
        )
        stderr.write(f"wheel-size: warning: {more}\n")
        if annotations is not None:
            from wheel_size.action.commands import workflow_command

            workflow_command(annotations, "warning", more, {"title": "wheel-size record"})
    stderr.flush()
    if found and summary_path:
        with Path(summary_path).open("a", encoding="utf-8") as fh:
            fh.write("\n" + skipped_markdown(found))
    return found

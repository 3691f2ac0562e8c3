"""What a nightly run says to a workflow: its outputs, its annotations and the step summary.

The step summary answers "did last night grow?" first: one line per watched variant that
crossed the threshold on the newest night (with its issue), the other variants counted as
flat, the crossings of earlier nights this run collected (a catch-up), the issues opened
and updated, how many nights were collected (also those the report window does not show),
and only then the full report, collapsed when long. The CLI inside a workflow and the
Action write the same outputs, named as in ``action.yml``.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from wheel_size.check.budget import CeilingBreach
from wheel_size.render import render
from wheel_size.report.analyze import build_lines
from wheel_size.report.model import Jump
from wheel_size.track import TrackResult
from wheel_size.units import format_mb, in_mb

__all__ = [
    "COLLAPSE_LINES",
    "ceiling_text",
    "jump_annotation",
    "limits_markdown",
    "nightly_outputs",
    "nightly_summary",
]

# A report longer than this goes into a collapsed section (a daily table of a month is ~40).
COLLAPSE_LINES = 40


def jump_annotation(jump: Jump) -> str:
    """The message of a jump's ``::warning`` (title "Wheel size jump")."""
    return (
        f"{jump.artifact}: {format_mb(jump.delta_mb, signed=True)} MB on {jump.date} "
        f"({format_mb(jump.prev_size_mb)} → {format_mb(jump.size_mb)} MB, run {jump.run_id})"
    )


def nightly_outputs(result: TrackResult) -> dict[str, str]:
    """The outputs ``action.yml`` names that the stored night decides (the report paths are
    the writer's)."""
    outputs = {
        "regression": "true" if result.regression else "false",
        "jump-count": str(len(result.jumps)),
        "jumps": json.dumps([j.to_dict() for j in result.jumps]),
        "collected-runs": str(len(result.collected)),
        "commit": result.write.commit or "",
        "ceiling-exceeded": "true" if result.ceiling_breaches else "false",
    }
    if result.issues is not None:
        outputs["issues-created"] = ",".join(str(n) for n in result.issues.created)
        outputs["issues-updated"] = ",".join(str(n) for n in dict.fromkeys(result.issues.updated))
    return outputs


@dataclass(frozen=True)
class _Line:
    """A jump as the summary shows it."""

    variant: str
    date: dt.date
    delta_mb: float
    prev_size_mb: float
    size_mb: float
    run_id: int | None
    run_url: str | None
    issue: int | None
    issue_url: str | None

    @property
    def grew(self) -> bool:
        return self.delta_mb > 0


@dataclass(frozen=True)
class _Issue:
    number: int
    url: str
    what: str  # "jump/cuda12_8/2025-10-11" → "cuda12_8, 2025-10-11 (jump)"


def ceiling_text(breach: CeilingBreach) -> str:
    """What a size-limit breach says (annotation and summary): "912.3 MB on 2026-03-10,
    over the 850.0 MB ceiling"."""
    words = {"ceiling": "ceiling", "pypi": "PyPI file-size limit"}
    over = "; ".join(
        f"over the {in_mb(b.limit_bytes or 0)} MB {words.get(b.kind, b.kind)}"
        for b in breach.breaches
    )
    return f"{in_mb(breach.size_bytes)} MB on {breach.date}, {over}"


def _ceiling(breach: CeilingBreach) -> dict[str, str]:
    return {"variant": breach.variant, "text": ceiling_text(breach)}


def limits_markdown(result: TrackResult) -> str:
    """The report's "Size limits" section (as the step summary has it), or "": the file
    ``-o`` writes says a breach too."""
    if not result.ceiling_breaches:
        return ""
    ceilings = [_ceiling(c) for c in result.ceiling_breaches]
    return render("_size_limits.md.j2", ceilings=ceilings, ceiling_ack=result.ceiling_ack)


def _links(server_url: str, repository: str) -> tuple[str, str]:
    base = f"{server_url.rstrip('/')}/{repository}"
    return f"{base}/actions/runs/", f"{base}/issues/"


def nightly_summary(
    result: TrackResult,
    *,
    repository: str,
    issues_repo: str | None = None,
    server_url: str = "https://github.com",
    report_name: str = "report.md",
    skipped: str = "",
    failure: str = "",
) -> str:
    """The step summary of ``result`` (Markdown). ``skipped``: the section on stored records
    that were skipped; ``failure``: one line when the run failed after storing."""
    runs, issues = _links(server_url, repository)
    if issues_repo and issues_repo != repository:
        issues = _links(server_url, issues_repo)[1]
    numbers = result.issues.events if result.issues is not None else {}

    def line(j: Jump) -> _Line:
        number = numbers.get(f"jump/{j.variant}/{j.date.isoformat()}")
        return _Line(
            variant=j.variant,
            date=j.date,
            delta_mb=j.delta_mb,
            prev_size_mb=j.prev_size_mb,
            size_mb=j.size_mb,
            run_id=j.run_id,
            run_url=f"{runs}{j.run_id}" if j.run_id else None,
            issue=number,
            issue_url=f"{issues}{number}" if number else None,
        )

    nights = result.new_nights
    last = nights[-1] if nights else None
    watched = [r.variant for r in result.reports]
    moved = [line(j) for j in result.jumps if j.date == last]
    earlier = [line(j) for j in result.jumps if j.date != last]
    crossed = {m.variant for m in moved}
    flat: list[str] = []
    absent: list[str] = []
    for variant in watched:
        if variant in crossed:
            continue
        has_size = (
            result.series is not None
            and last is not None
            and result.series.variant(variant).point_on(last) is not None
        )
        (flat if has_size else absent).append(variant)
    opened, updated = _issues(result, issues)
    outside = result.nights_outside_report
    threshold = result.reports[0].thresholds.describe() if result.reports else ""
    report = result.markdown.strip("\n")
    return render(
        "nightly-summary.md.j2",
        repository=repository,
        last=last,
        moved=moved,
        flat=flat,
        absent=absent,
        silent=_silent(result, watched, last),
        threshold=threshold,
        earlier=earlier,
        ceilings=[_ceiling(c) for c in result.ceiling_breaches],
        ceiling_ack=result.ceiling_ack or "",
        opened=opened,
        updated=updated,
        issue_error=str(result.issue_error) if result.issue_error is not None else "",
        nights=nights,
        runs=len(result.collected) + len(result.ingested_runs),
        outside=outside,
        report_periods=[str(p) for p in result.report_periods],
        report=report,
        build=build_lines(result.reports, last),
        collapse=len(report.splitlines()) > COLLAPSE_LINES,
        report_name=report_name,
        skipped=skipped.strip("\n"),
        skipped_runs=result.skipped_text,
        failure=failure,
    )


def _silent(result: TrackResult, watched: list[str], last: dt.date | None) -> list[str]:
    """The watched variants without a wheel on the newest night (issue 29 item 3)."""
    from wheel_size.series.silence import silence_lines

    if result.series is None or last is None:
        return []
    return silence_lines(result.series, watched, last)


def _issues(result: TrackResult, base: str) -> tuple[list[_Issue], list[_Issue]]:
    if result.issues is None:
        return [], []
    what = {n: key for key, n in result.issues.events.items()}

    def issue(number: int) -> _Issue:
        kind, _, rest = what.get(number, "").partition("/")
        variant, _, date = rest.partition("/")
        text = f"{variant}, {kind} of {date}" if date else ""
        return _Issue(number, f"{base}{number}", text)

    created = list(dict.fromkeys(result.issues.created))
    updated = [n for n in dict.fromkeys(result.issues.updated) if n not in created]
    return [issue(n) for n in created], [issue(n) for n in updated]

"""Render a regression issue (title, body, update comments) from an Investigation.

The body's values come from one typed context (:mod:`.context`, where every string from a
commit, GitHub or the history is neutralised), its words from the templates; the body is
kept within GitHub's 65,536 characters by showing fewer candidates first and cutting last.
"""

from __future__ import annotations

import datetime as dt
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from wheel_size.markers import PREFIX as MARKER_PREFIX
from wheel_size.markers import regression_marker
from wheel_size.regressions.events import Event
from wheel_size.regressions.investigation import Investigation
from wheel_size.regressions.issues.context import TOP, issue_context, run_url, verdict_context
from wheel_size.regressions.issues.lifecycle import State, Verdict
from wheel_size.regressions.issues.notes import cause_marker
from wheel_size.regressions.issues.parts import moved_parts, parts_marker
from wheel_size.render import render
from wheel_size.render.safe_markdown import BODY_LIMIT, fit_body, neutralise_cell
from wheel_size.units import MB

__all__ = [
    "MARKER_PREFIX",
    "Reproduce",
    "candidates_marker",
    "event_marker",
    "issue_title",
    "render_body",
    "render_issue_markdown",
    "render_lifecycle",
    "update_marker",
    "verdict_markdown",
]


def event_marker(event: Event) -> str:
    """The body's first line: the event key (our own ASCII) and the sizes that later
    nights are compared with, so follow-ups need neither the history nor the API."""
    return regression_marker(
        f"event={event.key} "
        f"before={event.before.date.isoformat()}:{event.before.size_bytes} "
        f"after={event.after.date.isoformat()}:{event.after.size_bytes}"
    )


def contents_marker(inv: Investigation) -> str | None:
    """The files and sections the event moved (from its wheel diff), so a later night can
    tell them moving back (:mod:`wheel_size.regressions.issues.parts`)."""
    diff = inv.evidence_json.get("diff") if inv.evidence_json else None
    return parts_marker(inv.event.key, moved_parts(diff if isinstance(diff, dict) else None))


def candidates_marker(inv: Investigation) -> str:
    """The listed candidates (SHA and PR of the top ten), for the lifecycle: a later revert
    of one of them is what makes a return a rollback. Our own ASCII only."""
    items = []
    for cand in inv.candidates[:TOP]:
        commit = cand.classified.commit
        items.append(commit.sha[:12] + (f":{commit.pr}" if commit.pr else ""))
    return regression_marker(f"candidates={','.join(items)}")


def update_marker(key: str, night: dt.date, state: str, size_bytes: int) -> str:
    return regression_marker(
        f"update={key} night={night.isoformat()} state={state} size={size_bytes}"
    )


@dataclass(frozen=True)
class Reproduce:
    """How to re-run the investigation from a terminal (shown in the issue)."""

    args: tuple[str, ...]

    def command(self) -> str:
        return "wheel-size investigate " + " ".join(shlex.quote(a) for a in self.args)


def issue_title(ev: Event) -> str:
    """Variant, date and delta (``regression_title.txt.j2``): what a reader of the issue
    list needs first. Titles are plain text (no links), but bidi overrides and controls
    would still show: the variant passes ``stripped_line``."""
    return render("regression_title.txt.j2", events=[ev], creep=ev.kind == "creep")


def verdict_markdown(inv: Investigation) -> str | None:
    """The verdict paragraph alone (``regression_verdict.md.j2``), as the issue shows it:
    what an issue already open is given again when its bisection moved."""
    found = verdict_context(inv)
    if found is None:
        return None
    return render("regression_verdict.md.j2", verdict=found).strip()


def _render_fitting(
    inv: Investigation,
    limit: int,
    *,
    repo_url: str,
    reproduce: Reproduce | None,
    accepted_label: str,
    threshold: str,
    group: Sequence[Event],
    cc_culprit: bool,
) -> str:
    inv.apply_content()
    total = len(inv.candidates)
    members = [e for e in group if e.key != inv.event.key]
    marker = "\n".join(
        line
        for line in (
            "\n".join([event_marker(inv.event), *(event_marker(e) for e in members)]),
            candidates_marker(inv),
            cause_marker(inv),
            contents_marker(inv),
        )
        if line
    )

    def attempt(shown: int) -> str:
        context = issue_context(
            inv,
            marker=marker,
            repo_url=repo_url,
            reproduce=reproduce.command() if reproduce else None,
            accepted_label=accepted_label,
            threshold=threshold,
            shown=shown,
            group=group,
            cc_culprit=cc_culprit,
        )
        return render("regression_issue.md.j2", **context)

    text = attempt(total)
    if len(text) <= limit:
        return text
    # Fewest rows dropped that fits: binary search over the number of candidates shown.
    lo, hi = 0, total
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(attempt(mid)) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return fit_body(attempt(lo), limit)


def render_body(
    inv: Investigation,
    *,
    repo_url: str,
    reproduce: Reproduce | None = None,
    accepted_label: str = "size-accepted",
    threshold: str = "1 MB",
    limit: int = BODY_LIMIT,
    group: Sequence[Event] = (),
    cc_culprit: bool = False,
) -> str:
    """The issue body: markers, jump, chart, cross-variant table, candidates, reverts.

    ``group``: the other events of the same night event (one issue for all of them).
    """
    return _render_fitting(
        inv,
        limit,
        group=group,
        cc_culprit=cc_culprit,
        repo_url=repo_url.rstrip("/"),
        reproduce=reproduce,
        accepted_label=accepted_label,
        threshold=threshold,
    )


def render_issue_markdown(
    inv: Investigation,
    *,
    repo_url: str,
    reproduce: Reproduce | None = None,
    threshold: str = "1 MB",
) -> str:
    """The ``investigate`` command's Markdown: the issue body without the marker."""
    body = render_body(
        inv,
        repo_url=repo_url,
        reproduce=reproduce,
        accepted_label="",
        threshold=threshold,
        limit=10**9,
    )
    lines = body.split("\n")
    while lines and lines[0].startswith(MARKER_PREFIX):
        lines.pop(0)
    return "\n".join(lines)


class UpdateRow(TypedDict):
    """One variant's line of a lifecycle comment (``regression_update.md.j2``)."""

    state: State
    variant: str
    date: str
    size_mb: float
    since_before_mb: float
    since_event_mb: float
    before_date: str
    before_mb: float
    event_date: str
    reason: str
    run_url: str | None


def render_lifecycle(
    events: Sequence[Event],
    verdicts: Sequence[Verdict],
    *,
    repo_url: str,
    closing: bool,
) -> str:
    """One comment for one night: what each variant of the issue did (rolled back with
    the reverting commit, offset by a later change, grew again with the re-land)."""
    by_variant = {e.variant: e for e in events}
    base = repo_url.rstrip("/")
    rows: list[UpdateRow] = []
    markers = []
    for verdict in verdicts:
        ev = by_variant[verdict.variant]
        point = verdict.point
        markers.append(update_marker(ev.key, point.date, verdict.state, point.size_bytes))
        rows.append(
            {
                "state": verdict.state,
                "variant": neutralise_cell(ev.variant),
                "date": point.date.isoformat(),
                "size_mb": point.size_mb,
                "since_before_mb": (point.size_bytes - ev.before.size_bytes) / MB,
                "since_event_mb": (point.size_bytes - ev.after.size_bytes) / MB,
                "before_date": ev.before.date.isoformat(),
                "before_mb": ev.before.size_mb,
                "event_date": ev.date.isoformat(),
                "reason": neutralise_cell(verdict.reason, 300),
                "run_url": run_url(base, point.run_id),
            }
        )
    text = render("regression_update.md.j2", markers="\n".join(markers), rows=rows, closing=closing)
    return fit_body(text)

"""Render a regression issue (title, body, update comments) from an Investigation.

Every string that came from a commit, GitHub or the history is neutralised here, before
it reaches the template (``wheel_size.render.safe_markdown``), and the body is kept
within GitHub's 65,536 characters by showing fewer candidates first and cutting last.
"""

from __future__ import annotations

import datetime as dt
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wheel_size.markers import ISSUE_PREFIX as MARKER_PREFIX
from wheel_size.markers import regression_marker
from wheel_size.regressions.events import Event
from wheel_size.regressions.investigation import Candidate, Investigation
from wheel_size.regressions.issues.lifecycle import Verdict
from wheel_size.regressions.issues.notes import cause_marker
from wheel_size.regressions.issues.parts import moved_parts, parts_marker
from wheel_size.regressions.ranking.classify import CATEGORIES
from wheel_size.render import render
from wheel_size.render.chart_labels import chart_labels
from wheel_size.render.safe_markdown import (
    BODY_LIMIT,
    fit_body,
    github_link,
    neutralise,
    neutralise_cell,
    stripped_line,
)
from wheel_size.series import SizePoint
from wheel_size.units import MB, format_mb

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
]

#: Candidates shown with their reasons; the rest go into a collapsed section.
TOP = 10

# A night without a jump lists its window unranked, up to this many commits.
UNRANKED_SHOWN = 100


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
    """Variant, date and delta: what a reader of the issue list needs first.

    Titles are plain text (no links), but bidi overrides and controls would still show.
    """
    variant = stripped_line(ev.variant)
    if ev.kind == "creep":
        return (
            f"Wheel size creep: {variant} {format_mb(ev.delta_mb, signed=True)} MB from "
            f"{ev.before.date.isoformat()} to {ev.date.isoformat()}"
        )
    return (
        f"Wheel size: {variant} {format_mb(ev.delta_mb, signed=True)} MB on {ev.date.isoformat()}"
    )


def _run_url(repo_url: str, run_id: int | None) -> str | None:
    return f"{repo_url}/actions/runs/{run_id}" if run_id else None


def _side(repo_url: str, point: SizePoint, base: str | None) -> dict[str, Any]:
    return {
        "date": point.date.isoformat(),
        "size_mb": point.size_mb,
        "run_id": point.run_id,
        "run_url": _run_url(repo_url, point.run_id),
        "head": (point.head_sha or "")[:12] or None,
        "head_url": f"{repo_url}/commit/{point.head_sha}" if point.head_sha else None,
        "base": (base or "")[:12] or None,
        "base_url": f"{repo_url}/commit/{base}" if base else None,
    }


def _chart(inv: Investigation) -> dict[str, Any] | None:
    if len(inv.chart) < 2:
        return None
    sizes = [p.size_mb for p in inv.chart]
    low, high = min(sizes), max(sizes)
    pad = max((high - low) * 0.1, 0.5)
    return {
        "title": neutralise_cell(inv.variant).replace('"', "'") + " (MB)",
        "labels": chart_labels([p.date for p in inv.chart]),
        "values": [round(s, 1) for s in sizes],
        "y_min": round(low - pad, 1),
        "y_max": round(high + pad, 1),
    }


def _context(
    inv: Investigation,
    *,
    repo_url: str,
    reproduce: Reproduce | None,
    accepted_label: str,
    threshold: str,
    shown: int,
    group: Sequence[Event] = (),
    cc_culprit: bool = False,
) -> dict[str, Any]:
    ev = inv.event
    members = [e for e in group if e.key != ev.key]
    markers = "\n".join([event_marker(ev), *(event_marker(e) for e in members)])
    candidates = []
    for cand in inv.candidates[:shown]:
        commit = cand.classified.commit
        candidates.append(
            {
                "why": neutralise_cell(plain_why(cand.why), 400) if cand.why else None,
                "rank": cand.classified.rank,
                "sha": commit.short_sha,
                "url": commit.html_url or f"{repo_url}/commit/{commit.sha}",
                "pr": commit.pr,
                "pr_url": github_link(cand.pr_url) if cand.pr_url else None,
                "title": neutralise_cell(commit.title, 120),
                "categories": ", ".join(CATEGORIES[c].title for c in cand.classified.categories),
                "status": cand.status.status,
                "evidence": neutralise_cell(cand.status.evidence),
                "reverts": neutralise_cell(cand.reverts) if cand.reverts else None,
                "page_url": (
                    inv.commit_url_template.replace("{sha}", commit.sha)
                    if inv.commit_url_template
                    else None
                ),
            }
        )
    reverts = [
        {
            "sha": pair.revert.short_sha,
            "url": pair.revert.html_url or f"{repo_url}/commit/{pair.revert.sha}",
            "title": neutralise_cell(pair.revert.title, 120),
            "reverted_sha": pair.original.short_sha,
            "reverted_url": pair.original.html_url or f"{repo_url}/commit/{pair.original.sha}",
            "reverted_title": neutralise_cell(pair.original.title, 120),
        }
        for pair in inv.reverts_removed
    ]
    cross = [
        {
            "variant": neutralise_cell(v),
            "delta_mb": d,
            "this": v == inv.variant or any(e.variant == v for e in members),
        }
        for v, d in inv.cross.deltas.items()
    ]
    window = inv.window
    compare_url = None
    if window.compared:
        compare_url = f"{repo_url}/compare/{window.compared[0]}...{window.compared[1]}"
    return {
        "marker": "\n".join(
            line
            for line in (markers, candidates_marker(inv), cause_marker(inv), contents_marker(inv))
            if line
        ),
        "group": [
            {"variant": neutralise_cell(e.variant), "delta_mb": e.delta_mb} for e in [ev, *members]
        ]
        if members
        else [],
        "kind": ev.kind,
        "variant": neutralise_cell(ev.variant),
        "artifact": neutralise_cell(ev.after.artifact or ev.variant),
        "date": ev.date.isoformat(),
        "delta_mb": ev.delta_mb,
        "size_mb": abs(ev.delta_mb),
        "grew": ev.delta_mb >= 0,
        "delta_pct": ev.pct,
        "threshold": threshold,
        "before": _side(repo_url, ev.before, window.before.base_sha),
        "after": _side(repo_url, ev.after, window.after.base_sha),
        "chart": _chart(inv),
        "cross": cross,
        "cross_reading": neutralise(inv.cross.reading),
        "window_mode": window.mode,
        "compare_url": compare_url,
        "total_commits": window.total_commits,
        "notes": _shown_notes(inv, window.mode),
        "candidates": candidates[:TOP],
        "more_candidates": candidates[TOP:],
        "candidates_total": len(inv.candidates),
        "candidates_left_out": len(inv.candidates) - len(candidates),
        "reverts": reverts,
        # Wheel content diff (issue 5): already-rendered, already-safe Markdown or None.
        "evidence": inv.evidence_markdown,
        "content_ranked": inv.content_ranked,
        # Per-commit builds: already-rendered, already-safe Markdown or None.
        "build_evidence": inv.build_markdown,
        "reproduce": reproduce.command() if reproduce else None,
        "accepted_label": accepted_label,
        "cc": _culprit_login(inv) if cc_culprit else None,
        "no_jump": inv.no_jump,
        "verdict": verdict(inv),
        "unranked": [
            {
                "sha": c.short_sha,
                "url": c.html_url or f"{repo_url}/commit/{c.sha}",
                "title": neutralise_cell(c.title, 120),
            }
            for c in inv.unranked[:UNRANKED_SHOWN]
        ],
        "unranked_total": len(inv.unranked),
        "unclear": [
            {
                "sha": c.classified.commit.short_sha,
                "title": neutralise_cell(c.classified.commit.title, 80),
            }
            for c in inv.leading
        ]
        if inv.candidates and not inv.clear
        else [],
    }


def _shown_notes(inv: Investigation, window_mode: str) -> list[str]:
    """The investigation's notes less those the body already says in its own words (the
    variants' reading; a missing commit window), so no line is read twice."""
    said = {inv.cross.reading.strip()}
    if window_mode not in ("base", "head"):
        said.add("no commit window could be determined")
    return [neutralise_cell(n) for n in inv.notes if n.strip() not in said]


#: The evidence tiers as a release engineer reads them (``Ranked.why`` names them tersely).
_PLAIN_TIERS = {
    "build": "per-commit build",
    "content": "wheel contents",
    "reach": "what its files can change",
    "text": "its title and diff",
}
_TIER_LABEL = re.compile(r"(^|; |against: )(build|content|reach|text): ")


def plain_why(why: str) -> str:
    """``Ranked.why`` in plain words: no "reach:", "text:" or "against:" shorthand, and each
    kind of evidence named once in a row ("its title and diff: a; b", not the label thrice)."""
    last: list[str | None] = [None]

    def label(m: re.Match[str]) -> str:
        if m[1] == "; " and last[0] == m[2]:
            return "; "
        last[0] = m[2]
        return f"{m[1]}{_PLAIN_TIERS[m[2]]}: "

    text = _TIER_LABEL.sub(label, why)
    return text.replace("against: ", "speaks against it: ")


def _short_commit(inv: Investigation, sha: str) -> dict[str, Any]:
    by_sha = {c.classified.commit.sha: c.classified.commit for c in inv.candidates}
    commit = by_sha.get(sha) or next((c for c in inv.window.commits if c.sha == sha), None)
    return {
        "sha": sha[:12],
        "title": neutralise_cell(commit.title, 80) if commit and commit.title else None,
        "pr": commit.pr if commit else None,
    }


def verdict(inv: Investigation) -> dict[str, Any] | None:
    """What the issue's first lines say (issue 28 item 6): the commit builds confirmed; or
    the bracket the builds narrowed the step to and the build that would split it; or the
    leading candidate(s) and the build that would settle it. None for a night without a
    jump, a creep, or no candidates."""
    ev = inv.event
    if ev.kind != "jump" or inv.no_jump or not inv.candidates:
        return None
    deltas = {v["sha"]: v.get("delta_bytes") for v in inv.build_json or []}
    confirmed = [c for c in inv.candidates if c.status.status == "CONFIRMED"]
    bisection = inv.bisection
    if confirmed:
        made = {b.sha for b in bisection.builds} if bisection is not None else set()
        return {
            "kind": "confirmed",
            "by_bisection": any(c.classified.commit.sha in made for c in confirmed),
            "commits": [
                {
                    **_short_commit(inv, c.classified.commit.sha),
                    "delta_mb": (deltas.get(c.classified.commit.sha) or 0) / MB or None,
                }
                for c in confirmed
            ],
        }
    result = inv.brackets
    n = len(result.coverage) if result is not None else 0
    grew = ev.delta_mb >= 0
    narrowed = [
        b
        for b in (result.brackets if result is not None else ())
        if 1 < b.commits < n and (b.delta > 0) == grew
    ]
    if bisection is not None and bisection.pending and bisection.building:
        return _bisecting(inv, [b for b in narrowed if b.delta * ev.delta_mb > 0] or narrowed)
    if narrowed and result is not None:
        b = narrowed[0]
        shas = [c.sha for c in result.coverage[b.first_index : b.last_index + 1]]
        middle = shas[(len(shas) - 1) // 2]
        return {
            "kind": "bracket",
            "commits": len(shas),
            "first": _short_commit(inv, shas[0]),
            "last": _short_commit(inv, shas[-1]),
            "before": {"sha": b.before_build.sha[:12], "mb": (b.before_build.size_bytes or 0) / MB},
            "after": {"sha": b.after_build.sha[:12], "mb": (b.after_build.size_bytes or 0) / MB},
            "next": _short_commit(inv, middle),
            "more": len(narrowed) - 1,
        }
    leading = inv.leading
    if inv.clear and leading:
        top = leading[0].classified.commit.sha
        return {
            "kind": "leading",
            "commits": [_short_commit(inv, top)],
            "evidence": _leading_evidence(leading[0]),
            # its files cannot move every variant that moved: the verdict says the rest of
            # the night is not explained, instead of leaving it to a table further down
            "partial": getattr(leading[0].classified, "covers_moved", None) is False,
        }
    return {
        "kind": "unclear",
        "commits": [_short_commit(inv, c.classified.commit.sha) for c in leading[:3]],
    }


#: What the verdict says a leading candidate's rank rests on, per evidence tier.
_VERDICT_TIERS = {
    "content": "the wheel contents",
    "reach": "what its changes can reach",
    "text": "its title and diff",
}


def _leading_evidence(cand: Candidate) -> list[str]:
    """The evidence tiers that speak for the leader (as its Why column shows them): the
    verdict names these, never a kind of evidence that was not read (e.g. no contents)."""
    reasons = getattr(cand.classified, "reasons", ())
    tiers = {r.tier for r in reasons if r.signal != "prior" and r.points >= 2}
    return [words for tier, words in _VERDICT_TIERS.items() if tier in tiers]


def _bisecting(inv: Investigation, narrowed: list[Any]) -> dict[str, Any]:
    """A bisection is building inside the bracket: where the step lies and what is built."""
    commits = [c.sha for c in inv.window.commits]
    if narrowed and inv.brackets is not None:
        b = narrowed[0]
        commits = [c.sha for c in inv.brackets.coverage[b.first_index : b.last_index + 1]]
    return {
        "kind": "bisecting",
        "commits": len(commits),
        "first": _short_commit(inv, commits[0]) if commits else None,
        "last": _short_commit(inv, commits[-1]) if commits else None,
        "building": [sha[:12] for sha in inv.bisection.building],
    }


def verdict_markdown(inv: Investigation) -> str | None:
    """The verdict paragraph alone (``regression_verdict.md.j2``), as the issue shows it:
    what an issue already open is given again when its bisection moved."""
    found = verdict(inv)
    if found is None:
        return None
    return render("regression_verdict.md.j2", verdict=found).strip()


_LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$")


def _culprit_login(inv: Investigation) -> dict[str, str] | None:
    """The login to mention (opt-in): only the author of a CONFIRMED top candidate, and
    only a well-formed GitHub login (anything else stays unmentioned)."""
    if not inv.candidates or inv.candidates[0].status.status != "CONFIRMED":
        return None
    commit = inv.candidates[0].classified.commit
    if not _LOGIN.match(commit.login):
        return None
    return {"login": commit.login, "sha": commit.short_sha}


def _render_fitting(template: str, limit: int, **kwargs: Any) -> str:
    inv: Investigation = kwargs.pop("inv")
    inv.apply_content()
    total = len(inv.candidates)

    def attempt(shown: int) -> str:
        return render(template, **_context(inv, shown=shown, **kwargs))

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
        "regression_issue.md.j2",
        limit,
        inv=inv,
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
    rows = []
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
                "run_url": _run_url(base, point.run_id),
            }
        )
    text = render("regression_update.md.j2", markers="\n".join(markers), rows=rows, closing=closing)
    return fit_body(text)

"""What a regression issue's templates read, typed, and the one function that builds it.

As packaging reads a wheel's metadata into ``RawMetadata`` (a ``TypedDict``) before anything
uses it, the issue body is rendered from :class:`IssueContext` only: ``issue_context`` turns
the typed :class:`~wheel_size.regressions.investigation.Investigation` into it, and
``templates/regression_issue.md.j2`` (with ``regression_verdict.md.j2``) reads nothing else.
Every string that came from a commit, GitHub or the history is neutralised here, on its way
in (``wheel_size.render.safe_markdown``); the words around the values are the templates'.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, TypedDict

from wheel_size.regressions.builds.bracket import Bisection, Bracket, BracketResult
from wheel_size.regressions.events import Event
from wheel_size.regressions.investigation import Candidate, Investigation
from wheel_size.regressions.ranking.classify import CATEGORIES
from wheel_size.regressions.window.compare import no_window
from wheel_size.render import render
from wheel_size.render.chart_labels import chart_labels
from wheel_size.render.safe_markdown import github_link, neutralise, neutralise_cell
from wheel_size.series import SizePoint
from wheel_size.units import MB

__all__ = [
    "TOP",
    "UNRANKED_SHOWN",
    "CandidateRow",
    "IssueContext",
    "VerdictContext",
    "issue_context",
    "plain_why",
    "run_url",
    "verdict_context",
]

#: Candidates shown with their reasons; the rest go into a collapsed section.
TOP = 10

#: A night without a jump lists its window unranked, up to this many commits.
UNRANKED_SHOWN = 100


class SideContext(TypedDict):
    """One night of the before/after table."""

    date: str
    size_mb: float
    run_id: int | None
    run_url: str | None
    head: str | None
    head_url: str | None
    base: str | None
    base_url: str | None


class ChartContext(TypedDict):
    """The mermaid chart around the event."""

    title: str
    labels: list[str]
    values: list[float]
    y_min: float
    y_max: float


class CandidateRow(TypedDict):
    why: str | None
    rank: int
    sha: str
    url: str
    pr: int | None
    pr_url: str | None
    title: str
    categories: str
    status: str | None
    evidence: str
    reverts: str | None
    page_url: str | None


class RevertRow(TypedDict):
    sha: str
    url: str
    title: str
    reverted_sha: str
    reverted_url: str
    reverted_title: str


class CrossRow(TypedDict):
    variant: str
    delta_mb: float | None
    this: bool  # a variant of this issue (shown bold)


class GroupRow(TypedDict):
    variant: str
    delta_mb: float


class UnrankedRow(TypedDict):
    sha: str
    url: str
    title: str


class UnclearRow(TypedDict):
    sha: str
    title: str


class Mention(TypedDict):
    login: str
    sha: str


class ShortCommit(TypedDict):
    sha: str
    title: str | None
    pr: int | None


class MeasuredCommit(ShortCommit):
    delta_mb: float | None  # its own build against its parent's


class BuildPoint(TypedDict):
    sha: str
    mb: float


class ConfirmedVerdict(TypedDict):
    kind: Literal["confirmed"]
    by_bisection: bool
    commits: list[MeasuredCommit]


class BracketVerdict(TypedDict):
    kind: Literal["bracket"]
    commits: int
    first: ShortCommit
    last: ShortCommit
    before: BuildPoint
    after: BuildPoint
    next: ShortCommit
    more: int


class BisectingVerdict(TypedDict):
    kind: Literal["bisecting"]
    commits: int
    first: ShortCommit | None
    last: ShortCommit | None
    building: list[str]


class LeadingVerdict(TypedDict):
    kind: Literal["leading"]
    commits: list[ShortCommit]
    evidence: list[str]  # the tiers that speak for it: "content", "reach", "text"
    # its files cannot move every variant that moved: the verdict says the rest of the
    # night is not explained, instead of leaving it to a table further down
    partial: bool


class UnclearVerdict(TypedDict):
    kind: Literal["unclear"]
    commits: list[ShortCommit]


VerdictContext = (
    ConfirmedVerdict | BracketVerdict | BisectingVerdict | LeadingVerdict | UnclearVerdict
)


class IssueContext(TypedDict):
    """Everything ``regression_issue.md.j2`` reads."""

    marker: str  # the hidden marker lines, our own ASCII
    group: list[GroupRow]  # the night's other events of this issue, with this one
    kind: str  # jump / creep
    variant: str
    artifact: str
    date: str
    delta_mb: float
    size_mb: float
    grew: bool
    delta_pct: float | None
    threshold: str
    before: SideContext
    after: SideContext
    chart: ChartContext | None
    cross: list[CrossRow]
    cross_reading: str
    window_mode: str  # base / head / none
    compare_url: str | None
    total_commits: int
    notes: list[str]
    candidates: list[CandidateRow]
    more_candidates: list[CandidateRow]
    candidates_total: int
    candidates_left_out: int
    reverts: list[RevertRow]
    evidence: str | None  # the wheel content diff: already-rendered, already-safe Markdown
    content_ranked: bool
    build_evidence: str | None  # per-commit builds: already-rendered, already-safe Markdown
    reproduce: str | None
    accepted_label: str
    cc: Mention | None
    no_jump: bool
    verdict: VerdictContext | None
    unranked: list[UnrankedRow]
    unranked_total: int
    unclear: list[UnclearRow]


def run_url(repo_url: str, run_id: int | None) -> str | None:
    return f"{repo_url}/actions/runs/{run_id}" if run_id else None


def _side(repo_url: str, point: SizePoint, base: str | None) -> SideContext:
    return {
        "date": point.date.isoformat(),
        "size_mb": point.size_mb,
        "run_id": point.run_id,
        "run_url": run_url(repo_url, point.run_id),
        "head": (point.head_sha or "")[:12] or None,
        "head_url": f"{repo_url}/commit/{point.head_sha}" if point.head_sha else None,
        "base": (base or "")[:12] or None,
        "base_url": f"{repo_url}/commit/{base}" if base else None,
    }


def _chart(inv: Investigation) -> ChartContext | None:
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


def _candidate_row(inv: Investigation, cand: Candidate, repo_url: str) -> CandidateRow:
    commit = cand.classified.commit
    return {
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


def issue_context(
    inv: Investigation,
    *,
    marker: str,
    repo_url: str,
    reproduce: str | None,
    accepted_label: str,
    threshold: str,
    shown: int,
    group: Sequence[Event] = (),
    cc_culprit: bool = False,
) -> IssueContext:
    """The issue's context from the investigation, ``shown`` candidates listed (the
    rest counted as left out); ``marker``: the body's hidden lines."""
    ev = inv.event
    members = [e for e in group if e.key != ev.key]
    candidates = [_candidate_row(inv, c, repo_url) for c in inv.candidates[:shown]]
    reverts: list[RevertRow] = [
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
    cross: list[CrossRow] = [
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
    group_rows: list[GroupRow] = [
        {"variant": neutralise_cell(e.variant), "delta_mb": e.delta_mb} for e in [ev, *members]
    ]
    return {
        "marker": marker,
        "group": group_rows if members else [],
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
        "notes": _shown_notes(inv),
        "candidates": candidates[:TOP],
        "more_candidates": candidates[TOP:],
        "candidates_total": len(inv.candidates),
        "candidates_left_out": len(inv.candidates) - len(candidates),
        "reverts": reverts,
        "evidence": inv.evidence_markdown,
        "content_ranked": inv.content_ranked,
        "build_evidence": inv.build_markdown,
        "reproduce": reproduce,
        "accepted_label": accepted_label,
        "cc": _culprit_login(inv) if cc_culprit else None,
        "no_jump": inv.no_jump,
        "verdict": verdict_context(inv),
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


def _shown_notes(inv: Investigation) -> list[str]:
    """The investigation's notes less those the body already says in its own words (the
    variants' reading; a missing commit window), so no line is read twice."""
    said = {inv.cross.reading.strip()}
    if inv.window.mode not in ("base", "head"):
        said.add(no_window())
    return [neutralise_cell(n) for n in inv.notes if n.strip() not in said]


_TIER_LABEL = re.compile(r"(^|; |against: )(build|content|reach|text): ")


class _WhyPart(TypedDict):
    sep: str  # "", "; " or "against: "
    tier: str
    repeat: bool  # the same tier as the part before: its label is not said again
    text: str


def plain_why(why: str) -> str:
    """``Ranked.why`` in plain words (``candidate_why.txt.j2``): no "reach:", "text:" or
    "against:" shorthand, and each kind of evidence named once in a row ("its title and
    diff: a; b", not the label thrice)."""
    found = list(_TIER_LABEL.finditer(why))
    if not found:
        return why
    parts: list[_WhyPart] = []
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(why)
        repeat = m[1] == "; " and bool(parts) and parts[-1]["tier"] == m[2]
        parts.append({"sep": m[1], "tier": m[2], "repeat": repeat, "text": why[m.end() : end]})
    text = render("candidate_why.txt.j2", lead=why[: found[0].start()], parts=parts)
    return text.removesuffix("\n")


def _short_commit(inv: Investigation, sha: str) -> ShortCommit:
    by_sha = {c.classified.commit.sha: c.classified.commit for c in inv.candidates}
    commit = by_sha.get(sha) or next((c for c in inv.window.commits if c.sha == sha), None)
    return {
        "sha": sha[:12],
        "title": neutralise_cell(commit.title, 80) if commit and commit.title else None,
        "pr": commit.pr if commit else None,
    }


def verdict_context(inv: Investigation) -> VerdictContext | None:
    """What the issue's first lines say (issue 28 item 6): the commit builds confirmed; or
    the bracket the builds narrowed the step to and the build that would split it; or the
    leading candidate(s) and the build that would settle it. None for a night without a
    jump, a creep, or no candidates."""
    ev = inv.event
    if ev.kind != "jump" or inv.no_jump or not inv.candidates:
        return None
    deltas = {v["sha"]: v.get("delta_bytes") for v in inv.build_json or []}
    confirmed = [c for c in inv.candidates if c.status.status == "CONFIRMED"]
    # held untyped by the Investigation (builds/ sits above it); typed here, where it is read
    bisection: Bisection | None = inv.bisection
    result: BracketResult | None = inv.brackets
    if confirmed:
        made = {b.sha for b in bisection.builds} if bisection is not None else set()
        measured: list[MeasuredCommit] = []
        for c in confirmed:
            short = _short_commit(inv, c.classified.commit.sha)
            delta = deltas.get(c.classified.commit.sha) or 0
            measured.append({**short, "delta_mb": delta / MB or None})
        return {
            "kind": "confirmed",
            "by_bisection": any(c.classified.commit.sha in made for c in confirmed),
            "commits": measured,
        }
    n = len(result.coverage) if result is not None else 0
    grew = ev.delta_mb >= 0
    narrowed = [
        b
        for b in (result.brackets if result is not None else ())
        if 1 < b.commits < n and (b.delta > 0) == grew
    ]
    if bisection is not None and bisection.pending and bisection.building:
        chosen = [b for b in narrowed if b.delta * ev.delta_mb > 0] or narrowed
        return _bisecting(inv, bisection, result, chosen)
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
            "partial": getattr(leading[0].classified, "covers_moved", None) is False,
        }
    return {
        "kind": "unclear",
        "commits": [_short_commit(inv, c.classified.commit.sha) for c in leading[:3]],
    }


#: The evidence tiers a verdict may name, in the order it names them (the words are the
#: verdict template's).
_VERDICT_TIERS = ("content", "reach", "text")


def _leading_evidence(cand: Candidate) -> list[str]:
    """The evidence tiers that speak for the leader (as its Why column shows them): the
    verdict names these, never a kind of evidence that was not read (e.g. no contents)."""
    reasons = getattr(cand.classified, "reasons", ())
    tiers = {r.tier for r in reasons if r.signal != "prior" and r.points >= 2}
    return [tier for tier in _VERDICT_TIERS if tier in tiers]


def _bisecting(
    inv: Investigation,
    bisection: Bisection,
    result: BracketResult | None,
    narrowed: Sequence[Bracket],
) -> BisectingVerdict:
    """A bisection is building inside the bracket: where the step lies and what is built."""
    commits = [c.sha for c in inv.window.commits]
    if narrowed and result is not None:
        b = narrowed[0]
        commits = [c.sha for c in result.coverage[b.first_index : b.last_index + 1]]
    return {
        "kind": "bisecting",
        "commits": len(commits),
        "first": _short_commit(inv, commits[0]) if commits else None,
        "last": _short_commit(inv, commits[-1]) if commits else None,
        "building": [sha[:12] for sha in bisection.building],
    }


_LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$")


def _culprit_login(inv: Investigation) -> Mention | None:
    """The login to mention (opt-in): only the author of a CONFIRMED top candidate, and
    only a well-formed GitHub login (anything else stays unmentioned)."""
    if not inv.candidates or inv.candidates[0].status.status != "CONFIRMED":
        return None
    commit = inv.candidates[0].classified.commit
    if not _LOGIN.match(commit.login):
        return None
    return {"login": commit.login, "sha": commit.short_sha}

"""Put a regression event together: window, reverts, ranking, cross-variant evidence.

The result is plain data (:class:`Investigation`) that the issue body, the
``investigate`` command's Markdown and its JSON are all rendered from. Growth and shrink
are ranked alike (``regressions.ranking.rank``); when the wheel content diff is attached later,
:meth:`Investigation.apply_content` ranks again with it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wheel_size.ports import Commits
from wheel_size.regressions.document import (
    BracketDocument,
    BuildVerdictDocument,
    CandidateDocument,
    FingerprintDocument,
    InvestigationDocument,
)
from wheel_size.regressions.events import Event
from wheel_size.regressions.ranking.classify import CATEGORIES, Classified
from wheel_size.regressions.ranking.content_facts import facts_from_diff_json, families_from_json
from wheel_size.regressions.ranking.evidence import (
    CrossVariant,
    Status,
    assess,
    cross_variant,
    with_build_status,
)
from wheel_size.regressions.ranking.fingerprint import Fingerprint, fingerprint
from wheel_size.regressions.ranking.order import order_by_score
from wheel_size.regressions.ranking.rank import Ranked, leading_group, rank_commits, score_commit
from wheel_size.regressions.ranking.reach_table import ReachTable
from wheel_size.regressions.window.commits import Commit
from wheel_size.regressions.window.compare import Night, Window, WindowCache, fetch_files
from wheel_size.regressions.window.reverts import RevertPair, remove_revert_pairs, revert_target
from wheel_size.render.templates import render_macro
from wheel_size.series import SizePoint, step_on
from wheel_size.series.thresholds import Thresholds
from wheel_size.units import MB

__all__ = ["Candidate", "Investigation", "Series", "delta_on", "investigate"]

# variant -> points sorted by date, at most one per date (a SizeSeries is one)
Series = Mapping[str, Sequence[SizePoint]]


def delta_on(points: Sequence[SizePoint], date: dt.date) -> float | None:
    """Day-over-day change in MB on ``date`` (against the previous night with data)."""
    step = step_on(points, date)
    return None if step is None else step.delta_bytes / MB


DEFAULT_MAX_DETAILS = 100
CHART_DAYS = 7


@dataclass(frozen=True)
class Candidate:
    classified: Classified
    status: Status
    pr_url: str | None
    reverts: str | None  # for a revert whose original is outside the window: what it reverts
    # The status the code (and the wheel contents) gave, before any build: kept so the
    # builds' verdict is applied once, in Investigation.settle, however often it runs.
    code_status: Status | None = None

    def code(self) -> Status:
        return self.code_status if self.code_status is not None else self.status

    @property
    def why(self) -> str:
        item = self.classified
        return item.why() if isinstance(item, Ranked) else ""

    def to_json(self) -> CandidateDocument:
        commit = self.classified.commit
        item = self.classified
        reasons = item.reasons if isinstance(item, Ranked) else ()
        return {
            "sha": commit.sha,
            "title": commit.title,
            "pr": commit.pr,
            "pr_url": self.pr_url,
            "url": commit.html_url or None,
            "author": commit.author or None,
            "categories": list(self.classified.categories),
            "rank": self.classified.rank,
            "score": round(self.classified.score, 1),
            "why": self.why,
            "reasons": [r.to_json() for r in reasons],
            "reach": item.reach if isinstance(item, Ranked) else None,
            "status": self.status.status,
            "evidence": self.status.evidence,
            "files_checked": commit.files is not None,
            "files_changed": None if commit.files is None else len(commit.files),
            "reverts": self.reverts,
        }


@dataclass
class Investigation:
    """Everything we know about one event, ready to render."""

    repo: str
    event: Event
    window: Window
    candidates: list[Candidate]
    reverts_removed: list[RevertPair]
    cross: CrossVariant
    chart: list[SizePoint]
    notes: list[str] = field(default_factory=list)
    details_fetched: int = 0
    # Filled in by the wheel content diff (issue 5): a Markdown section and its JSON.
    evidence_markdown: str | None = None
    # evidence.document.EvidenceDocument, held as JSON: evidence imports this package, so
    # the type cannot be named here; only "diff" and "families" are read, each checked.
    evidence_json: Mapping[str, object] | None = None
    fingerprint: Fingerprint | None = None
    content_ranked: bool = False  # the ranking already used the content diff
    reach_table: ReachTable | None = None  # None: the packaged one

    @property
    def no_jump(self) -> bool:
        """The investigated variant did not jump that night: nothing is ranked."""
        return self.fingerprint is not None and self.fingerprint.direction == 0

    @property
    def unranked(self) -> list[Commit]:
        """The window's commits, in order and unranked, on a night without a jump: a user
        asking about that night still sees what landed (issue 29)."""
        return list(self.window.commits) if self.no_jump else []

    @property
    def leading(self) -> list[Candidate]:
        """The candidates the evidence cannot tell apart at the top: one when the leader is
        clear, several when there is "no clear culprit", none when nothing is ranked."""
        items = [c.classified for c in self.candidates]
        if not items or not all(isinstance(i, Ranked) for i in items):
            return self.candidates[:1]
        group = leading_group([i for i in items if isinstance(i, Ranked)])
        shas = {r.commit.sha for r in group}
        return [c for c in self.candidates if c.classified.commit.sha in shas]

    @property
    def clear(self) -> bool:
        return len(self.leading) == 1

    def apply_content(self) -> Investigation:
        """Rank with the wheel content diff once it is attached (``evidence_json``): see
        :meth:`settle`. Calling it again, or without a usable diff, changes nothing."""
        return self.settle()

    def _content_facts(self) -> Any:
        if self.fingerprint is None or not self.evidence_json:
            return None
        diff = self.evidence_json.get("diff")
        facts = facts_from_diff_json(diff if isinstance(diff, dict) else None, self.reach_table)
        if facts is not None:
            facts.families, facts.families_rest = families_from_json(
                self.evidence_json.get("families")
            )
        return facts

    def settle(self) -> Investigation:
        """Rank once with every piece of evidence at hand and set each status in one place.

        The ranking reads the window's commits with the content diff when one is attached;
        the order is by the score shown, builds' points included (``ranking.order``); each
        candidate's status is the code's (:attr:`Candidate.code_status`), replaced by the
        build's verdict where one decides it (:func:`with_build_status`). Calling it again
        with nothing new changes nothing.
        """
        state = (id(self.evidence_json), id(self.build_verdicts), len(self.build_verdicts))
        if state == self._settled or self.fingerprint is None:
            return self
        self._settled = state
        items = [c.classified for c in self.candidates]
        if not items or not all(isinstance(i, Ranked) for i in items):
            return self
        facts = self._content_facts()
        where = {c.sha: i for i, c in enumerate(self.window.commits)}
        commits = sorted((i.commit for i in items), key=lambda c: where.get(c.sha, len(where)))
        # The ranking is read once per content diff: builds only reorder by their points.
        key = (id(self.evidence_json), tuple(c.sha for c in commits))
        if self._ranked is None or self._ranked[0] != key:
            ranked = rank_commits(commits, self.fingerprint, facts, table=self.reach_table)
            self._ranked = (key, ranked)
        ranked = self._ranked[1]
        self.content_ranked = self.content_ranked or facts is not None
        ordered = order_by_score(ranked, self.build_verdicts)
        by_sha = {c.classified.commit.sha: c for c in self.candidates}
        settled = []
        for item in ordered:
            old = by_sha[item.commit.sha]
            code = old.code()
            verdict = self.build_verdicts.get(item.commit.sha)
            status = with_build_status(code, verdict.status, verdict.reason) if verdict else code
            settled.append(
                dataclasses.replace(old, classified=item, status=status, code_status=code)
            )
        self.candidates = settled
        return self

    # Per-commit build evidence (regressions/builds/attach.py): Markdown, JSON, page links.
    build_markdown: str | None = None
    build_json: list[BuildVerdictDocument] | None = None
    commit_url_template: str | None = None
    # Issue 28: where the builds put the step (a builds.bracket.BracketResult, held untyped:
    # builds/ sits above this module) and what reading the window's builds cost.
    brackets: Any = None
    build_requests: int = 0
    # A bisection with builds of this event (a builds.bracket.Bisection, untyped for the
    # same reason), when one was started: its builds join the window's, and the issue's
    # verdict says what it is building while it is pending.
    bisection: Any = None
    # sha -> builds.evidence.BuildVerdict (held untyped for the same reason): read by
    # :meth:`settle`, the one place a candidate's status is set from builds.
    build_verdicts: dict[str, Any] = field(default_factory=dict)
    _settled: tuple[int, int, int] | None = None
    _ranked: tuple[tuple[int, tuple[str, ...]], list[Ranked]] | None = None

    @property
    def variant(self) -> str:
        return self.event.variant

    @property
    def date(self) -> dt.date:
        return self.event.date

    def to_json(self) -> InvestigationDocument:
        ev = self.event
        return {
            "repo": self.repo,
            "kind": ev.kind,
            "key": ev.key,
            "date": ev.date.isoformat(),
            "date_before": ev.before.date.isoformat(),
            "variant": ev.variant,
            "delta_mb": round(ev.delta_mb, 3),
            "delta_pct": None if ev.pct is None else round(ev.pct, 3),
            "size_before_mb": round(ev.before.size_mb, 3),
            "size_after_mb": round(ev.after.size_mb, 3),
            "base_before": self.window.before.base_sha,
            "base_after": self.window.after.base_sha,
            "head_before": self.window.before.head_sha,
            "head_after": self.window.after.head_sha,
            "run_before": ev.before.run_id,
            "run_after": ev.after.run_id,
            "window": {
                "mode": self.window.mode,
                "compared": list(self.window.compared) if self.window.compared else None,
                "compare_url": self.window.compare_url,
                "total_commits": self.window.total_commits,
                "listed_commits": len(self.window.commits),
                "files_checked": self.details_fetched,
            },
            "notes": list(self.notes),
            "candidates": [c.to_json() for c in self.candidates],
            "reverts_removed": [
                {
                    "sha": pair.revert.sha,
                    "reverted_sha": pair.original.sha,
                    "title": pair.revert.title,
                    "reverted_title": pair.original.title,
                }
                for pair in self.reverts_removed
            ],
            "cross_variant": {
                v: None if d is None else round(d, 3) for v, d in self.cross.deltas.items()
            },
            "cross_variant_pattern": self.cross.pattern,
            "cross_variant_reading": self.cross.reading,
            "fingerprint": _fingerprint_json(self.fingerprint),
            "no_jump": self.no_jump,
            "unranked_commits": [
                {"sha": c.sha, "title": c.title, "url": c.html_url or None} for c in self.unranked
            ],
            "clear_culprit": bool(self.candidates) and self.clear,
            "leading_group": [c.classified.commit.sha for c in self.leading],
            "chart": [
                {"date": p.date.isoformat(), "size_mb": round(p.size_mb, 3)} for p in self.chart
            ],
            "evidence": self.evidence_json,
            "build_evidence": self.build_json,
            "build_brackets": self._brackets_json(),
            "build_requests": self.build_requests,
        }

    def _brackets_json(self) -> list[BracketDocument] | None:
        result = self.brackets
        if result is None:
            return None
        return [
            {
                "first_sha": result.coverage[b.first_index].sha,
                "last_sha": result.coverage[b.last_index].sha,
                "commits": b.commits,
                "before_sha": b.before_build.sha,
                "before_bytes": b.before_build.size_bytes,
                "after_sha": b.after_build.sha,
                "after_bytes": b.after_build.size_bytes,
                "delta_bytes": b.delta,
            }
            for b in result.brackets
        ]


def pull_request_url(repo_html_url: str, number: int | None) -> str | None:
    if number is None or not repo_html_url:
        return None
    return f"{repo_html_url.rstrip('/')}/pull/{number}"


def _say(note: str, **values: object) -> str:
    """A note's words: the macro ``note`` of ``investigation_notes.txt.j2``."""
    return render_macro("investigation_notes.txt.j2", note, **values)


def investigate(
    repo: Commits,
    event: Event,
    series: Series,
    *,
    max_details: int = DEFAULT_MAX_DETAILS,
    cache: WindowCache | None = None,
    thresholds: Thresholds | None = None,
    reach_table: ReachTable | None = None,
) -> Investigation:
    """Investigate one event: ``repo`` is the repository the nightlies were built from.

    With ``thresholds``, a night whose change does not cross them is said to have no jump:
    nothing is ranked, and the variants that did move are named."""
    before = Night(
        event.before.date.isoformat(),
        event.before.head_sha,
        event.before.base_sha,
        event.before.run_id,
    )
    after = Night(
        event.after.date.isoformat(), event.after.head_sha, event.after.base_sha, event.after.run_id
    )
    cache = cache if cache is not None else WindowCache()
    window = cache.window(repo, before, after)
    notes = list(window.notes)
    if window.mode == "base" and window.total_commits == 0:
        notes.append(_say("same_commit"))
    kept, pairs = remove_revert_pairs(window.commits)

    deltas = {variant: delta_on(points, event.date) for variant, points in series.items()}
    if event.kind == "creep":
        # Creep spans many nights: compare growth over the same span instead.
        deltas = {
            variant: _span_delta(points, event.before.date, event.date)
            for variant, points in series.items()
        }
    jumped = (
        thresholds is None
        or event.kind != "jump"
        or thresholds.crossed(
            event.after.size_bytes - event.before.size_bytes, event.before.size_bytes
        )
    )
    fp = fingerprint(
        event.variant,
        deltas,
        jumped=jumped,
        threshold_mb=(thresholds.mb if thresholds and thresholds.mb else 0.2),
    )
    cross = _cross(event.variant, deltas, fp)
    if not jumped:
        notes.append(fp.reading())
        kept = []

    # With more commits than the request cap, check the likeliest ones by message first.
    detailed, fetched = fetch_files(
        repo,
        kept,
        limit=max_details,
        priority=lambda c: -score_commit(c, fp, table=reach_table).score,
        cache=cache.commits,
    )
    if fetched < len(kept):
        notes.append(_say("files_capped", fetched=fetched, candidates=len(kept), cap=max_details))

    ranked = rank_commits(detailed, fp, table=reach_table)
    relevant = sum(1 for item in ranked if max(CATEGORIES[c].weight for c in item.categories) >= 50)
    repo_html = repo.html_url
    candidates = []
    for item in ranked:
        target = revert_target(item.commit)
        reverts = None
        if target is not None:
            what = target.sha[:12] if target.sha else repr(target.title)
            reverts = _say("reverts_earlier", target=what)
        status = assess(
            item,
            variant=event.variant,
            cross=cross,
            window_mode=window.mode,
            window_size=window.total_commits,
            relevant_candidates=relevant,
            covers_moved=item.covers_moved,
            table=reach_table,
        )
        candidates.append(
            Candidate(item, status, pull_request_url(repo_html, item.commit.pr), reverts)
        )

    points = series.get(event.variant, [])
    low = event.before.date - dt.timedelta(days=CHART_DAYS)
    high = event.date + dt.timedelta(days=CHART_DAYS)
    chart = [p for p in points if low <= p.date <= high]
    return Investigation(
        repo=repo.full_name,
        event=event,
        window=window,
        candidates=candidates,
        reverts_removed=pairs,
        cross=cross,
        chart=chart,
        notes=notes,
        details_fetched=fetched,
        fingerprint=fp,
        reach_table=reach_table,
    )


def _cross(variant: str, deltas: dict[str, float | None], fp: Fingerprint) -> CrossVariant:
    """The seed's Method B pattern, read for shrink as for growth, with the fingerprint's
    sentence (which names what moved, the direction and the size class)."""
    if fp.direction < 0:
        mirrored = {v: None if d is None else -d for v, d in deltas.items()}
        base = cross_variant(variant, mirrored)
        return CrossVariant(dict(sorted(deltas.items())), base.pattern, fp.reading())
    base = cross_variant(variant, deltas)
    if fp.direction == 0:
        if fp.own_mb is not None:  # a night without a jump: say so, read nothing into it
            return CrossVariant(base.deltas, "unknown", fp.reading())
        return base
    return CrossVariant(base.deltas, base.pattern, fp.reading())


def _fingerprint_json(fp: Fingerprint | None) -> FingerprintDocument | None:
    if fp is None:
        return None
    return {
        "direction": "growth" if fp.direction > 0 else "shrink" if fp.direction < 0 else "none",
        "moved": [k.name for k in fp.moved],
        "flat": [k.name for k in fp.flat],
        "opposite": [k.name for k in fp.opposite],
        "no_data": list(fp.missing),
        "scope": fp.scope(),
        "size_class": "large" if fp.large else "small" if fp.small else "medium",
    }


def _span_delta(points: list[SizePoint] | Any, start: dt.date, end: dt.date) -> float | None:
    first = next((p for p in points if p.date == start), None)
    last = next((p for p in points if p.date == end), None)
    if first is None or last is None:
        return None
    return (last.size_bytes - first.size_bytes) / 1_048_576

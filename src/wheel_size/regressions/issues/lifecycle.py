"""What a later night means for an open regression issue: a causal lifecycle.

An issue hears only about its own change. A size that comes back down is not, by itself, a
rollback, and a later crossing is not news for every open issue: an unrelated removal a
month later (a -29.7 MB library drop) is its own event, not a follow-up on four October
growth issues. The rules:

- **rolled back**: the size comes back within tolerance of the pre-event level (the rule the
  report's "Rollback" observation uses too: :mod:`wheel_size.series.returns`) *and* the
  return is attributable to the event: a commit of the return window reverts a candidate
  the issue listed;
- **back without a revert** (state ``offset``): the size comes back within tolerance and
  no commit of the window reverts a listed candidate (the change may be offset by another):
  said once, the issue stays open;
- **moved back** (the files or sections the event moved, moving back by a comparable
  amount while other changes keep the size from coming back): :mod:`.parts`;
- **grew again**: the variant crosses the threshold again in the event's direction and the
  new window re-lands a listed candidate; slow drift never counts (creep is its own event).

Any other crossing says nothing on the issue. A return is told once: with hysteresis, the
size must first go well away from the pre-event level again (``rearm_factor`` times the
tolerance) before another return can be told, so a size wobbling at the tolerance edge does
not flap. Decisions are edge-triggered (only on the night of the return or of a crossing),
so the nights in between need no comment reads. Pure functions over plain data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from wheel_size.regressions.events import Event
from wheel_size.regressions.window.commits import Commit
from wheel_size.regressions.window.reverts import revert_target
from wheel_size.render.templates import render_macro
from wheel_size.series import SizePoint, Thresholds, jump_on
from wheel_size.series.returns import ReturnTolerance, is_back, return_margin

__all__ = [
    "Lifecycle",
    "Listed",
    "Verdict",
    "attribute_return",
    "decide",
    "links_regrowth",
    "new_return",
    "returned",
    "within_tolerance",
]

State = Literal["rolled-back", "offset", "grew", "moved-back"]
#: The states that tell the change coming back (the hysteresis of a move back starts there).
BACK_STATES = frozenset({"rolled-back", "offset", "moved-back"})

_RELAND = re.compile(r"^\s*\[?re-?land(?:ed|ing)?\]?\s*:?\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Lifecycle:
    """How close to the pre-event size counts as "back" (shared with the report), and the
    hysteresis of telling a return."""

    tolerance: ReturnTolerance = field(default_factory=ReturnTolerance)
    # Hysteresis: after a return, another is told only once the size went this many
    # tolerances away from the pre-event level in between.
    rearm_factor: float = 2.0


@dataclass(frozen=True)
class Verdict:
    state: State
    variant: str
    point: SizePoint
    reason: str  # plain text: which commit undid / re-landed it, or why it is only offset


def _say(reason: str, **values: object) -> str:
    """A lifecycle reason's words: the macro ``reason`` of ``regression_update_reasons.txt.j2``."""
    return render_macro("regression_update_reasons.txt.j2", reason, **values)


def _margin(event: Event, settings: Lifecycle) -> float:
    return return_margin(event.before.size_bytes, event.after.size_bytes, settings.tolerance)


def within_tolerance(event: Event, size_bytes: int, settings: Lifecycle) -> bool:
    """Is ``size_bytes`` back at the pre-event level of ``event``?"""
    before, after = event.before.size_bytes, event.after.size_bytes
    return is_back(before, after, size_bytes, settings.tolerance)


def _away(event: Event, size_bytes: int, settings: Lifecycle) -> bool:
    """Far enough from the pre-event level that a later return is news again."""
    return abs(size_bytes - event.before.size_bytes) > settings.rearm_factor * _margin(
        event, settings
    )


def new_return(
    event: Event, points: Sequence[SizePoint], point: SizePoint, settings: Lifecycle
) -> bool:
    """Tonight the size is back within tolerance, for the first time since the event or
    since it last went :func:`_away` (hysteresis: a wobble at the edge is one return)."""
    if point.date <= event.date or not within_tolerance(event, point.size_bytes, settings):
        return False
    armed = not within_tolerance(event, event.after.size_bytes, settings)
    for p in sorted(points, key=lambda p: p.date):
        if not event.date < p.date < point.date:
            continue
        if within_tolerance(event, p.size_bytes, settings):
            armed = False
        elif _away(event, p.size_bytes, settings):
            armed = True
    return armed


def returned(
    event: Event, previous: SizePoint | None, point: SizePoint, settings: Lifecycle
) -> bool:
    """Tonight is the night the size came back (it was not back the night before)."""
    if not within_tolerance(event, point.size_bytes, settings):
        return False
    return previous is None or not within_tolerance(event, previous.size_bytes, settings)


@dataclass(frozen=True)
class Listed:
    """A candidate the issue listed: its SHA (full or abbreviated) and PR number."""

    sha: str
    pr: int | None = None


def _names_pr(text: str, pr: int | None) -> bool:
    if pr is None:
        return False
    return re.search(rf"(?:#|/pull/){pr}(?!\d)", text) is not None


def attribute_return(candidates: Sequence[Listed], commits: Sequence[Commit]) -> str | None:
    """The commit of the return window that reverts a listed candidate, as a sentence.

    A revert names its original by SHA ("This reverts commit ...") or, as PyTorch's revert
    bot does, by the PR number in ``Revert "Title (#N)"``.
    """
    for commit in commits:
        target = revert_target(commit)
        if target is None:
            continue
        for cand in candidates:
            sha = cand.sha.lower()
            by_sha = target.sha is not None and (
                sha.startswith(target.sha) or target.sha.startswith(sha)
            )
            if by_sha or _names_pr(target.title or "", cand.pr):
                return _say("reverts", commit=commit.short_sha, candidate=sha[:12])
    return None


def links_regrowth(candidates: Sequence[Listed], commits: Sequence[Commit]) -> str | None:
    """The commit of a new crossing's window that re-lands a listed candidate, if any: a
    "Reland ..." or a revert of a revert whose message names the candidate's SHA or PR."""
    for commit in commits:
        target = revert_target(commit)
        relands = _RELAND.match(commit.title) is not None or (
            target is not None and (target.title or "").startswith("Revert ")
        )
        if not relands:
            continue
        text = commit.message.lower()
        for cand in candidates:
            if cand.sha[:12].lower() in text or _names_pr(commit.message, cand.pr):
                return _say("relands", commit=commit.short_sha, candidate=cand.sha[:12])
    return None


def crossing_tonight(points: Sequence[SizePoint], point: SizePoint, thresholds: Thresholds) -> int:
    """+1 / -1 when tonight's step crosses the threshold up / down, else 0."""
    step = jump_on(points, point.date, thresholds, include_drops=True)
    if step is None:
        return 0
    return 1 if step.delta_bytes > 0 else -1


def decide(
    event: Event,
    previous: SizePoint | None,
    point: SizePoint,
    crossing: int,
    settings: Lifecycle,
    *,
    undone_by: str | None = None,
    relanded_by: str | None = None,
    back: bool | None = None,
) -> Verdict | None:
    """The lifecycle verdict for ``event`` on the night of ``point``; None: say nothing.

    ``crossing`` is tonight's threshold crossing (+1, -1, 0); ``undone_by`` and
    ``relanded_by`` are the attributions found in tonight's window (None: none found);
    ``back``: tonight is a return (:func:`new_return`; None: the plain edge, :func:`returned`).
    A crossing that neither returns nor re-lands a listed candidate is another event's news.
    """
    if point.date <= event.date:
        return None
    direction = 1 if event.after.size_bytes >= event.before.size_bytes else -1
    if back is None:
        back = returned(event, previous, point, settings)
    if back and undone_by is not None:
        return Verdict("rolled-back", event.variant, point, undone_by)
    if back:
        return Verdict("offset", event.variant, point, _say("offset"))
    if crossing == direction and relanded_by is not None:
        return Verdict("grew", event.variant, point, relanded_by)
    return None


def point_before(points: Sequence[SizePoint], point: SizePoint) -> SizePoint | None:
    """The last point before ``point`` (the night the step starts from)."""
    earlier = [p for p in points if p.date < point.date]
    return max(earlier, key=lambda p: p.date) if earlier else None

"""The one order of the candidates (issue 28 item 4): by the score shown, builds included.

A build that decides a candidate adds its points to the candidate's score — CONFIRMED
+1000, NOT CONFIRMED −1000, CLEARED −2000 — so measured data outweighs any reading of the
code, and the list is sorted by that score alone: the order always follows the scores it
shows. Ties keep the order given (the window's).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Protocol

from wheel_size.regressions.ranking.rank import Ranked, Reason
from wheel_size.render.templates import render_macro
from wheel_size.units import in_mb

__all__ = ["BUILD_POINTS", "Measured", "build_reason", "order_by_score"]

#: What a build's verdict is worth: measured data outweighs every code-level reading.
BUILD_POINTS = {"CONFIRMED": 1000.0, "NOT CONFIRMED": -1000.0, "CLEARED": -2000.0}


class Measured(Protocol):
    """What the order needs of a build verdict (``builds.evidence.BuildVerdict`` is one)."""

    @property
    def status(self) -> str: ...

    @property
    def delta_bytes(self) -> int | None: ...


def build_reason(verdict: Measured) -> Reason | None:
    """The build's line among the reasons, with its points (None: no build decides it)."""
    points = BUILD_POINTS.get(verdict.status)
    delta = verdict.delta_bytes
    if points is None or delta is None:
        return None
    moved = in_mb(delta, signed=True, digits=2)
    said = render_macro("ranking_reasons.txt.j2", "build_moved", moved=moved, status=verdict.status)
    return Reason("build", points, said)


def order_by_score(
    items: Sequence[Ranked], verdicts: Mapping[str, Measured] | None = None
) -> list[Ranked]:
    """``items`` with each build's reason and points added (replacing an older one), sorted
    by score (stable), ranks numbered from 1."""
    verdicts = verdicts or {}
    scored = []
    for item in items:
        kept = tuple(r for r in item.reasons if r.signal != "build")
        base = item.score - sum(r.points for r in item.reasons if r.signal == "build")
        verdict = verdicts.get(item.commit.sha)
        reason = build_reason(verdict) if verdict is not None else None
        reasons = (reason, *kept) if reason is not None else kept
        score = base + (reason.points if reason is not None else 0.0)
        scored.append(dataclasses.replace(item, reasons=reasons, score=round(score, 3)))
    order = sorted(range(len(scored)), key=lambda i: (-scored[i].score, i))
    return [dataclasses.replace(scored[i], rank=n) for n, i in enumerate(order, start=1)]

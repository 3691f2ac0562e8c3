"""The lifecycle and grouping rules over plain data (no GitHub)."""

from __future__ import annotations

import dataclasses
import datetime as dt

from test_issue_body import investigation

from wheel_size.regressions.events import Event
from wheel_size.regressions.issues.body import render_body
from wheel_size.regressions.issues.grouping import group_events, group_title, joins
from wheel_size.regressions.issues.lifecycle import (
    Lifecycle,
    Listed,
    attribute_return,
    decide,
    links_regrowth,
    new_return,
    returned,
)
from wheel_size.regressions.ranking.evidence import Status
from wheel_size.regressions.window.commits import Commit
from wheel_size.series import SizePoint
from wheel_size.units import MB

D = dt.date(2025, 10, 11)
L = Lifecycle()


def pt(day: int, mb: float, variant: str = "cuda12_8", month: int = 10) -> SizePoint:
    return SizePoint(dt.date(2025, month, day), variant, int(mb * MB), run_id=day)


def jump(variant: str, before: float, after: float, day: int = 11) -> Event:
    return Event("jump", variant, dt.date(2025, 10, day), pt(day - 1, before, variant),
                 pt(day, after, variant))  # fmt: skip


EV = jump("cuda12_8", 855.3, 859.6)


def test_an_unrelated_large_drop_says_nothing_on_the_issue() -> None:
    # -29.7 MB weeks later: far below the pre-event level; another event's news (issue 18:
    # no "offset" on every open issue for every later crossing).
    assert decide(EV, pt(20, 859.6), pt(21, 829.9), -1, L) is None
    # Even a revert in that window cannot make it a rollback: the size is not back.
    assert decide(EV, pt(20, 859.6), pt(21, 829.9), -1, L, undone_by="x") is None


def test_a_return_is_told_once_however_the_edge_wobbles() -> None:
    """Hysteresis: +4.3 MB (tolerance 1.075 MB); the size wobbles around the tolerance edge
    for a week: one return. It goes far away (+3 MB) and comes back: a second one."""
    sizes = {11: 859.6, 12: 856.5, 13: 856.2, 14: 856.5, 15: 856.3, 16: 856.5, 17: 856.2}
    points = [pt(10, 855.3)] + [pt(d, mb) for d, mb in sizes.items()]
    told = [p.date.day for p in points if new_return(EV, points, p, L)]
    assert told == [13]
    points += [pt(18, 858.5), pt(19, 855.6)]
    assert [p.date.day for p in points if new_return(EV, points, p, L)] == [13, 19]
    # An event already within tolerance of its start (a creep-sized step): no return to tell.
    small = jump("cuda12_8", 855.3, 856.0)
    flat = [pt(10, 855.3), pt(11, 856.0), pt(12, 855.9), pt(13, 855.4)]
    assert not any(new_return(small, flat, p, L) for p in flat)


def test_back_at_the_level_with_a_revert_is_a_rollback() -> None:
    verdict = decide(EV, pt(12, 859.7), pt(13, 855.4), -1, L, undone_by="abc reverts it")
    assert verdict is not None and verdict.state == "rolled-back"
    # Back, but no revert of a listed candidate: offset.
    assert decide(EV, pt(12, 859.7), pt(13, 855.4), -1, L).state == "offset"  # type: ignore[union-attr]


def test_drift_says_nothing_and_a_crossing_needs_a_reland() -> None:
    assert decide(EV, pt(12, 859.7), pt(13, 860.9), 0, L) is None  # +1.2 MB of drift
    assert decide(EV, pt(12, 859.7), pt(13, 863.0), 1, L) is None  # a new event
    grew = decide(EV, pt(12, 859.7), pt(13, 863.0), 1, L, relanded_by="reland")
    assert grew is not None and grew.state == "grew"
    assert decide(EV, pt(10, 855.3), pt(11, 859.6), 1, L) is None  # the event's own night


def test_returned_is_edge_triggered() -> None:
    assert returned(EV, pt(12, 859.7), pt(13, 855.4), L)
    assert not returned(EV, pt(13, 855.4), pt(14, 855.5), L)  # already back yesterday


def test_attribution_by_sha_or_pr_and_relands() -> None:
    listed = [Listed("f447a50971a0", 101), Listed("ed3e6034c67b", None)]
    revert_pr = Commit("1" * 40, 'Revert "Add kernels (#101)"')
    revert_sha = Commit("2" * 40, 'Revert "Docs"\n\nThis reverts commit ed3e6034c67b1234.')
    other = Commit("3" * 40, 'Revert "Something else (#1010)"')
    assert attribute_return(listed, [other]) is None
    assert attribute_return(listed, [revert_pr]) is not None
    assert attribute_return(listed, [revert_sha]) is not None
    assert links_regrowth(listed, [Commit("4" * 40, "Reland Add kernels (#101)")]) is not None
    assert links_regrowth(listed, [Commit("5" * 40, "Add kernels again (#101)")]) is None
    assert links_regrowth(listed, [Commit("6" * 40, "Reland other (#1010)")]) is None


def test_one_group_per_night_and_direction() -> None:
    a, b = jump("cpu", 175.0, 176.4), jump("cuda12_8", 855.3, 859.6)
    drop = jump("rocm7_0", 4342.0, 4300.0)
    creep = dataclasses.replace(jump("xpu", 690, 694), kind="creep")
    groups = group_events([a, b, drop, creep])
    assert [g.variants for g in groups] == [("cuda12_8", "cpu"), ("rocm7_0",), ("xpu",)]
    assert group_title(groups[0]) == "Wheel size: cuda12_8 +4.3 MB, cpu +1.4 MB on 2025-10-11"
    assert group_title(groups[1]) == "Wheel size: rocm7_0 -42.0 MB on 2025-10-11"
    assert joins([b], a) and not joins([b], drop) and not joins([b], b)
    assert not joins([b], jump("cpu", 175.0, 176.4, day=12))


def test_cc_only_for_a_confirmed_culprit_and_only_when_asked() -> None:
    inv = investigation(2)
    first = inv.candidates[0]
    commit = dataclasses.replace(first.classified.commit, login="octocat")
    confirmed = dataclasses.replace(
        first,
        classified=dataclasses.replace(first.classified, commit=commit),
        status=Status("CONFIRMED", "measured"),
    )
    inv.candidates[0] = confirmed
    assert "cc @octocat" not in render_body(inv, repo_url="https://github.com/o/r")
    assert "cc @octocat" in render_body(inv, repo_url="https://github.com/o/r", cc_culprit=True)
    inv.candidates[0] = dataclasses.replace(confirmed, status=Status("LIKELY", "text"))
    assert "cc @" not in render_body(inv, repo_url="https://github.com/o/r", cc_culprit=True)
    bad = dataclasses.replace(commit, login="evil\n@everyone")
    inv.candidates[0] = dataclasses.replace(
        confirmed, classified=dataclasses.replace(first.classified, commit=bad)
    )
    assert "cc @" not in render_body(inv, repo_url="https://github.com/o/r", cc_culprit=True)

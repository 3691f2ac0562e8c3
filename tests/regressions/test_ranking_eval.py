"""The evaluation set (tests/data/ranking): every culprit ranks in the top 3.

Each window is a night of a realistic kind (growth and shrink; CPU-, CUDA-, ROCm-, XPU-only,
all variants, specific toolkit versions, one Python) with decoys: test-only and docs commits,
CI configuration, other platforms, revert pairs, large refactors, commits naming a library
in passing. The weights are the same for every window (see regressions/rank.py).
"""

from __future__ import annotations

import pytest

from ranking_eval import DATA, evaluate, load_window, load_windows

WINDOWS = sorted(DATA.glob("*.yaml"))


def test_the_set_is_broad() -> None:
    windows = load_windows()
    assert len(windows) >= 30
    assert {w.direction for w in windows} == {"growth", "shrink"}
    assert sum(w.content is None for w in windows) >= 3  # some without the wheel diff


@pytest.mark.parametrize("path", WINDOWS, ids=[p.stem for p in WINDOWS])
def test_culprit_in_top_three(path) -> None:  # type: ignore[no-untyped-def]
    result = evaluate(load_window(path))
    assert result.rank is not None, "the culprit was removed as half of a revert pair"
    top = [f"{r.rank}. {r.commit.title} ({r.score})" for r in result.ranked[:3]]
    assert result.rank <= 3, f"culprit ranked {result.rank}: {top}"
    culprit = result.culprit
    assert culprit is not None and culprit.why()  # every candidate says why


@pytest.mark.parametrize("path", WINDOWS, ids=[p.stem for p in WINDOWS])
def test_culprit_in_top_three_without_the_wheel_contents(path) -> None:  # type: ignore[no-untyped-def]
    """The wheel diff is optional (expired artifacts): the other signals must suffice."""
    result = evaluate(load_window(path), use_content=False)
    assert result.rank is not None and result.rank <= 3


def test_most_culprits_rank_first() -> None:
    ranks = [evaluate(w).rank for w in load_windows()]
    assert sum(r == 1 for r in ranks) >= 0.8 * len(ranks)


def test_ranking_is_deterministic() -> None:
    window = load_windows()[3]
    first = [r.commit.sha for r in evaluate(window).ranked]
    assert all([r.commit.sha for r in evaluate(window).ranked] == first for _ in range(3))

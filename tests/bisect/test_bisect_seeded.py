"""Issue 28: with sparse builds that already exist in the window, the bracket narrows before
anything is built, and the bisection builds only inside what is left — fewer builds, the
culprit still found exactly, the bound K·(⌈log_{K+1} N⌉ + 1) + 2 per step kept."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bisect_world import ARTIFACT, MB, BisectWorld, make
from simfarm import FakeClock, SimFarm
from test_engine_bounds import EVENT, ceil_log, log_rounds, window

from cli_runner import run_main
from fakegithub import FakeGitHub
from wheel_size.bisect.document import bisect_document
from wheel_size.bisect.engine import Budget, advance
from wheel_size.bisect.state import Build, State


def _existing(order: list[str], sizes: dict[str, int], at: list[int]) -> list[Build]:
    return [
        Build(order[i], 0, 0, "", 0.0, "completed", 9000 + i, conclusion="success",
              size_bytes=sizes[order[i]], note="existed")
        for i in at
    ]  # fmt: skip


def _bisect(order: list[str], sizes: dict[str, int], k: int, at: list[int]) -> State:
    state = State(EVENT, order, MB // 2, existing=_existing(order, sizes, at))
    budget = Budget(builds_per_round=k, max_builds=500, max_rounds=50, wait=1e9, poll_interval=1)
    advance(state, SimFarm(lambda sha: sizes[sha]), budget, clock=FakeClock())
    return state


@pytest.mark.parametrize("seed", range(6))
def test_existing_builds_spend_fewer_builds_and_find_the_same_culprits(seed: int) -> None:
    rng = random.Random(2800 + seed)
    saved = 0
    for _ in range(25):
        n, k = rng.randint(8, 300), rng.randint(1, 4)
        steps = dict.fromkeys(rng.sample(range(1, n + 1), rng.choice([1, 2])), 0)
        for at in steps:
            steps[at] = rng.choice([1, -1]) * rng.randint(2, 20) * MB
        order, sizes = window(rng, n, steps, MB // 8)
        if abs(sizes[order[-1]] - sizes[order[0]]) <= MB // 2:
            continue  # a step and its revert: the nightlies would show no jump
        built = sorted(rng.sample(range(n + 1), rng.randint(1, max(1, n // 10))))
        plain, seeded = _bisect(order, sizes, k, []), _bisect(order, sizes, k, built)
        want = [order[i] for i in sorted(steps)]
        for state in (plain, seeded):
            doc = bisect_document(state)
            assert doc["state"] == "done", state.reason
            assert [c["sha"] for c in doc["culprits"]] == want
            assert doc["builds_spent"] <= len(steps) * (k * (ceil_log(n, k) + 1) + 2)
            assert doc["rounds"] <= log_rounds(n, k)
        assert {b.sha for b in seeded.builds}.isdisjoint(order[i] for i in built)
        saved += len(plain.builds) - len(seeded.builds)
    assert saved > 0


def _existing_run(w: BisectWorld, sha: str, size: int, *, event: str = "push") -> None:
    run = w.farm.workflow.add_run(
        created_at="2025-10-10T12:00:00Z", head_sha=sha, head_branch="main", event=event
    )
    run.add_artifact(ARTIFACT, size_in_bytes=size)


def _json(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert result.returncode == 0, result.stderr
    loaded: dict[str, Any] = json.loads(result.stdout)
    return loaded


def test_sparse_existing_builds_narrow_the_bracket_before_anything_is_built(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    n, at = 40, 23
    w = make(tmp_path, fake_github, n, {at: 6 * MB}, list_after=2)
    for i in (0, 10, 20, 30, n):  # the sizes the build workflow gives (bisect_world's)
        _existing_run(w, w.order[i], 900 * MB + (6 * MB if i >= at else 0))
    # A dispatched run names the branch's tip, not the commit it built: never read as one.
    _existing_run(w, w.order[n], 1, event="workflow_dispatch")
    env = {**fake_github.env(), "WHEEL_SIZE_GITHUB_RETRY": "total=1,backoff=0,between_writes=0"}
    doc = _json(run_main(w.args("--dispatch-input", "sha"), env=env))
    assert doc["state"] == "done" and [c["sha"] for c in doc["culprits"]] == [w.order[at]]
    assert [b["sha"] for b in doc["existing_builds"]] == [w.order[i] for i in (0, 10, 20, 30, n)]
    # The bracket was 21..30 before any build: ⌈log_4 10⌉ = 2 rounds of 3, no end built.
    assert doc["rounds"] <= 2 and doc["builds_spent"] <= 3 * 2
    assert all(w.order.index(b["sha"]) in range(21, 30) for b in doc["builds"])
    assert doc["builds_spent"] < 3 * (ceil_log(n, 3) + 1) + 2

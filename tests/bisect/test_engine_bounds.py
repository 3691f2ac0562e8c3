"""Property tests over generated windows: every culprit found exactly, within
K·(⌈log_{K+1} N⌉ + 1) + 2 builds per step and ⌈log_{K+1} N⌉ rounds (one round at least:
the window's ends are built in it), whatever N, K and where the steps are."""

from __future__ import annotations

import random

import pytest
from simfarm import FakeClock, SimFarm

from wheel_size.bisect.document import bisect_document
from wheel_size.bisect.engine import Budget, advance
from wheel_size.bisect.state import Event, State

MB = 1 << 20
EVENT = Event(
    "o/r",
    "nightly.yml",
    "2025-10-11",
    "cuda12_8",
    "py3_12",
    "build.yml",
    "dispatch:sha@main",
    "manywheel-py3_12-cuda12_8",
)


def ceil_log(n: int, k: int) -> int:
    """⌈log_{k+1} n⌉ in integers (floats make log(27, 3) 3.0000000000000004)."""
    rounds, reach = 0, 1
    while reach < n:
        reach *= k + 1
        rounds += 1
    return rounds


def log_rounds(n: int, k: int) -> int:
    return max(ceil_log(n, k), 1)


def window(
    rng: random.Random, n: int, steps: dict[int, int], jitter: int
) -> tuple[list[str], dict[str, int]]:
    order = [f"{i:040x}" for i in range(n + 1)]
    sizes, size = {}, 900 * MB
    for i, sha in enumerate(order):
        size += steps.get(i, 0)
        sizes[sha] = size + (rng.randint(-jitter, jitter) if jitter else 0)
    return order, sizes


def run(
    order: list[str],
    sizes: dict[str, int],
    k: int,
    noise: int,
    *,
    farm: SimFarm | None = None,
    budget: Budget | None = None,
) -> tuple[State, SimFarm]:
    farm = farm or SimFarm(lambda sha: sizes[sha])
    state = State(EVENT, order, noise)
    budget = budget or Budget(
        builds_per_round=k, max_builds=500, max_rounds=50, wait=1e9, poll_interval=1.0
    )
    advance(state, farm, budget, clock=FakeClock())
    return state, farm


@pytest.mark.parametrize("seed", range(12))
def test_one_step_found_within_the_bounds(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(25):
        n, k = rng.randint(1, 400), rng.randint(1, 5)
        at = rng.randint(1, n)
        order, sizes = window(rng, n, {at: rng.choice([1, -1]) * rng.randint(2, 40) * MB}, 0)
        state, _ = run(order, sizes, k, MB // 2)
        doc = bisect_document(state)
        assert doc["state"] == "done", (n, k, at, state.reason)
        assert [c["sha"] for c in doc["culprits"]] == [order[at]]
        assert doc["builds_spent"] <= k * (ceil_log(n, k) + 1) + 2
        assert doc["rounds"] <= log_rounds(n, k)


@pytest.mark.parametrize("seed", range(8))
def test_two_steps_with_noise_between(seed: int) -> None:
    rng = random.Random(1000 + seed)
    for _ in range(20):
        n, k = rng.randint(2, 300), rng.randint(1, 4)
        a, b = sorted(rng.sample(range(1, n + 1), 2))
        steps = {a: rng.randint(2, 20) * MB, b: rng.choice([1, -1]) * rng.randint(2, 20) * MB}
        order, sizes = window(rng, n, steps, MB // 8)
        if abs(sizes[order[-1]] - sizes[order[0]]) <= MB // 2:
            continue  # a step and its revert: the nightlies would show no jump
        state, _ = run(order, sizes, k, MB // 2)
        doc = bisect_document(state)
        assert doc["state"] == "done", state.reason
        assert [c["sha"] for c in doc["culprits"]] == [order[a], order[b]]
        per_step = k * (ceil_log(n, k) + 1) + 2
        assert doc["builds_spent"] <= 2 * per_step
        assert doc["rounds"] <= log_rounds(n, k)


def test_failed_builds_retried_once_then_skipped_and_bisected_around() -> None:
    rng = random.Random(7)
    n, at = 40, 23
    order, sizes = window(rng, n, {at: 5 * MB}, 0)
    broken = {order[i] for i in (10, 20, 25, 26)}
    farm = SimFarm(lambda sha: None if sha in broken else sizes[sha], fail_first={order[30]})
    state, farm = run(order, sizes, 3, MB // 2, farm=farm)
    doc = bisect_document(state)
    assert doc["state"] == "done" and [c["sha"] for c in doc["culprits"]] == [order[at]]
    tries = {sha: farm.started.count(sha) for sha in set(farm.started)}
    assert all(tries[sha] == 2 for sha in broken if sha in tries)  # retried once, then skipped
    assert tries[order[30]] == 2 and sizes[order[30]] in state.sizes().values()


def test_every_splitting_commit_broken_leaves_the_bracket_said_not_guessed() -> None:
    rng = random.Random(3)
    order, sizes = window(rng, 6, {4: 5 * MB}, 0)
    farm = SimFarm(lambda sha: None if sha in order[1:6] and sha != order[0] else sizes[sha])
    state, _ = run(order, sizes, 2, MB // 2, farm=farm)
    doc = bisect_document(state)
    assert doc["state"] == "gave-up" and doc["culprits"] == []
    assert "failed to build" in (doc["reason"] or "")
    assert doc["brackets"] and doc["brackets"][0]["suspects"] == 6


def test_a_run_that_never_finishes_is_cancelled_and_said() -> None:
    order, sizes = window(random.Random(1), 9, {5: 3 * MB}, 0)
    never = order[3]
    farm = SimFarm(lambda sha: "never" if sha == never else sizes[sha])
    budget = Budget(builds_per_round=1, wait=1e9, poll_interval=60.0, build_timeout=600.0)
    state, farm = run(order, sizes, 1, MB // 2, farm=farm, budget=budget)
    timed = [b for b in state.builds if b.sha == never]
    assert [b.conclusion for b in timed] == ["timed-out", "timed-out"]
    assert len(farm.cancelled) == 2 and "cancelled" in (timed[0].note or "")
    assert state.state == "done" and bisect_document(state)["culprits"][0]["sha"] == order[5]


def test_wait_runs_out_then_resume_finishes_the_same() -> None:
    order, sizes = window(random.Random(2), 100, {61: 4 * MB}, 0)
    farm = SimFarm(lambda sha: sizes[sha], looks_to_finish=3)
    state = State(EVENT, order, MB // 2)
    clock = FakeClock()
    budget = Budget(builds_per_round=3, wait=0.0, poll_interval=1.0)
    calls = 0
    while state.state == "pending":
        advance(state, farm, budget, clock=clock)
        calls += 1
        assert calls < 50
    assert calls > 3 and bisect_document(state)["culprits"][0]["sha"] == order[61]
    assert state.rounds <= log_rounds(100, 3)


def test_budgets_stop_it_and_say_so() -> None:
    order, sizes = window(random.Random(4), 200, {150: 4 * MB}, 0)
    state, _ = run(
        order,
        sizes,
        1,
        MB // 2,
        budget=Budget(builds_per_round=1, max_builds=4, wait=1e9, poll_interval=1),
    )
    assert state.state == "gave-up" and "build budget (4 builds)" in (state.reason or "")
    assert len(state.builds) == 4 and bisect_document(state)["culprits"] == []
    state, _ = run(
        order,
        sizes,
        1,
        MB // 2,
        budget=Budget(builds_per_round=1, max_rounds=2, wait=1e9, poll_interval=1),
    )
    assert state.state == "gave-up" and "round budget (2)" in (state.reason or "")


def test_ends_that_do_not_reproduce_the_jump_claim_nothing() -> None:
    order, sizes = window(random.Random(5), 20, {}, 0)
    state, _ = run(order, sizes, 3, MB // 2)
    doc = bisect_document(state)
    assert doc["state"] == "gave-up" and doc["culprits"] == []
    assert "does not reproduce" in (doc["reason"] or "") and doc["rounds"] == 1


def test_a_wheel_under_another_name_stops_at_once() -> None:
    order, sizes = window(random.Random(6), 20, {3: 4 * MB}, 0)
    farm = SimFarm(lambda sha: sizes[sha], artifact="wheel-py3_12-cu128")
    state, _ = run(order, sizes, 3, MB // 2, farm=farm)
    assert state.state == "gave-up" and state.rounds == 1
    assert "uploaded no artifact 'manywheel-py3_12-cuda12_8'" in (state.reason or "")
    assert "wheel-py3_12-cu128" in (state.reason or "")


def test_one_commit_window_builds_its_two_ends() -> None:
    order, sizes = window(random.Random(8), 1, {1: 4 * MB}, 0)
    state, _ = run(order, sizes, 3, MB // 2)
    assert bisect_document(state)["culprits"][0]["sha"] == order[1] and len(state.builds) == 2
    state, farm = run(order[:1], sizes, 3, MB // 2)
    assert state.state == "gave-up" and "no commit" in (state.reason or "") and not farm.started

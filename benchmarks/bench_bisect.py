"""Bisection with builds: builds and rounds spent over generated windows against the bounds
K·(⌈log_{K+1} N⌉ + 1) + 2 builds per step and ⌈log_{K+1} N⌉ rounds, how often the culprit is
exact, and the GitHub requests of a whole bisection through the fake server.

The windows come from seeds the tests never use (50,000 on): a blind set.

usage: python benchmarks/bench_bisect.py
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "bisect"), str(ROOT / "tests"), str(ROOT / "src")]

from simfarm import FakeClock, SimFarm  # noqa: E402

from wheel_size.bisect.document import bisect_document  # noqa: E402
from wheel_size.bisect.engine import Budget, advance  # noqa: E402
from wheel_size.bisect.state import Build, Event, State  # noqa: E402

MB = 1 << 20
EVENT = Event("o/r", "n.yml", "2025-10-11", "cuda12_8", "py3_12", "b.yml", "dispatch:sha@main",
              "manywheel-py3_12-cuda12_8")  # fmt: skip
BLIND_SEED = 50_000
WINDOWS = 300


def ceil_log(n: int, k: int) -> int:
    rounds, reach = 0, 1
    while reach < n:
        reach *= k + 1
        rounds += 1
    return rounds


def one(
    rng: random.Random,
    n: int,
    k: int,
    steps: int,
    fail_share: float,
    existing: float = 0.0,
    pick: random.Random | None = None,
) -> dict[str, float]:
    order = [f"{i:040x}" for i in range(n + 1)]
    at = sorted(rng.sample(range(1, n + 1), steps))
    sizes, size = {}, 900 * MB
    for i, sha in enumerate(order):
        size += (rng.randint(2, 20) * MB) if i in at else 0
        sizes[sha] = size + rng.randint(-MB // 16, MB // 16)  # build-to-build noise
    broken = {sha for sha in order[1:-1] if rng.random() < fail_share}
    farm = SimFarm(lambda sha: None if sha in broken else sizes[sha])
    state = State(EVENT, order, MB // 2)
    # Builds that exist before the bisection (issue 28): a share of the commits, anywhere.
    for i in sorted((pick or rng).sample(range(n + 1), round(existing * (n + 1)))):
        state.existing.append(Build(order[i], 0, 0, "", 0.0, "completed", conclusion="success",
                                    size_bytes=sizes[order[i]]))  # fmt: skip
    budget = Budget(builds_per_round=k, max_builds=10_000, max_rounds=100, wait=1e12,
                    poll_interval=1.0)  # fmt: skip
    advance(state, farm, budget, clock=FakeClock())
    doc = bisect_document(state)
    found = [c["sha"] for c in doc["culprits"]]
    truth = [order[i] for i in at]
    return {
        "exact": float(found == truth),
        "wrong": float(any(sha not in truth for sha in found)),
        "builds": doc["builds_spent"],
        "bound": steps * (k * (ceil_log(n, k) + 1) + 2),
        "rounds": doc["rounds"],
        "round_bound": max(ceil_log(n, k), 1),
    }


def search_table() -> list[str]:
    lines = [
        "| N | K | steps | failing commits | exact | wrong claims | builds mean / max "
        "(bound) | rounds max (bound) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    rng = random.Random(BLIND_SEED)
    for n in (10, 50, 200, 1000):
        for k in (1, 3, 5):
            for steps, fail in ((1, 0.0), (2, 0.0), (1, 0.1)):
                runs = [one(rng, n, k, steps, fail) for _ in range(WINDOWS)]
                builds = [r["builds"] for r in runs]
                lines.append(
                    f"| {n} | {k} | {steps} | {fail:.0%} | "
                    f"{sum(r['exact'] for r in runs) / len(runs):.1%} | "
                    f"{int(sum(r['wrong'] for r in runs))} | "
                    f"{statistics.mean(builds):.1f} / {max(builds):.0f} "
                    f"({runs[0]['bound']:.0f}) | "
                    f"{max(r['rounds'] for r in runs):.0f} ({runs[0]['round_bound']:.0f}) |"
                )
    return lines


def seeded_table() -> list[str]:
    """The same windows with and without builds that already exist (a share of the
    commits): builds spent, and whether the culprits stay exact."""
    lines = [
        "| N | K | steps | existing builds | exact | builds mean / max (bound) |",
        "|---|---|---|---|---|---|",
    ]
    for n in (50, 200, 1000):
        for steps in (1, 2):
            for share in (0.0, 0.02, 0.05, 0.1):
                rng = random.Random(BLIND_SEED + 7 * n + steps)  # same windows for each share
                pick = random.Random(BLIND_SEED - n)
                runs = [one(rng, n, 3, steps, 0.0, share, pick) for _ in range(WINDOWS // 3)]
                builds = [r["builds"] for r in runs]
                lines.append(
                    f"| {n} | 3 | {steps} | {share:.0%} | "
                    f"{sum(r['exact'] for r in runs) / len(runs):.1%} | "
                    f"{statistics.mean(builds):.1f} / {max(builds):.0f} ({runs[0]['bound']:.0f}) |"
                )
    return lines


def requests_table() -> list[str]:
    from bisect_world import make

    from cli_runner import run_main
    from fakegithub import FakeGitHub

    lines = [
        "| trigger | N | K | builds | rounds | requests | requests / build | wall s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    env = {"WHEEL_SIZE_GITHUB_RETRY": "total=1,backoff=0,between_writes=0"}
    for label, extra, farm in (
        ("dispatch, run id returned", ["--dispatch-input", "sha"], {}),
        ("dispatch, found by title", ["--dispatch-input", "sha"], {"return_run_details": False}),
        ("tag (PAT)", ["--tag-pattern", "ciflow/binaries/{sha}"],
         {"tag_pattern": r"ciflow/binaries/.*"}),
    ):  # fmt: skip
        with FakeGitHub() as fake, tempfile.TemporaryDirectory() as tmp:
            fake.token_user = "release-bot"
            w = make(Path(tmp), fake, 100, {61: 4 * MB}, list_after=2, **farm)
            before = len(fake.requests)
            start = time.perf_counter()
            result = run_main(w.args(*extra, "--poll-interval", "0.01"), env={**fake.env(), **env})
            wall = time.perf_counter() - start
            doc = json.loads(result.stdout)
            assert [c["sha"] for c in doc["culprits"]] == [w.order[61]], result.stderr
            spent = len(fake.requests) - before
            lines.append(
                f"| {label} | 100 | 3 | {doc['builds_spent']} | {doc['rounds']} | {spent} | "
                f"{spent / doc['builds_spent']:.1f} | {wall:.2f} |"
            )
    return lines


def main() -> None:
    argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0]).parse_args()
    start = time.perf_counter()
    print("\n".join(search_table()))
    print(f"\n({time.perf_counter() - start:.1f} s for the search table)\n")
    print("\n".join(seeded_table()) + "\n")
    print("\n".join(requests_table()))


if __name__ == "__main__":
    main()

"""An in-memory CI for the engine's property tests: a run per build, finishing after a few
looks, with a size per commit from the scenario (None: the build fails; "never": it never
finishes). The GitHub-shaped behaviour (dispatch, delayed listing, tags) is the fake
server's, tested through PyGithub in test_github_trigger.py."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wheel_size.ports.trigger import RunView, Started


@dataclass
class FakeClock:
    t: float = 1_760_000_000.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


@dataclass
class SimFarm:
    size: Callable[[str], int | str | None]
    artifact: str = "manywheel-py3_12-cuda12_8"
    looks_to_finish: int = 2
    fail_first: set[str] = field(default_factory=set)
    runs: dict[int, list[Any]] = field(default_factory=dict)  # id -> [sha, looks, cancelled, fail]
    started: list[str] = field(default_factory=list)
    cancelled: list[int] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    how = "a simulated CI"

    def start(self, sha: str) -> Started:
        run_id = next(self._ids)
        self.runs[run_id] = [sha, 0, False, sha in self.fail_first and sha not in self.started]
        self.started.append(sha)
        return Started(sha, "2025-10-11T00:00:00Z", run_id, f"https://ci/{run_id}")

    def look(self, started: Started, taken: frozenset[int]) -> RunView | None:
        assert started.run_id is not None and started.run_id not in taken
        entry = self.runs[started.run_id]
        sha, looks, cancelled, fail = entry
        entry[1] = looks + 1
        url = f"https://ci/{started.run_id}"
        if cancelled:
            return RunView(started.run_id, url, "completed", "cancelled")
        size = self.size(sha)
        if size == "never" or entry[1] < self.looks_to_finish:
            return RunView(started.run_id, url, "in_progress", None)
        if size is None or fail:
            return RunView(started.run_id, url, "completed", "failure")
        return RunView(started.run_id, url, "completed", "success", ((self.artifact, int(size)),))

    def cancel(self, run_id: int) -> None:
        self.runs[run_id][2] = True
        self.cancelled.append(run_id)

    def clean(self, started: Started) -> None:
        return None

"""The rounds over the real GitHub trigger (PyGithub, the fake server on 127.0.0.1) with an
injected clock: a run that never finishes is cancelled after the time per build, on the
server, without waiting for it."""

from __future__ import annotations

from pathlib import Path

from bisect_world import MB, make
from simfarm import FakeClock

from fakegithub import FakeGitHub
from fakegithub.dispatch import NEVER
from wheel_size.bisect.document import bisect_document
from wheel_size.bisect.engine import Budget, advance
from wheel_size.bisect.state import Event, State
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort

FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)
EVENT = Event("pytorch/pytorch", "", "2025-10-11", "cuda12_8", "py3_12", "build.yml",
              "dispatch:sha@main", "manywheel-py3_12-cuda12_8")  # fmt: skip


def test_a_run_that_never_finishes_is_cancelled_on_github(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    never: set[str] = set()
    w = make(tmp_path, fake_github, 16, {11: 5 * MB},
             size=lambda sha, plain: NEVER if sha in never else plain)  # fmt: skip
    never.add(w.order[8])
    port = PyGithubPort(connect(fake_github.token, fake_github.url, retry=FAST))
    trigger = port.build_trigger(
        "pytorch/pytorch", workflow="build.yml", dispatch_input="sha", dispatch_ref="main",
        tag_pattern=None,
    )  # fmt: skip
    state = State(EVENT, list(w.order), MB // 2)
    budget = Budget(builds_per_round=3, wait=1e9, poll_interval=60.0, build_timeout=3600.0)
    advance(state, trigger, budget, clock=FakeClock())
    doc = bisect_document(state)
    assert [c["sha"] for c in doc["culprits"]] == [w.order[11]]
    timed = [b for b in doc["builds"] if b["sha"] == w.order[8]]
    assert [b["conclusion"] for b in timed] == ["timed-out", "timed-out"]
    assert all("did not finish in 3600 s: cancelled" in (b["note"] or "") for b in timed)
    cancelled = {r.id for r in w.farm.workflow.runs if r.conclusion == "cancelled"}
    assert cancelled == {b["run_id"] for b in timed}

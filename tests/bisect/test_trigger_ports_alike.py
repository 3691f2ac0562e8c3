"""One bisection through each GitHub port's build trigger (``PyGithubPort`` over the fake
server, ``MemoryGitHub`` over the same kind of world in memory): the same builds, the same
notes, the same culprit, for each way of starting a build."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from bisect_world import MB, BisectWorld, make
from simfarm import FakeClock

from fakegithub import FakeGitHub
from fakegithub.dispatch import NEVER, tags
from fakegithub.memory import MemoryGitHub
from wheel_size.bisect.document import bisect_document
from wheel_size.bisect.engine import Budget, advance
from wheel_size.bisect.state import Event, State
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.ports import GitHubPort

FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)
REPO = "pytorch/pytorch"
PATTERN = "ciflow/binaries/{sha}"
_RUN = re.compile(r"run \d+")  # each world numbers its runs


def _world(tmp: Path, fake: FakeGitHub, how: str) -> BisectWorld:
    never: set[str] = set()
    farm: dict[str, Any] = {"return_run_details": how != "dispatch-by-title"}
    if how == "tag":
        farm["tag_pattern"] = r"ciflow/binaries/[0-9a-f]{40}"
        fake.token_user = "size-bot"  # a GITHUB_TOKEN's tag would start no run
    w = make(tmp, fake, 16, {11: 5 * MB},
             size=lambda sha, plain: NEVER if sha in never else plain, **farm)  # fmt: skip
    never.add(w.order[8])
    w.farm.fail_first.add(w.order[6])  # built in the second round
    return w


def _bisect(port: GitHubPort, w: BisectWorld, how: str) -> dict[str, Any]:
    tag = how == "tag"
    trigger = port.build_trigger(
        REPO, workflow="build.yml", dispatch_input=None if tag else "sha",
        dispatch_ref=None, tag_pattern=PATTERN if tag else None,
    )  # fmt: skip
    key = f"tag:{PATTERN}" if tag else "dispatch:sha@(default branch)"
    event = Event(REPO, "", "2025-10-11", "cuda12_8", "py3_12", "build.yml", key,
                  "manywheel-py3_12-cuda12_8")  # fmt: skip
    state = State(event, list(w.order), MB // 2)
    budget = Budget(builds_per_round=3, wait=1e9, poll_interval=60.0, build_timeout=3600.0)
    advance(state, trigger, budget, clock=FakeClock())
    doc = bisect_document(state)
    index = {sha: n for n, sha in enumerate(w.order)}  # the two worlds' commits, by place
    builds = [
        (index[b["sha"]], b["conclusion"], b["size_bytes"], _RUN.sub("run N", b["note"] or ""))
        for b in doc["builds"]
    ]
    return {"culprits": [index[c["sha"]] for c in doc["culprits"]], "builds": builds,
            "how": trigger.how, "state": state.state}  # fmt: skip


@pytest.mark.parametrize("how", ["dispatch", "dispatch-by-title", "tag"])
def test_both_ports_bisect_alike(
    tmp_path: Path, fake_github: FakeGitHub, github_world: FakeGitHub, how: str
) -> None:
    served = _world(tmp_path / "http", fake_github, how)
    http = _bisect(PyGithubPort(connect(fake_github.token, fake_github.url, retry=FAST)),
                   served, how)  # fmt: skip
    held = _world(tmp_path / "memory", github_world, how)
    memory = _bisect(MemoryGitHub(github_world), held, how)
    assert memory["culprits"] == [11]
    assert {b[1] for b in memory["builds"]} >= {"success", "failure", "timed-out"}
    assert memory == http
    for fake in (fake_github, github_world):
        assert tags(fake, fake.repo(REPO)) == {}  # every tag cleaned

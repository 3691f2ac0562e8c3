"""Retries that back off enough to store every night (issue 17, point 6): under load, 4 of
36 concurrent writers gave up after 10 linearly spaced push attempts. A writer that keeps
losing the race now waits exponentially longer (with jitter) for up to 30 attempts; a
refusal that is no race (a hook, a protected branch) still ends after a few."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from history_factory import run
from wheel_size.errors import HistoryError
from wheel_size.history import GitBranchStore
from wheel_size.history.gitstore import REFUSED_ATTEMPTS
from wheel_size.history.store import WriteResult, apply_runs


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    git("init", "-q", "--bare", "-b", "main", str(bare))
    return bare


def test_delays_grow_exponentially_with_jitter_up_to_a_cap(remote: Path) -> None:
    store = GitBranchStore(str(remote), backoff=1.0, max_backoff=30.0, rng=random.Random(7))
    with store:
        delays = [store.delay(attempt) for attempt in range(1, 12)]
    spans = [1, 2, 4, 8, 16, 30, 30, 30, 30, 30, 30]
    for delay, span in zip(delays, spans, strict=True):
        assert span / 2 <= delay <= span
    assert len(set(delays)) == len(delays)  # jittered: no two writers wait in lockstep


@pytest.mark.slow
def test_a_writer_that_loses_twenty_races_still_stores_its_night(remote: Path) -> None:
    """Another writer lands a night between every fetch and push of ours, twenty times."""
    rivals = iter([run(f"2025-09-{day:02d}", {"cpu": 1.0}) for day in range(1, 21)])
    sleeps: list[float] = []
    mine = run("2025-10-11", {"cpu": 2.0})

    def change(root: Path) -> list[str]:
        rival = next(rivals, None)
        if rival is not None:  # the race is lost: the branch moves before our push
            with GitBranchStore(str(remote), backoff=0) as other:
                other.write_runs([rival])
        return apply_runs(root, [mine], WriteResult())

    with GitBranchStore(str(remote), sleep=sleeps.append, rng=random.Random(1)) as store:
        result = store.update(change, "mine")
        assert result.commit
        dates = [r.date.isoformat() for r in store.read_runs()]
    assert "2025-10-11" in dates and len(dates) == 21  # ours and every rival's: none lost
    assert len(sleeps) == 20  # ten attempts were the old limit
    assert sleeps[:5] == sorted(sleeps[:5]) and max(sleeps) <= 30


def test_a_refusal_that_is_no_race_ends_after_a_few_attempts(remote: Path) -> None:
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected branch' >&2\nexit 1\n")
    hook.chmod(0o755)
    sleeps: list[float] = []
    with (
        GitBranchStore(str(remote), sleep=sleeps.append) as store,
        pytest.raises(HistoryError, match=rf"push rejected after {REFUSED_ATTEMPTS} attempts"),
    ):
        store.write_runs([run("2025-10-11", {"cpu": 1.0})])
    assert len(sleeps) == REFUSED_ATTEMPTS - 1

"""Bisection states beside the history: read once with the hostile-branch rules, written once,
a damaged one refused naming its path."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel_size.bisect.keep import DirectoryKeeper, StoreKeeper, state_name
from wheel_size.bisect.state import Event, State
from wheel_size.errors import InputError
from wheel_size.history import DirectoryStore

EVENT = Event("o/r", "n.yml", "2025-10-11", "cuda12_8", "py3_12", "b.yml", "tag:t/{sha}", "w")


def test_store_keeper_round_trip_and_pending(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "h")
    keeper = StoreKeeper(store)
    assert keeper.load(EVENT) is None and keeper.pending("o/r") == []
    state = State(EVENT, ["a" * 40, "b" * 40], 10, issue=7)
    keeper.save(state)
    assert not (tmp_path / "h" / "bisections").exists()  # written once, at flush
    keeper.flush()
    again = StoreKeeper(store)
    assert again.pending("o/r") == [("cuda12_8", "2025-10-11")] and again.pending("x/y") == []
    loaded = again.load(EVENT)
    assert loaded is not None and loaded.issue == 7 and loaded.window == state.window


def test_damaged_or_linked_states_are_named_never_used(tmp_path: Path) -> None:
    root = tmp_path / "h"
    path = root / "bisections" / "cuda12_8" / "2025-10-11.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"schema": 1, "event": ')
    with pytest.raises(InputError, match=r"bisections/cuda12_8/2025-10-11\.json: damaged"):
        StoreKeeper(DirectoryStore(root)).load(EVENT)
    path.unlink()
    (tmp_path / "elsewhere.json").write_text("{}")
    path.symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(InputError, match="damaged bisection state"):
        StoreKeeper(DirectoryStore(root)).load(EVENT)


def test_names_that_could_leave_the_directory_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        state_name("../x", "2025-10-11")
    with pytest.raises(InputError):
        state_name("cuda12_8", "../../x")
    keeper = DirectoryKeeper(tmp_path / "d")
    keeper.save(State(EVENT, [], 0))
    assert [p.name for p in (tmp_path / "d").iterdir()] == ["cuda12_8-2025-10-11.json"]


def test_on_a_data_branch_one_commit_and_read_back(tmp_path: Path) -> None:
    import subprocess

    from wheel_size.history import GitBranchStore

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], check=True, capture_output=True, text=True)
        return done.stdout.strip()

    bare = tmp_path / "remote.git"
    git("init", "-q", "--bare", "-b", "main", str(bare))
    with GitBranchStore(str(bare), backoff=0) as store:
        keeper = StoreKeeper(store)
        for rounds in range(3):  # saved after every change, written once
            keeper.save(State(EVENT, ["a" * 40, "b" * 40], 10, rounds=rounds))
        keeper.flush()
    files = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "wheel-size-data")
    assert "bisections/cuda12_8/2025-10-11.json" in files.splitlines()
    assert git("--git-dir", str(bare), "rev-list", "--count", "wheel-size-data") == "1"
    with GitBranchStore(str(bare), backoff=0) as store:
        loaded = StoreKeeper(store).load(EVENT)
    assert loaded is not None and loaded.rounds == 2

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

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from history_factory import run
from wheel_size.errors import HistoryError
from wheel_size.history import DirectoryStore, load_history, read_bundle, write_bundle
from wheel_size.history.recordfile import drain_skipped


def test_one_file_per_run_and_idempotent(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "h")
    runs = [run("2025-10-11", {"cpu": 1.0}), run("2025-10-12", {"cpu": 1.1})]
    first = store.write_runs(runs)
    assert first.changed == [
        "runs/2025/10/2025-10-11/202510110.json",
        "runs/2025/10/2025-10-12/202510120.json",
    ]
    before = {p: p.read_bytes() for p in (tmp_path / "h").rglob("*.json")}
    again = store.write_runs(runs)
    assert again.changed == []
    assert again.unchanged == 2
    assert {p: p.read_bytes() for p in (tmp_path / "h").rglob("*.json")} == before
    assert not list((tmp_path / "h").rglob("*.tmp"))


def test_read_range_and_sorting(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path)
    store.write_runs(
        [
            run("2025-12-31", {"cpu": 3.0}),
            run("2025-10-11", {"cpu": 1.0}, run_id=2, created="15:00:00"),
            run("2025-10-11", {"cpu": 1.5}, run_id=9, created="07:00:00"),
            run("2026-01-01", {"cpu": 4.0}),
        ]
    )
    got = store.read_runs(dt.date(2025, 10, 11), dt.date(2025, 12, 31))
    assert [(str(r.date), r.run_id) for r in got] == [
        ("2025-10-11", 9),
        ("2025-10-11", 2),
        ("2025-12-31", 202512310),
    ]
    history = load_history(store, dt.date(2025, 10, 1), dt.date(2025, 10, 31))
    # several runs a night: the latest created run that has the artifact
    assert history.pick("manywheel-py3_12-cpu")[dt.date(2025, 10, 11)].run.run_id == 2


def test_corrupt_file_is_named_and_skipped(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path)
    store.write_runs([run("2025-10-11", {"cpu": 1.0})])
    f = next(tmp_path.rglob("*.json"))
    f.write_text("{not json")
    drain_skipped()
    assert store.read_runs() == []  # skipped, not fatal (tests/history/test_hostile_records.py)
    (skipped,) = drain_skipped()
    assert re.search(r"2025-10-11/202510110\.json: not valid JSON", skipped.message)


def test_misplaced_file_is_skipped(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path)
    store.write_runs([run("2025-10-11", {"cpu": 1.0})])
    f = next(tmp_path.rglob("*.json"))
    f.rename(f.with_name("5.json"))
    drain_skipped()
    assert store.read_runs() == []
    (skipped,) = drain_skipped()
    assert "not where run" in skipped.message


def test_bundle_round_trip(tmp_path: Path) -> None:
    runs = [run("2025-10-11", {"cpu": 1.0}), run("2025-10-12", {})]
    write_bundle(tmp_path / "b.json", runs)
    assert json.loads((tmp_path / "b.json").read_text())["schema"] == "wheel-size/records"
    assert read_bundle(tmp_path / "b.json") == runs
    (tmp_path / "x.json").write_text('{"schema": "other"}')
    with pytest.raises(HistoryError, match="not a wheel-size record file"):
        read_bundle(tmp_path / "x.json")


def test_history_filters_by_workflow(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path)
    store.write_runs([run("2025-10-11", {"cpu": 1.0})])
    assert len(load_history(store, workflow=21257348).runs) == 1
    assert len(load_history(store, workflow="nightly.yml").runs) == 1
    assert len(load_history(store, workflow="other.yml").runs) == 0
    assert len(load_history(store, repository="PyTorch/PyTorch").runs) == 1


def test_stored_files_match_documented_schema(tmp_path: Path) -> None:
    import jsonschema

    schema = json.loads(
        (Path(__file__).resolve().parents[2] / "docs" / "history-format.schema.json").read_text()
    )
    example = Path(__file__).resolve().parents[2] / "examples" / "history"
    files = sorted(example.rglob("runs/**/*.json"))
    assert len(files) > 150
    for f in files[:: len(files) // 20]:
        jsonschema.validate(json.loads(f.read_text()), schema)

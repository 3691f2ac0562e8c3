"""Hostile record files. On the data branch (anyone who can push can plant one, and every
later nightly reads it) a bad record is skipped and named, never fatal, never rewritten; a
record file the user gives on the command line (`store`, `track --records`) is input: one
line, exit 2, nothing stored."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_runner import run_main
from conftest import run_cli
from history_factory import run
from wheel_size.errors import HistoryError
from wheel_size.history import DirectoryStore, read_bundle, write_bundle
from wheel_size.history.model import run_from_json, run_to_json
from wheel_size.history.recordfile import MAX_RECORD_BYTES, drain_skipped

DAY = "2025-10-11"
GOOD = run(DAY, {"cpu": 175.0}, run_id=7)


def _record_text(**changes: object) -> str:
    data = json.loads(run_to_json(run(DAY, {"cpu": 1.0}, run_id=5)))
    data.update(changes)
    return json.dumps(data)


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


# name -> (file content, expected problem); each is planted as runs/…/2025-10-11/5.json
HOSTILE: dict[str, tuple[bytes, str]] = {
    "deep nesting": (_deep(200_000).encode(), "nested too deeply"),
    "deep nesting in a field": (
        _record_text(title=None).replace('"title": null', '"title": ' + _deep(100_000)).encode(),
        "nested too deeply",
    ),
    "lone surrogate": (_record_text(title="\ud800").encode(), "lone surrogate"),
    "300-digit run id": (
        _record_text().replace('"run_id": 5', '"run_id": ' + "9" * 300).encode(),
        "out of range",
    ),
    "10,000-digit run id": (
        _record_text().replace('"run_id": 5', '"run_id": ' + "9" * 10_000).encode(),
        "not valid JSON",
    ),
    "wrong types": (_record_text(artifacts=[{"name": 3}]).encode(), "not an artifact object"),
    "float size": (
        _record_text(artifacts=[{"name": "a", "size_in_bytes": 1e308}]).encode(),
        "wrong type",
    ),
    "NaN size": (
        _record_text().replace('"size_in_bytes": 1048576', '"size_in_bytes": NaN').encode(),
        "wrong type",
    ),
    "not UTF-8": (b'{"schema": "\xff\xfe"}', "not UTF-8 text"),
    "UTF-16": (_record_text().encode("utf-16"), "not UTF-8 text"),
    "empty": (b"", "not valid JSON"),
    "not an object": (b"[1, 2, 3]", "not a JSON object"),
    "huge": (b" " * (MAX_RECORD_BYTES + 1), "more than the 1,048,576 bytes"),
    "valid record in the wrong place": (
        run_to_json(run(DAY, {"cpu": 1.0}, run_id=6)).encode(),
        "not where run 6",
    ),
}


def _store_with(tmp_path: Path, content: bytes) -> tuple[DirectoryStore, Path]:
    store = DirectoryStore(tmp_path / "h")
    store.write_runs([GOOD])
    planted = tmp_path / "h" / "runs" / "2025" / "10" / DAY / "5.json"
    planted.write_bytes(content)
    return store, planted


@pytest.mark.parametrize("case", list(HOSTILE))
def test_stored_hostile_record_is_skipped_and_named(tmp_path: Path, case: str) -> None:
    content, problem = HOSTILE[case]
    store, planted = _store_with(tmp_path, content)
    drain_skipped()
    assert store.read_runs() == [GOOD]  # the good night is still there
    assert store.read_runs() == [GOOD]  # read twice, reported once
    (skipped,) = drain_skipped()
    assert skipped.path.endswith(f"{DAY}/5.json")
    assert problem in skipped.message
    assert "\n" not in skipped.message and len(skipped.message) <= 400
    assert planted.read_bytes() == content  # nothing rewritten


def test_special_files_are_refused_without_blocking(tmp_path: Path) -> None:
    store, planted = _store_with(tmp_path, b"")
    planted.unlink()
    day = planted.parent
    os.mkfifo(day / "5.json")  # a reader opening it blocking would wait forever
    (day / "6.json").symlink_to("/dev/zero")  # a reader following it would read forever
    (day / "8.json").mkdir()
    outside = tmp_path / "secret.json"
    outside.write_text(run_to_json(run(DAY, {"cpu": 1.0}, run_id=9)))
    (day / "9.json").symlink_to(outside)
    drain_skipped()
    assert store.read_runs() == [GOOD]
    problems = {Path(s.path).name: s.message for s in drain_skipped()}
    assert "not a regular file" in problems["5.json"]
    assert "symbolic link" in problems["6.json"] and "symbolic link" in problems["9.json"]
    assert "8.json" in problems


def test_symlinked_directories_are_not_followed(tmp_path: Path) -> None:
    elsewhere = DirectoryStore(tmp_path / "other")
    elsewhere.write_runs([run("2024-01-02", {"cpu": 1.0}, run_id=3)])
    store = DirectoryStore(tmp_path / "h")
    store.write_runs([GOOD])
    (tmp_path / "h" / "runs" / "2024").symlink_to(tmp_path / "other" / "runs" / "2024")
    assert store.read_runs() == [GOOD]


def test_hostile_names_stay_one_line(tmp_path: Path) -> None:
    store, planted = _store_with(tmp_path, b"{")
    planted.rename(planted.with_name("5\n::error::forged\u202e.json"))
    drain_skipped()
    assert store.read_runs() == [GOOD]
    (skipped,) = drain_skipped()
    assert "\n" not in skipped.message and "\u202e" not in skipped.message
    assert "5\\x0a::error::forged\\u202e.json" in skipped.message


def test_a_bad_file_where_a_new_run_goes_is_left_alone(tmp_path: Path) -> None:
    store, planted = _store_with(tmp_path, b"\x00planted")
    new = run(DAY, {"cpu": 2.0}, run_id=5)
    drain_skipped()
    result = store.write_runs([new, run("2025-10-12", {"cpu": 3.0}, run_id=8)])
    assert result.changed == ["runs/2025/10/2025-10-12/8.json"]  # the other run is stored
    assert planted.read_bytes() == b"\x00planted"
    (skipped,) = drain_skipped()
    assert "run 5 of 2025-10-11 not stored" in skipped.message


# ---- record files given on the command line: input errors ----


@pytest.mark.parametrize("case", [c for c in HOSTILE if c != "valid record in the wrong place"])
def test_record_file_argument_is_an_input_error(tmp_path: Path, case: str) -> None:
    content, _ = HOSTILE[case]
    # the hostile content as the whole file, and (when it is a JSON object) as one of its runs
    variants = [content]
    if content.startswith(b"{"):
        head = b'{"schema": "wheel-size/records", "schema_version": 1, "runs": ['
        variants.append(head + run_to_json(GOOD).encode() + b", " + content + b"]}")
    for n, data in enumerate(variants):
        bad = tmp_path / f"bad{n}.json"
        bad.write_bytes(data)
        with pytest.raises(HistoryError) as caught:
            read_bundle(bad)
        assert "\n" not in str(caught.value) and str(bad) in str(caught.value)


def test_store_cli_refuses_a_hostile_record_file(tmp_path: Path) -> None:
    write_bundle(tmp_path / "good.json", [GOOD])
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"schema": "wheel-size/records", "schema_version": 1, "runs": ['
        + _record_text().replace('"run_id": 5', '"run_id": ' + "9" * 300)
        + "]}"
    )
    hist = tmp_path / "h"
    res = run_main(["store", str(tmp_path / "good.json"), str(bad), "--history", str(hist)])
    assert res.returncode == 2
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"wheel-size: error: {bad}: runs[0]:")
    assert "out of range" in lines[0]
    assert not hist.exists()  # nothing stored, the good file neither

    os.mkfifo(tmp_path / "fifo.json")
    res = run_cli(["store", str(tmp_path / "fifo.json"), "--history", str(hist)], timeout=60)
    assert res.returncode == 2 and "not a regular file" in res.stderr
    assert "Traceback" not in res.stderr


def test_cli_warns_about_a_skipped_stored_record(tmp_path: Path) -> None:
    _store_with(tmp_path, _deep(100_000).encode())
    res = run_main(
        ["report", "--history", str(tmp_path / "h"), "--from", DAY, "--to", DAY, "--variant", "cpu"]
    )
    assert res.returncode == 0, res.stderr
    (warning,) = [ln for ln in res.stderr.splitlines() if "warning" in ln]
    assert warning.startswith("wheel-size: warning: ") and "nested too deeply" in warning
    assert "| 2025-10-11 |" in res.stdout and "Traceback" not in res.stderr


# ---- property: whatever parses can be stored and read back ----

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True)
    | st.text(max_size=8)
)
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3), max_leaves=6)
_FIELDS = st.sampled_from(
    ["run_id", "date", "repository", "title", "run_attempt", "workflow_id", "artifacts"]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes=st.dictionaries(_FIELDS, _VALUES, max_size=3), artifact=_VALUES)
def test_any_accepted_record_round_trips(changes: dict[str, object], artifact: object) -> None:
    data = json.loads(run_to_json(run(DAY, {"cpu": 1.0}, run_id=5)))
    data.update(changes)
    if isinstance(data.get("artifacts"), list):
        data["artifacts"].append({"name": "x", "size_in_bytes": artifact})
    try:
        record = run_from_json(data, "f.json")
    except HistoryError as exc:
        assert str(exc).startswith("f.json: ") and "\n" not in str(exc)
        return
    text = run_to_json(record)
    text.encode("utf-8")  # a lone surrogate would fail here
    assert run_from_json(json.loads(text)) == record


# ---- what GitHub sends becomes a record that reads back ----


def _api_run(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "id": 18300000001,
        "created_at": "2025-10-11T07:30:00Z",
        "run_attempt": 1,
        "status": "completed",
        "head_commit": {"message": "2025-10-11 nightly release (abcdef1)\n\nbody"},
    }
    data.update(changes)
    return data


def test_text_from_github_is_stored_readable() -> None:
    from wheel_size.collect.records import record_from_api
    from wheel_size.collect.runs import WorkflowSource

    source = WorkflowSource("pytorch/pytorch", "nightly.yml")
    api = _api_run(head_commit={"message": "fix \ud800 build"}, head_branch="nightly\udfff")
    record = record_from_api(source, api, [{"name": "a\ud800", "size_in_bytes": 5}], "now")
    assert record.title == "fix \ufffd build" and record.head_branch == "nightly\ufffd"
    assert run_from_json(json.loads(run_to_json(record))) == record


@pytest.mark.parametrize(
    ("changes", "artifact", "problem"),
    [
        ({"id": int("9" * 300)}, {}, "id is out of range"),
        ({"id": "x"}, {}, "is not an integer"),
        ({"id": True}, {}, "is not an integer"),
        ({"created_at": "yesterday"}, {}, "ValueError"),
        ({}, {"size_in_bytes": -1}, "size_in_bytes is out of range"),
        ({}, {"size_in_bytes": [1]}, "is not an integer"),
        ({"run_attempt": 2**64}, {}, "run_attempt is out of range"),
    ],
)
def test_numbers_from_github_must_fit(
    changes: dict[str, object], artifact: dict[str, object], problem: str
) -> None:
    from wheel_size.collect.records import record_from_api
    from wheel_size.collect.runs import WorkflowSource
    from wheel_size.errors import GitHubError

    source = WorkflowSource("pytorch/pytorch", "nightly.yml")
    artifacts = [{"name": "a", "size_in_bytes": 5, **artifact}]
    with pytest.raises(GitHubError, match=problem) as caught:
        record_from_api(source, _api_run(**changes), artifacts, "now")
    assert str(caught.value).startswith("run ") and "\n" not in str(caught.value)

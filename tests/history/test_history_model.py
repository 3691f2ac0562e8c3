from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from history_factory import run
from wheel_size.errors import HistoryError
from wheel_size.history import ArtifactRecord, parse_base_sha
from wheel_size.history.model import run_from_json, run_to_json


def test_round_trip_is_exact() -> None:
    r = run("2025-10-11", {"cpu": 175.0, "cuda12_8": 859.3})
    text = run_to_json(r)
    assert run_from_json(json.loads(text)) == r
    assert run_to_json(run_from_json(json.loads(text))) == text
    # human readable: one artifact per line
    assert text.count('{"name": "manywheel-py3_12-') == 2


def test_base_sha_from_nightly_message() -> None:
    sha = "a" * 40
    assert parse_base_sha(f"2025-10-11 nightly release ({sha})\n\nbody") == sha
    assert parse_base_sha("2025-10-11 nightly release (ABCDEF1)") == "abcdef1"
    assert parse_base_sha("Merge pull request #1") is None
    assert parse_base_sha(None) is None


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(schema="x"), "not a wheel-size run record"),
        (lambda d: d.update(schema_version=2), "schema_version 2 is not supported"),
        (lambda d: d.pop("run_id"), "required field 'run_id'"),
        (lambda d: d.update(date="2025-13-01"), "not YYYY-MM-DD"),
        (lambda d: d["artifacts"][0].update(size_in_bytes=-1), "out of range"),
        (lambda d: d.update(run_id=10**300), r"'run_id' is out of range \(0 to 2\^63-1\)"),
        (lambda d: d.update(run_id=1 << 63), "out of range"),
        (lambda d: d.update(run_id=0), "must be a positive integer"),
        (lambda d: d.update(run_id=1.5), "wrong type"),
        (lambda d: d.update(title="a\ud800b"), "'title' holds a lone surrogate"),
        (lambda d: d["artifacts"][0].update(name="\udfff"), "'name' holds a lone surrogate"),
        (lambda d: d.update(date="20251011"), "not YYYY-MM-DD"),
        (lambda d: d.update(date="２０２５-10-11"), "not YYYY-MM-DD"),
        (lambda d: d.update(repository=["x"]), "wrong type"),
        (lambda d: d.update(artifacts={"a": 1}), "not a list"),
        (lambda d: d.update(schema=[[["x" * 10_000]]]), r"schema <list>\)"),
        (lambda d: d["artifacts"][0].update(size_in_bytes="12"), "wrong type"),
        (lambda d: d.update(run_id=True), "wrong type"),
    ],
)
def test_rejects_bad_records(mutate: object, message: str) -> None:
    data = json.loads(run_to_json(run("2025-10-11", {"cpu": 1.0})))
    mutate(data)  # type: ignore[operator]
    with pytest.raises(HistoryError, match=message):
        run_from_json(data, "f.json")


def test_merge_keeps_everything_and_prefers_later_attempt() -> None:
    first = run("2025-10-11", {"cpu": 1.0}, conclusion="failure")
    second = replace(
        run("2025-10-11", {"cuda12_8": 2.0}), run_attempt=2, collected_at="2025-10-12T00:00:00Z"
    )
    merged = first.merged_with(second)
    assert merged.run_attempt == 2
    assert merged.conclusion == "success"
    assert [a.name for a in merged.artifacts] == [
        "manywheel-py3_12-cpu",
        "manywheel-py3_12-cuda12_8",
    ]
    # an older observation never wins over a newer attempt
    assert second.merged_with(first).run_attempt == 2


def test_reupload_replaces_older_artifact() -> None:
    old = run("2025-10-11", {"cpu": 1.0})
    new_art = ArtifactRecord("manywheel-py3_12-cpu", 5, created_at="2025-10-11T23:00:00Z")
    newer = replace(old, artifacts=(new_art,))
    assert old.merged_with(newer).artifact("manywheel-py3_12-cpu") == new_art


@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),  # attempt
            st.sampled_from(["completed", "in_progress"]),
            st.dictionaries(
                st.sampled_from(["cpu", "xpu", "cuda12_8", "rocm6_4"]),
                st.floats(1, 100),
                max_size=4,
            ),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_merging_observations_never_loses_artifacts(
    observations: list[tuple[int, str, dict[str, float]]],
) -> None:
    records = [
        run("2025-10-11", sizes, attempt=attempt, status=status)
        for attempt, status, sizes in observations
    ]
    merged = records[0]
    for r in records[1:]:
        merged = merged.merged_with(r)
    names = {a.name for r in records for a in r.artifacts}
    assert {a.name for a in merged.artifacts} == names
    assert merged.run_attempt == max(r.run_attempt for r in records)
    # order does not matter for what is kept
    backwards = records[-1]
    for r in reversed(records[:-1]):
        backwards = backwards.merged_with(r)
    assert {a.name for a in backwards.artifacts} == names

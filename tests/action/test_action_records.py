"""The ``records`` and ``dashboard-days`` inputs: how the reusable workflow's single writer
hands the backfill jobs' record files to the action's job. The inputs become the library's
options directly (no command line in between)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wheel_size.action.track_inputs import record_files, track_inputs
from wheel_size.errors import InputError


def _env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    env = {
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_REPOSITORY": "pytorch/pytorch",
        "INPUT_WORKFLOW": "nightly.yml",
        "INPUT_BRANCH": "",
    }
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return env


def test_records_globs_are_expanded_in_order(tmp_path: Path) -> None:
    (tmp_path / "rec").mkdir()
    for name in ("records-2025-11.json", "records-2025-10.json"):
        (tmp_path / "rec" / name).write_text("{}")
    other = tmp_path / "elsewhere.json"
    other.write_text("{}")
    assert record_files(_env(tmp_path, records=f"rec/*.json\n{other}")) == [
        tmp_path / "rec" / "records-2025-10.json",
        tmp_path / "rec" / "records-2025-11.json",
        other,
    ]


def test_record_files_are_read_into_the_options(tmp_path: Path) -> None:
    record = {"schema": "wheel-size/records", "schema_version": 1, "runs": []}
    (tmp_path / "r.json").write_text(json.dumps(record))
    inputs = track_inputs(_env(tmp_path, records="r.json"), tmp_path)
    assert inputs.nightly.track.records == ()
    assert record_files(_env(tmp_path, records="")) == []


@pytest.mark.parametrize("records", ["rec/*.json", "missing.json"])
def test_records_that_match_nothing_are_an_error(tmp_path: Path, records: str) -> None:
    with pytest.raises(InputError, match="no record file matches"):
        track_inputs(_env(tmp_path, records=records), tmp_path)


def test_dashboard_days_only_with_the_dashboard(tmp_path: Path) -> None:
    on = track_inputs(_env(tmp_path, dashboard="true", **{"dashboard-days": "90"}), tmp_path)
    assert on.nightly.track.dashboard and on.nightly.track.dashboard_days == 90
    off = track_inputs(_env(tmp_path, **{"dashboard-days": "90"}), tmp_path)
    assert not off.nightly.track.dashboard


def test_inputs_become_typed_options(tmp_path: Path) -> None:
    """Each input reaches its option, and a bad one is named in its error."""
    env = _env(
        tmp_path,
        variants="cpu, CUDA 12.8\nrocm6.4",
        **{"threshold-mb": "0", "threshold-pct": "2.5", "create-issues": "true",
           "issue-labels": "size, nightly", "creep-mb": "0", "evidence": "false",
           "report-path": "out/r.md", "data-branch": "sizes", "git-timeout": "45",
           "fail-on-regression": "true", "months": "October 2025, November 2025"},
    )  # fmt: skip
    inputs = track_inputs(env, tmp_path)
    track = inputs.nightly.track
    assert track.variants == ("cpu", "CUDA 12.8", "rocm6.4")
    assert track.thresholds.mb is None and track.thresholds.pct == 2.5
    assert [str(p) for p in track.periods or []] == ["2025-10-01..2025-11-30"]
    assert track.source.branch is None
    issues = inputs.nightly.issues
    assert issues is not None and issues.labels == ("size", "nightly") and issues.creep_mb == 0
    # Paste-able (issue #14 item 4): the data branch and the repository's public remote.
    assert issues.reproduce[0] == "--data-remote" and issues.reproduce[1].startswith("https://")
    assert issues.reproduce[2:] == ("--data-branch", "sizes")
    assert not inputs.nightly.evidence.enabled
    assert inputs.store.data_branch == "sizes" and inputs.store.git_timeout == 45.0
    assert inputs.report_path == tmp_path / "out" / "r.md" and inputs.fail_on_regression
    for name, value, said in [
        ("threshold-mb", "lots", "input threshold-mb must be a number of MB, not 'lots'"),
        ("report-days", "0", "input report-days must be at least 1"),
        ("rollback-days", "1.5", "input rollback-days must be a whole number, not '1.5'"),
        ("fail-on-regression", "maybe", "input fail-on-regression must be true or false"),
        ("workflow", "", "input workflow is required"),
    ]:
        with pytest.raises(InputError, match=said):
            track_inputs({**env, f"INPUT_{name.upper()}": value}, tmp_path)

"""A size limit breached shows in the files ``track`` writes: ``-o`` has the "Size limits"
section the step summary has, ``--json`` says ``ceiling_exceeded`` with the breaches
beside ``regression`` (which stays about jumps). Both used to be silent:
``"regression": false`` and nothing else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runner import run_main
from history_factory import run
from wheel_size.history.bundle import write_bundle

NIGHTS = [("2026-03-09", 851.0), ("2026-03-10", 851.5)]  # over 850 MB, no jump


def _track(tmp_path: Path, *extra: str) -> tuple[str, dict[str, Any]]:
    records = tmp_path / "records.json"
    write_bundle(records, [run(day, {"cuda12_8": mb, "cpu": 190.0}) for day, mb in NIGHTS])
    done = run_main(
        ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--no-collect",
         "--history", str(tmp_path / "h"), "--records", str(records),
         "--from", "2026-03-09", "--to", "2026-03-10", "--variant", "cuda12_8,cpu",
         "--ceiling", "cuda12_8=850", "-o", str(tmp_path / "r.md"),
         "--json", str(tmp_path / "r.json"), *extra],
        env={"GITHUB_ACTIONS": "", "GITHUB_TOKEN": ""},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    return (tmp_path / "r.md").read_text(), data


def test_a_breach_is_in_the_report_and_the_json(tmp_path: Path) -> None:
    markdown, data = _track(tmp_path)
    assert "### Size limits" in markdown
    assert "- `cuda12_8` is 851.5 MB on 2026-03-10, over the 850.0 MB ceiling" in markdown
    assert "`cpu` is" not in markdown
    assert data["regression"] is False  # no jump: the breach has its own field
    assert data["ceiling_exceeded"] is True
    assert data["ceiling_ack"] is None
    (breach,) = data["ceiling_breaches"]
    assert breach["variant"] == "cuda12_8" and breach["date"] == "2026-03-10"
    assert breach["limits"] == [{"kind": "ceiling", "limit_bytes": 850 * 1_048_576}]


def test_an_acknowledged_breach_says_so(tmp_path: Path) -> None:
    markdown, data = _track(tmp_path, "--ceiling-ack", "CUDA 12.8 adds sm_120")
    assert "(acknowledged: CUDA 12.8 adds sm_120)" in markdown
    assert data["ceiling_exceeded"] is True and data["ceiling_ack"] == "CUDA 12.8 adds sm_120"


def test_no_limit_no_section(tmp_path: Path) -> None:
    records = tmp_path / "records.json"
    write_bundle(records, [run(day, {"cuda12_8": mb}) for day, mb in NIGHTS])
    done = run_main(
        ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--no-collect",
         "--history", str(tmp_path / "h"), "--records", str(records), "--from", "2026-03-09",
         "--to", "2026-03-10", "-o", str(tmp_path / "r.md"), "--json", str(tmp_path / "r.json")],
        env={"GITHUB_ACTIONS": "", "GITHUB_TOKEN": ""},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Size limits" not in (tmp_path / "r.md").read_text()
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["ceiling_exceeded"] is False and data["ceiling_breaches"] == []

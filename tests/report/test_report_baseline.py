"""``report --baseline``: the default is the seed's report byte for byte; a median or a
window reports each change once, against its baseline and noise band."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from wheel_size.dates import parse_month
from wheel_size.history import DirectoryStore
from wheel_size.report import render_size_report
from wheel_size.report.build import reports_for
from wheel_size.series import Baseline, Thresholds

EXAMPLE = REPO_ROOT / "examples" / "history"
SCHEMA = json.loads((REPO_ROOT / "docs" / "report-format.schema.json").read_text())
RANGE = ["--from", "2025-10-01", "--to", "2026-02-28", "--variant", "cuda12_8"]


def test_previous_is_the_default_byte_for_byte() -> None:
    plain = run_main(["report", "--history", str(EXAMPLE), *RANGE])
    named = run_main(["report", "--history", str(EXAMPLE), *RANGE, "--baseline", "previous"])
    assert plain.returncode == named.returncode == 0, plain.stderr + named.stderr
    assert named.stdout == plain.stdout
    assert "Against baseline" not in plain.stdout
    assert "| 2025-10-29 | +1.6 MB | 863.2 MB | — |" in plain.stdout
    assert "| 2025-10-30 | +3.8 MB | 867.0 MB | — |" in plain.stdout
    as_json = run_main(["report", "--history", str(EXAMPLE), *RANGE, "--format", "json"])
    data = json.loads(as_json.stdout)
    assert data["thresholds"] == {"mb": 1.0, "pct": None}
    assert all("baseline" not in j for j in data["jumps"])


def test_median_reports_the_second_night_of_a_two_night_rise() -> None:
    """Issue 29: 10-29 (+1.6) began the event, 10-30 (+3.8) grew it again: both nights
    are reported, the second with a window that covers both (it used to be folded)."""
    res = run_main(["report", "--history", str(EXAMPLE), *RANGE, "--baseline", "median:5"])
    assert res.returncode == 0, res.stderr
    md = res.stdout
    assert "jump threshold ±1 MB against the median of the previous 5 nights" in md
    assert "| 2025-10-29 | +1.6 MB | 863.2 MB | +1.6 MB vs 861.6 MB " in md
    assert (
        "| 2025-10-30 – 2025-11-01 (grew again after the change of 2025-10-29) | +5.5 MB "
        "| 867.1 MB | +5.5 MB vs 861.6 MB (band 861.6–863.2 MB, 5 nights) | — |"
    ) in md
    # the history starts on 10-01: its first nights are measured on fewer nights, said once
    assert "had fewer than 5 nights before them within 28 days" in md


@pytest.mark.parametrize("spec", ["median:3", "median:7", "window:3", "window:7"])
def test_every_baseline_reports_every_day_over_day_step_of_october(spec: str) -> None:
    """The October example: each night the day-over-day rule finds is a row's night (its
    first night: dated on the night it happened), under every baseline."""
    october = ["--from", "2025-10-01", "--to", "2025-10-31", "--variant", "cuda12_8"]
    plain = run_main(["report", "--history", str(EXAMPLE), *october, "--format", "json"])
    res = run_main(
        ["report", "--history", str(EXAMPLE), *october, "--baseline", spec, "--format", "json"]
    )
    assert plain.returncode == 0 and res.returncode == 0, res.stderr
    steps = {j["date"] for j in json.loads(plain.stdout)["jumps"]}
    found = {j["date"] for j in json.loads(res.stdout)["jumps"]}
    assert steps and steps <= found, f"{spec} missed {sorted(steps - found)}"


def test_json_carries_the_baseline_and_validates(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    res = run_main(["report", "--history", str(EXAMPLE), *RANGE, "--baseline", "window:3",
                   "--format", "json", "-o", str(out)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    data = json.loads(out.read_text())
    jsonschema.validate(data, SCHEMA)
    assert data["thresholds"]["baseline"] == "window:3"
    first = data["jumps"][0]["baseline"]
    assert first["spec"] == "window:3" and first["nights"] == 3
    assert first["band_low_mb"] <= first["size_mb"] <= first["band_high_mb"]
    assert first["start_date"] <= data["jumps"][0]["date"] <= first["end_date"]


def test_bad_baseline_is_refused_before_any_output(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    res = run_main(["report", "--history", str(EXAMPLE), *RANGE, "--baseline", "median:0",
                   "-o", str(out)])  # fmt: skip
    assert res.returncode != 0
    assert "baseline: median:N needs N from 2 to 14 (got 0)" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_the_markdown_of_a_baseline_report_names_the_rule() -> None:
    t = Thresholds(mb=1.0, baseline=Baseline.parse("median:5"))
    (r,) = reports_for(
        DirectoryStore(EXAMPLE), ["cuda12_8"], [parse_month("January 2026")], thresholds=t
    )
    md = render_size_report([r])
    assert "Measured against the median of the previous 5 nights." in md
    # the default rendering path of the same month is untouched
    (plain,) = reports_for(DirectoryStore(EXAMPLE), ["cuda12_8"], [parse_month("January 2026")])
    assert "Against baseline" not in render_size_report([plain])


def _action_env(tmp_path: Path, baseline: str | None) -> dict[str, str]:
    env = {"GITHUB_WORKSPACE": str(tmp_path), "GITHUB_REPOSITORY": "pytorch/pytorch"}
    env.update({"INPUT_WORKFLOW": "nightly.yml", "INPUT_HISTORY-DIR": "history"})
    if baseline is not None:
        env["INPUT_BASELINE"] = baseline
    return env


def test_action_input_baseline(tmp_path: Path) -> None:
    from wheel_size.action.track_inputs import track_inputs
    from wheel_size.errors import InputError

    def read(value: str | None) -> Baseline:
        return track_inputs(
            _action_env(tmp_path, value), tmp_path
        ).nightly.track.thresholds.baseline

    assert read(None) == read("") == read("previous") == Baseline()
    assert read("median:7") == Baseline("median", 7)
    try:
        read("window:x")
    except InputError as exc:
        assert str(exc).startswith("input baseline: 'window:x' needs a whole number")
    else:
        raise AssertionError("a bad baseline input was accepted")

"""The ``records`` and ``dashboard-days`` inputs: how the reusable workflow's single writer
hands the backfill jobs' record files to the action's job."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel_size.action.main import action_argv
from wheel_size.errors import InputError


def _env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    env = {"GITHUB_WORKSPACE": str(tmp_path), "INPUT_WORKFLOW": "nightly.yml", "INPUT_BRANCH": ""}
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return env


def test_records_globs_are_expanded_in_order(tmp_path: Path) -> None:
    (tmp_path / "rec").mkdir()
    for name in ("records-2025-11.json", "records-2025-10.json"):
        (tmp_path / "rec" / name).write_text("{}")
    other = tmp_path / "elsewhere.json"
    other.write_text("{}")
    argv = action_argv(_env(tmp_path, records=f"rec/*.json\n{other}"))
    index = argv.index("--records")
    assert argv[index + 1 :] == [
        str(tmp_path / "rec" / "records-2025-10.json"),
        str(tmp_path / "rec" / "records-2025-11.json"),
        str(other),
    ]


def test_no_records_input_means_no_flag(tmp_path: Path) -> None:
    assert "--records" not in action_argv(_env(tmp_path, records=""))


@pytest.mark.parametrize("records", ["rec/*.json", "missing.json"])
def test_records_that_match_nothing_are_an_error(tmp_path: Path, records: str) -> None:
    with pytest.raises(InputError, match="no record file matches"):
        action_argv(_env(tmp_path, records=records))


def test_dashboard_days_only_with_the_dashboard(tmp_path: Path) -> None:
    argv = action_argv(_env(tmp_path, dashboard="true", **{"dashboard-days": "90"}))
    assert argv[argv.index("--dashboard-days") + 1] == "90"
    assert "--dashboard-days" not in action_argv(_env(tmp_path, **{"dashboard-days": "90"}))

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_main
from conftest import REPO_ROOT

EXAMPLE = str(REPO_ROOT / "examples" / "history")


def test_readme_quick_start_command_runs() -> None:
    res = run_main(["report", "--history", EXAMPLE, "--variant", "cuda12_8",
                   "--month", "October 2025"])  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "| Total change | +11.7 MB (+1.37%) |" in res.stdout


def test_json_to_file_several_variants(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    res = run_main(["report", "--history", EXAMPLE, "--variant", "cu128,cpu", "--variant", "12.8",
                   "--from", "2025-11-01", "--to", "2025-11-30", "--format", "json", "-o",
                   str(out)])  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""
    data = json.loads(out.read_text())
    assert [r["variant"] for r in data] == ["cuda12_8", "cpu"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "rocm9.9", "--month", "October 2025"],
         "unknown variant 'rocm9.9': no artifact 'manywheel-py3_12-rocm9_9' in the history; "
         "variants seen: cpu, cuda12_6, cuda12_8, cuda13_0, rocm6_4, rocm7_0, xpu"),
        (["--from", "2025-10-31", "--to", "2025-10-01"], "reversed"),
        (["--from", "2025-10-32"], "--from '2025-10-32' is not a valid date"),
        (["--month", "Octember 2025"], "month 'Octember 2025'"),
        (["--month", "July 2024"], "has no runs in 2024-07-01..2024-07-31"),
        (["--month", "October 2025", "--python", "x"], "python tag 'x'"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    res = run_main(["report", "--history", EXAMPLE, *args, "-o", str(out)])
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("wheel-size: error: ")
    assert message in lines[0]
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_corrupt_history_named(tmp_path: Path) -> None:
    bad = tmp_path / "runs" / "2025" / "10" / "2025-10-01"
    bad.mkdir(parents=True)
    (bad / "1.json").write_text("[]")
    res = run_main(["report", "--history", str(tmp_path), "--month", "October 2025"])
    assert res.returncode == 2
    assert "2025-10-01/1.json: not a JSON object" in res.stderr

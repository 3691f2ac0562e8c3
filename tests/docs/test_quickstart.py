"""The README's quick start runs the main job: `track --create-issues` on a recorded month
served by the fake GitHub on loopback, printing the step summary and the issue it opened."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT, checkout_env


def test_the_quick_start_opens_the_october_issues(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / "quickstart.py"), "--keep", str(tmp_path)],
        env=checkout_env(), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert out.startswith("## Wheel sizes: pytorch/pytorch")  # the step summary
    assert (
        "- Opened [#1](https://github.com/pytorch/pytorch/issues/1): cuda12_8, jump of 2025-10-11"
        in out
    )
    # The documented 1 MB threshold (issue 29 item 4; before, a silent 3 MB that missed the
    # +2.3 MB sm_100 kernels of Oct 18 and the +1.6 MB of Oct 29).
    assert "1 variant flat (within ±1 MB)" in out
    assert "4 issue(s) opened; the first one:" in out
    # The run's own report names the cause of the issue it just opened (not only the next run's).
    summary = out.split("4 issue(s) opened", 1)[0]
    sm100 = next(ln for ln in summary.splitlines() if ln.startswith("| 2025-10-18 | +2.3 MB"))
    assert "Add sm_100 instantiations of the FlashAttention kernels" in sm100
    jump = next(ln for ln in summary.splitlines() if ln.startswith("| 2025-10-11 | +4.0 MB"))
    assert "Build CUDA kernels with -O3 instead of -O2" in jump and "(LIKELY)" in jump
    # the Oct 30 cause has no status: the report says what it is, as its issue does
    later = next(ln for ln in summary.splitlines() if ln.startswith("| 2025-10-30 | +3.8 MB"))
    assert "Bump third_party/cutlass to 4.2" in later and "(top-ranked, no status yet)" in later
    assert "unassessed" not in out
    issue = out.split("the first one:", 1)[1]
    assert "# #1 Wheel size: cuda12_8 +4.0 MB on 2025-10-11" in issue
    candidates = issue.split("### Candidate commits", 1)[1]
    first = next(ln for ln in candidates.splitlines() if ln.startswith("| 1 |"))
    assert "Build CUDA kernels with -O3 instead of -O2" in first
    assert len(list((tmp_path / "history" / "runs").rglob("*.json"))) == 32
    assert (tmp_path / "report.md").is_file()

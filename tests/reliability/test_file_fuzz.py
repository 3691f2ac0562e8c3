"""File-backed fuzzing in CI: a fixed seed set of mutated libraries through the same
file path split, diff and audit take on an extracted wheel member (scripts/fuzz_files.py).

Deterministic (seed 0, 300 cases: every fixture and hostile library once, then
structure-aware mutations; every tenth case also as a wheel with STORED, DEFLATED, bzip2 or
LZMA members through ``cli.main``).  Only success or a WheelSizeError may come out; the run
has its address space capped so a memory regression fails here, not on the machine.
"""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest

from conftest import REPO_ROOT, checkout_env

LIMIT = 3 << 29  # 1.5 GiB


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


@pytest.mark.slow
def test_fixed_seed_set_gives_no_findings() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "fuzz_files.py"), "replay",
         "--seed", "0", "--cases", "300"],
        env=checkout_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        preexec_fn=_limit,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert "300 cases, 0 findings" in summary, summary
    assert "FINDING" not in result.stdout

"""The ``--by family`` headline says when its rows add up to much less than the total: a
cubin rebuilt without line tables (nvcc ``-lineinfo`` dropped) has the same functions, and
the whole change is in bytes no function covers."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_main
from cubinfx import cubin, cubin_wheel, cubins
from kernelfx import kernel_wheel


def test_headline_says_the_rows_miss_most_of_the_change(tmp_path: Path) -> None:
    old = cubin_wheel(tmp_path / "o", "1.0", {"k/k.cubin": cubin("k_sm_90_lineinfo.cubin")})
    new = cubin_wheel(tmp_path / "n", "1.1", {"k/k.cubin": cubin("k_sm_90.cubin")})
    result = run_main(["diff", "--by", "family", str(old), str(new)])
    assert result.returncode == 0, result.stderr
    headline = result.stdout.split("\n\n", 1)[0]
    shrink = cubins()["k_sm_90_lineinfo.cubin"]["bytes"] - cubins()["k_sm_90.cubin"]["bytes"]
    assert f"-{shrink / 1024:.1f} KB" in headline
    assert "The rows below add up to ±0 B" in headline
    assert "no function covers" in headline and ".strtab" in headline


def test_headline_is_quiet_when_the_rows_explain_the_change(tmp_path: Path) -> None:
    old = kernel_wheel(tmp_path / "o", "1.0", {"kern/libk.so": "libkern_v1.so"})
    new = kernel_wheel(tmp_path / "n", "2.0", {"kern/libk.so": "libkern_v2.so"})
    data = run_main(["diff", "--by", "family", "--format", "json", str(old), str(new)])
    (summed,) = [c["summed"] for c in json.loads(data.stdout)["comparisons"]]
    total = summed["new_total"] - summed["old_total"]
    functions = total - (summed["new_unattributed"] - summed["old_unattributed"])
    assert 2 * abs(functions) >= abs(total)  # the functions explain the change here
    result = run_main(["diff", "--by", "family", str(old), str(new)])
    assert "no function covers" not in result.stdout.split("\n\n", 1)[0]

"""Issue 30: ``diff`` reads two local inputs and makes no HTTPS call, so the console script
loads no trust store for it (truststore, urllib3, requests, ssl: ~0.08 CPU-s of a torch
kernel diff's start)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import checkout_env
from kernelfx import kernel_wheel

PROBE = """
import json, sys
from wheel_size.cli.main import main
status = main(sys.argv[1:], system_trust=True)  # as the console script runs it
heavy = ("truststore", "requests", "urllib3", "ssl")
loaded = sorted(m for m in sys.modules if m.startswith(heavy))
print(json.dumps({"status": status, "loaded": loaded}))
"""


def test_a_kernel_diff_loads_no_trust_store(tmp_path: Path) -> None:
    a = kernel_wheel(tmp_path / "a", "1.0", {"kern/libkern.so": "libkern_v1.so"})
    b = kernel_wheel(tmp_path / "b", "2.0", {"kern/libkern.so": "libkern_v2.so"})
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "diff", "--by", "family", "--format", "json",
         "--output", str(tmp_path / "out.json"), "-j", "1", str(a), str(b)],
        env=checkout_env(), capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["status"] == 0, done.stderr
    assert result["loaded"] == []
    assert json.loads((tmp_path / "out.json").read_text())["by"] == "family"

"""The README's split commands, run as written (only the paths are this test's): the split
writes its wheels where the install line looks, and ``pip install --find-links dist/
'torch[gfx1100]'`` resolves the host and the gfx1100 device wheels (``--dry-run``)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT, run_cli
from fatwheel import build_fat_wheel, build_stub_wheel


def _readme_split_block() -> list[list[str]]:
    """The commands of the README's ``sh`` block that runs ``wheel-size split``."""
    text = (REPO_ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    (block,) = [b for b in blocks if "wheel-size split" in b]
    return [shlex.split(line) for line in block.replace("\\\n", " ").splitlines() if line]


def test_the_readme_split_installs_one_gpu(tmp_path: Path) -> None:
    split_cmd, pip_cmd = _readme_split_block()
    assert split_cmd[:2] == ["wheel-size", "split"] and pip_cmd[:2] == ["pip", "install"]
    out = split_cmd[split_cmd.index("--output-dir") + 1]
    assert pip_cmd[pip_cmd.index("--find-links") + 1] == out  # pip looks where split writes
    requirement = pip_cmd[-1]
    fat = build_fat_wheel(tmp_path / "in")

    args = split_cmd[2:]  # the README's relative paths land in this test's folder (cwd)
    args[args.index("--input") + 1] = str(fat)
    done = run_cli(["split", *args], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    build_stub_wheel(tmp_path / out)  # the host's rocm-bootstrap dependency
    report = tmp_path / "pip.json"
    resolved = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--disable-pip-version-check", "--no-index", "--report", str(report),
         "--find-links", str(tmp_path / out), requirement],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert resolved.returncode == 0, resolved.stderr
    names = {i["metadata"]["name"] for i in json.loads(report.read_text())["install"]}
    assert requirement == "torch[gfx1100]"
    assert {"torch", "amd-torch-device-gfx1100"} <= names
    assert not any(n.endswith(("gfx942", "gfx90a")) for n in names)  # no other GPU's code

"""Type-check tests/ with the project's strict mypy settings, one test folder at a time.

pytest imports a test folder's helpers as top-level modules (``from hostile_artifacts import
…``: the folder is put on ``sys.path``), so mypy must see each folder as a root of its own;
checking all folders in one run would name a helper twice. Exit status: mypy's worst.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
SKIP = {"data", "fakegithub", "__pycache__"}  # fakegithub is a package: checked with -p


def _mypy(args: list[str], extra_path: Path | None) -> int:
    roots = [ROOT / "src", TESTS, ROOT / "scripts", *([extra_path] if extra_path else [])]
    env = {**os.environ, "MYPYPATH": os.pathsep.join(map(str, roots))}
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
           "--explicit-package-bases", *args]  # fmt: skip
    return subprocess.run(cmd, cwd=ROOT, env=env, check=False).returncode


def main() -> int:
    argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0]).parse_args()
    folders = [TESTS, *sorted(p for p in TESTS.iterdir() if p.is_dir() and p.name not in SKIP)]
    worst = _mypy(["-p", "fakegithub"], None)
    for folder in folders:
        files = sorted(str(f.relative_to(ROOT)) for f in folder.glob("*.py"))
        if files:
            worst = max(worst, _mypy(files, folder if folder != TESTS else None))
    return worst


if __name__ == "__main__":
    sys.exit(main())

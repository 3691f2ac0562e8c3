"""Issue 32: ``packaging>=24.0`` was false: the audit imported ``packaging.tags.InvalidTag``,
which only recent releases have, and crashed where an older packaging was installed. The
modules that use packaging are imported under the floor version pyproject.toml names (the
wheel fetched once with pip into .cache/floors; skipped with a reason where pip cannot)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
USERS = (
    "wheel_size.audit.inspect",
    "wheel_size.wheel.filename",
    "wheel_size.split.metadata",
    "wheel_size.split.wheel_file",
)


def floor() -> str:
    text = (ROOT / "pyproject.toml").read_text()
    found = re.search(r'"packaging>=([0-9.]+)"', text)
    assert found, "pyproject.toml names no packaging floor"
    return found.group(1)


@pytest.mark.slow
def test_the_packaging_floor_is_true() -> None:
    version = floor()
    cache = ROOT / ".cache" / "floors"
    wheel = cache / f"packaging-{version}-py3-none-any.whl"
    if not wheel.exists():
        got = subprocess.run(
            [sys.executable, "-m", "pip", "download", f"packaging=={version}", "--no-deps",
             "--only-binary", ":all:", "-d", str(cache), "-q"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        if got.returncode != 0 or not wheel.exists():
            pytest.skip(f"pip cannot fetch packaging {version}: {got.stderr.strip()[-200:]}")
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2])\n"
        "import packaging; assert packaging.__version__ == sys.argv[3], packaging.__version__\n"
        + "".join(f"import {m}\n" for m in USERS)
        + "from wheel_size.audit.inspect import _wheel_tags\n"
        "from wheel_size.errors import InvalidWheel\n"
        "try:\n    _wheel_tags(['not-a-tag-at-all-x'], 'audit', 'x.whl')\n"
        "except InvalidWheel as e:\n    print('refused:', e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(wheel), str(ROOT / "src"), version],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "refused: audit: x.whl: Tag" in done.stdout

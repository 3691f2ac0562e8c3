"""Issue 32: the lowest versions pyproject.toml allows must work (``packaging>=24.0`` was
false). Every runtime dependency is installed at its floor (``pip --constraint``, ``==``
each floor, from the package index) into a fresh virtual environment, every module of
``wheel_size`` is imported there and two commands run. Skipped, saying why, without a
network; a floor pip cannot install together with the others fails."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def floors() -> dict[str, str]:
    """Each runtime dependency's lowest allowed version (its ``>=``), by name."""
    # tomllib is Python 3.11's; on 3.10 tomli if it is there, else the test says why it skips
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found: dict[str, str] = {}
    for text in project["dependencies"]:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate():
            continue
        low = [s.version for s in req.specifier if s.operator == ">="]
        assert len(low) == 1, f"pyproject.toml: {text!r} names no single floor (>=)"
        found[req.name] = low[0]
    return found


def _index_reachable() -> str | None:
    """None when the package index answers, else why not."""
    try:
        with socket.create_connection(("pypi.org", 443), timeout=5):
            return None
    except OSError as exc:
        return f"no network to pypi.org ({exc})"


def _modules() -> list[str]:
    names = []
    for path in sorted((SRC / "wheel_size").rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        if parts[-1] == "__main__":
            continue  # importing it runs the CLI
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_every_dependency_has_a_floor() -> None:
    assert floors()


@pytest.mark.slow
def test_the_dependency_floors_are_true(tmp_path: Path) -> None:
    wanted = floors()
    why = _index_reachable()
    if why:
        pytest.skip(why)
    env_dir = tmp_path / "floors"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    constraints = tmp_path / "floors.txt"
    constraints.write_text("".join(f"{name}=={v}\n" for name, v in wanted.items()))
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
         "--constraint", str(constraints), *wanted],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    errors = [ln for ln in install.stderr.splitlines() if ln.startswith("ERROR")]
    unreachable = ("Could not fetch", "NewConnectionError", "timed out")
    if (
        install.returncode != 0
        and not any("conflict" in ln or "Resolution" in ln for ln in errors)
        and any(w in install.stderr for w in unreachable)
    ):
        pytest.skip(f"pip could not reach the index: {errors[-1:] or install.stderr[-200:]}")
    assert install.returncode == 0, "\n".join(errors) or install.stderr[-2000:]
    # A yanked floor (urllib3 2.0.0 truncated streamed compressed bodies) is no floor.
    yanked = [ln for ln in install.stderr.splitlines() if "yanked" in ln.lower()]
    assert not yanked, "\n".join(yanked)
    run_env = {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "PYTHONNOUSERSITE": "1",
        "GITHUB_STEP_SUMMARY": "",
        "COVERAGE_PROCESS_START": "",
    }
    versions = subprocess.run(
        [str(python), "-c",
         "import importlib.metadata as m, sys\n"
         "for n in sys.argv[1:]: print(n, m.version(n))", *wanted],
        capture_output=True, text=True, timeout=60, check=True, env=run_env,
    ).stdout.split()  # fmt: skip
    got = dict(zip(versions[::2], versions[1::2], strict=True))
    for name, low in wanted.items():  # ``4`` installs as 4.0.0: compare as versions
        assert Version(got[name]) == Version(low), f"{name}: {got[name]} installed, not {low}"
    probe = (
        "import importlib, sys, traceback\n"
        "bad = 0\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n        importlib.import_module(name)\n"
        "    except Exception:\n"
        "        bad += 1; print(name, traceback.format_exc(limit=1).splitlines()[-1])\n"
        "sys.exit(1 if bad else 0)\n"
    )
    imported = subprocess.run(
        [str(python), "-c", probe, *_modules()],
        capture_output=True, text=True, timeout=300, check=False, env=run_env, cwd=tmp_path,
    )  # fmt: skip
    assert imported.returncode == 0, imported.stdout + imported.stderr[-2000:]
    helped = subprocess.run(
        [str(python), "-m", "wheel_size", "--help"],
        capture_output=True, text=True, timeout=120, check=False, env=run_env, cwd=tmp_path,
    )  # fmt: skip
    assert helped.returncode == 0 and "usage: wheel-size" in helped.stdout, helped.stderr
    report = subprocess.run(
        [str(python), "-m", "wheel_size", "report", "--history", str(ROOT / "examples/history"),
         "--variant", "cuda12_8", "--month", "October 2025"],
        capture_output=True, text=True, timeout=120, check=False, env=run_env, cwd=tmp_path,
    )  # fmt: skip
    assert report.returncode == 0, report.stderr
    assert "## Wheel size" in report.stdout and "Traceback" not in report.stderr

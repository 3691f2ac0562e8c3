"""The README's two set-up commands are what a fresh machine runs: CI runs the second one as
written, and both work where the system Python refuses `pip install` (they use a venv)."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def _quick_start_commands() -> list[str]:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_ci_runs_the_readme_test_command_as_written() -> None:
    install_and_run, install_and_test = _quick_start_commands()
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert install_and_test in ci
    assert install_and_run.endswith(".venv/bin/python examples/quickstart.py")


def test_both_commands_install_into_a_virtual_environment() -> None:
    for command in _quick_start_commands():
        assert command.startswith("python3 -m venv .venv && .venv/bin/python -m pip install")

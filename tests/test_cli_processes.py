"""The CLI and the Action run in-process in tests, except where a process is the point.

A process costs a Python start and every import again; ``cli_runner.run_main`` and
``action_runner.run_action`` give the same result without one. The files below start the
CLI or the entrypoint as a process, each for a reason only a process can give; a new one
joins this list with its reason, and one that no longer needs a process leaves it.
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
STARTS_A_PROCESS = re.compile(r"\brun_cli\(|\brun_entrypoint\(|\"-m\", \"wheel_size\"|\b_LIMITED\b")
HELPERS = {"conftest.py", "action_runner.py", "cli_runner.py", Path(__file__).name}

# file -> why it needs a process
PROCESSES = {
    "action/test_entrypoint.py": "the entrypoint script as the container runs it",
    "audit/test_audit_bad_device_input.py": "peak RSS of the command alone (wait4), 10^5 members",
    "action/test_entrypoint_crash.py": "crash isolation: what a dying process leaves behind",
    "action/test_image_workspace.py": "the image's installed wheel, as root in a workspace",
    "cli/test_cli_runner.py": "the in-process runner reads as the subprocess does",
    "cli/test_main.py": "python -m wheel_size and its exit status",
    "docs/test_readme_split.py": "the README's commands, run as written",
    "history/test_hostile_records.py": "a FIFO that would hang a reader: bounded by a timeout",
    "reliability/test_concurrent_writers.py": "many writers racing on one data branch",
    "split/test_split_startup.py": "-X importtime of a fresh interpreter: what a split imports",
    "reliability/test_enospc.py": "RLIMIT_FSIZE for the command alone",
    "reliability/test_git_hostile.py": "a stalled remote: bounded by a timeout, signals",
    "reliability/test_hostile_binaries.py": "RLIMIT_AS for the command alone",
    "reliability/test_hostile_wheels.py": "RLIMIT_AS for the command alone",
    "reliability/test_temporary_work.py": "signals and resource limits",
    "test_dependency_floors.py": "another venv: the lowest allowed versions of every dependency",
}


def test_only_the_listed_tests_start_the_cli_as_a_process() -> None:
    found = {
        path.relative_to(TESTS).as_posix()
        for path in TESTS.rglob("*.py")
        if path.name not in HELPERS and STARTS_A_PROCESS.search(path.read_text())
    }
    assert sorted(found - PROCESSES.keys()) == [], (
        "run the CLI with cli_runner.run_main (the Action with action_runner.run_action), or "
        "add the file to PROCESSES with the reason it needs a process"
    )
    assert sorted(PROCESSES.keys() - found) == [], "no longer starts a process: remove it"

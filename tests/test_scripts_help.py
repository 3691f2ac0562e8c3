"""Every script under scripts/ and benchmarks/ parses its arguments (issue 29 item 6): with
``--help`` it prints help and writes nothing. Before, seven scripts took ``sys.argv[1]`` as
their output folder, so ``--help`` became a committed directory of 208 generated files.

All scripts start at once (each is a process of its own: the machine's cores share them) in
one empty folder; the folder and the checkout must be unchanged afterwards."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from conftest import REPO_ROOT, checkout_env

SCRIPTS = sorted(
    [*(REPO_ROOT / "scripts").glob("*.py"), *(REPO_ROOT / "scripts").glob("*.sh"),
     *(REPO_ROOT / "benchmarks").glob("*.py")]
)  # fmt: skip


def _status() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


def test_every_script_prints_help_and_writes_nothing(tmp_path: Path) -> None:
    assert len(SCRIPTS) > 25
    before = _status()
    env = checkout_env()
    procs = {}
    for script in SCRIPTS:
        command = ["bash", str(script)] if script.suffix == ".sh" else [sys.executable, str(script)]
        procs[script] = subprocess.Popen(
            [*command, "--help"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
    deadline = time.monotonic() + 120
    failures = []
    for script, proc in procs.items():
        out, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        name = script.relative_to(REPO_ROOT).as_posix()
        library = script.suffix == ".py" and "__main__" not in script.read_text()
        if proc.returncode != 0 or not (library or out.strip()):
            failures.append(f"{name}: exit {proc.returncode}: {(err or out).strip()[-300:]}")
        elif script.suffix == ".py" and not library and not out.lstrip().startswith("usage:"):
            failures.append(f"{name}: --help printed no usage: {out[:120]!r}")
    assert failures == []
    assert list(tmp_path.iterdir()) == []  # nothing written where it ran
    assert _status() == before  # nor in the checkout (a default output folder)


def test_no_generated_tree_is_committed_or_sent_to_the_image() -> None:
    assert not (REPO_ROOT / "--help").exists()
    ignored = (REPO_ROOT / ".dockerignore").read_text().splitlines()
    for tree in ("--help", "build", "dist", "out"):
        assert tree in ignored, tree


def test_no_script_reads_raw_argv() -> None:
    """Issue 33 item 4: arguments go through argparse. ``sys.argv[0]`` (the program name,
    e.g. for libFuzzer) and ``main(sys.argv[1:])`` handed to a parser are the only reads."""
    raw = re.compile(r"sys\.argv(?!\[0\]|\[1:\]\))")
    found = []
    for script in SCRIPTS:
        text = script.read_text(encoding="utf-8")
        if script.suffix != ".py" or "__main__" not in text:
            continue
        name = script.relative_to(REPO_ROOT).as_posix()
        found += [f"{name}: {m.group(0)}" for m in raw.finditer(text)]
        if "argparse" not in text:
            found.append(f"{name}: no argparse")
    assert found == []

"""Unexpected exceptions at the two entrypoints: one line (CLI) or one ``::error::`` (Action),
exit 2, no traceback unless WHEEL_SIZE_DEBUG=1, and the Action's outputs and step summary
written as far as they got.

A bug cannot be produced on demand, so these tests plant one: a ``sitecustomize`` module
on the subprocess's PYTHONPATH replaces one function of the real program with one that
raises (MemoryError, RecursionError, ...). Everything else runs for real: the fake GitHub,
a real git data branch, the real entrypoint. One case needs no plant at all: a real bzip2
bomb under a real address-space limit.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from pathlib import Path

from action_runner import parse_outputs, run_entrypoint, runner_env
from conftest import SRC, checkout_env
from fakegithub import FakeGitHub
from regression_world import make_nightly_repo

INTERNAL = re.compile(r"internal error: (\w+)(: .*)? \(please report\)$")


def _plant(tmp_path: Path, code: str) -> str:
    """A directory holding a sitecustomize that runs ``code`` at interpreter start."""
    folder = tmp_path / "plant"
    folder.mkdir(exist_ok=True)
    (folder / "sitecustomize.py").write_text(code)
    return str(folder)


def _cli(args: list[str], plant: str | None, **env: str) -> subprocess.CompletedProcess[str]:
    environ = checkout_env(env)
    if plant:
        environ["PYTHONPATH"] = os.pathsep.join([plant, environ["PYTHONPATH"]])
    return subprocess.run([sys.executable, "-m", "wheel_size", *args], env=environ,
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip


RECURSE = """
import wheel_size.report.build as build
def _deep(*args, **kwargs):
    return _deep(*args, **kwargs)
build.reports_for = _deep
"""


def test_cli_recursion_error_is_one_line(tmp_path: Path) -> None:
    plant = _plant(tmp_path, RECURSE)
    args = ["report", "--history", str(tmp_path / "h"), "--month", "October 2025"]
    res = _cli(args, plant)
    assert res.returncode == 2
    assert res.stderr.splitlines() == [
        "wheel-size: error: internal error: RecursionError: maximum recursion depth exceeded "
        "(please report)"
    ]
    debug = _cli(args, plant, WHEEL_SIZE_DEBUG="1")
    assert debug.returncode == 2
    assert "Traceback (most recent call last)" in debug.stderr  # for the bug report
    assert debug.stderr.splitlines()[-1] == res.stderr.splitlines()[0]


def test_cli_memory_error_names_no_token(tmp_path: Path) -> None:
    token = "ghp_" + "s3cr3t" * 6
    plant = _plant(tmp_path, f"""
import wheel_size.report.build as build
def _hog(*args, **kwargs):
    raise MemoryError("while holding {token}\\nsecond line")
build.reports_for = _hog
""")  # fmt: skip
    args = ["report", "--history", str(tmp_path / "h"), "--month", "October 2025"]
    res = _cli(args, plant, GITHUB_TOKEN=token)
    assert res.returncode == 2
    (line,) = res.stderr.splitlines()
    assert INTERNAL.search(line) and token not in line and "\\x0asecond line" in line


def test_cli_real_bomb_under_a_real_memory_limit(tmp_path: Path) -> None:
    """No plant: the bzip2 bomb inflates in one read; under a 384 MiB address space the diff
    ends as one line, exit 2 (an internal MemoryError today, InvalidWheel once the archive
    reader refuses bzip2)."""
    from evidence.hostile_artifacts import bomb_artifact

    bomb = bomb_artifact(tmp_path / "n", "2.10.0.dev20260102+cu128", inflated_mb=256, lie=True)
    good = bomb_artifact(tmp_path / "o", "2.10.0.dev20260101+cu128", inflated_mb=1, lie=False)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (384 << 20, 384 << 20))

    res = subprocess.run([sys.executable, "-m", "wheel_size", "diff", str(good), str(bomb)],
                         env=checkout_env(), capture_output=True, text=True, timeout=300,
                         preexec_fn=limit, check=False)  # fmt: skip
    assert res.returncode == 2, res.stderr
    (line,) = res.stderr.splitlines()
    assert line.startswith("wheel-size: error: ") and "Traceback" not in res.stderr


# ---- the Action ----


def _inputs(remote: Path) -> dict[str, str]:
    return {
        "workflow": "21257348",
        "variants": "cuda12_8",
        "from": "2025-10-10",
        "to": "2025-10-11",
        "data-remote": str(remote),
        "create-issues": "true",
        "evidence": "false",
    }


def _run(fake: FakeGitHub, tmp_path: Path, plant: str) -> tuple[subprocess.CompletedProcess[str],
                                                                 dict[str, str], str]:  # fmt: skip
    remote = tmp_path / "data.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    env = runner_env(fake, tmp_path, _inputs(remote))
    env["PYTHONPATH"] = os.pathsep.join([plant, str(SRC)])
    res = run_entrypoint(env)
    outputs = parse_outputs((tmp_path / "output").read_text())
    summary = (tmp_path / "summary").read_text() if (tmp_path / "summary").exists() else ""
    return res, outputs, summary


def _branch_files(remote: Path) -> list[str]:
    return subprocess.run(
        ["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", "wheel-size-data"],
        capture_output=True, text=True, check=False,
    ).stdout.split()  # fmt: skip


def _one_error(res: subprocess.CompletedProcess[str]) -> str:
    assert res.returncode == 2, res.stdout + res.stderr
    errors = [ln for ln in res.stdout.splitlines() if ln.startswith("::error")]
    assert len(errors) == 1, res.stdout
    assert "Traceback" not in res.stderr + res.stdout
    return errors[0]


def test_action_memory_error_in_the_issue_step_keeps_the_night(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    make_nightly_repo(tmp_path, fake_github)
    plant = _plant(tmp_path, """
import wheel_size.regressions.issues.alerts as alerts
def _hog(*args, **kwargs):
    raise MemoryError()
alerts.alert_night = _hog
""")  # fmt: skip
    res, outputs, summary = _run(fake_github, tmp_path, plant)
    error = _one_error(res)
    assert error.endswith("::internal error: MemoryError (please report)")
    assert outputs["collected-runs"] == "2"  # stored before the failure, and said so
    assert re.fullmatch(r"[0-9a-f]{40}", outputs["commit"])
    assert outputs["regression"] == "true" and outputs["jump-count"] == "1"
    assert "### Significant jumps" in summary
    assert len([f for f in _branch_files(tmp_path / "data.git") if f.startswith("runs/")]) == 2
    assert fake_github.repo("pytorch/pytorch").issues == []


def test_action_crash_after_the_store_writes_what_is_known(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    make_nightly_repo(tmp_path, fake_github)
    plant = _plant(tmp_path, """
import wheel_size.fileio as fileio
_write = fileio.atomic_write
def _fail_on_report(path, data, *args, **kwargs):
    if str(path).endswith("wheel-size-report.md"):
        raise RecursionError("maximum recursion depth exceeded")
    return _write(path, data, *args, **kwargs)
fileio.atomic_write = _fail_on_report
""")  # fmt: skip
    res, outputs, summary = _run(fake_github, tmp_path, plant)
    error = _one_error(res)
    assert "internal error: RecursionError: maximum recursion depth exceeded" in error
    assert outputs["collected-runs"] == "2" and outputs["issues-created"]
    assert re.fullmatch(r"[0-9a-f]{40}", outputs["commit"])
    assert "report-path" not in outputs  # never written
    assert "### Significant jumps" in summary  # the summary came before the report file
    assert len(fake_github.repo("pytorch/pytorch").issues) == 1


def test_action_crash_before_anything_is_stored(fake_github: FakeGitHub, tmp_path: Path) -> None:
    make_nightly_repo(tmp_path, fake_github)
    plant = _plant(tmp_path, """
import wheel_size.track as track
def _bug(*args, **kwargs):
    raise KeyError("variant")
track.track = _bug
""")  # fmt: skip
    res, outputs, summary = _run(fake_github, tmp_path, plant)
    error = _one_error(res)
    assert error.endswith("::internal error: KeyError: 'variant' (please report)")
    assert outputs == {"regression": "false", "jump-count": "0", "jumps": "[]"}
    assert "wheel-size failed:" in summary and "KeyError" in summary
    assert _branch_files(tmp_path / "data.git") == []

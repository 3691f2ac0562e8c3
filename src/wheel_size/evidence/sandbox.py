"""Run the evidence worker with a memory and a wall-clock budget, and say how it ended.

The nightly itself must survive whatever the artifacts do, so their diff runs in a child
process: its address space is capped (RLIMIT_AS, set by the worker before it reads
anything), it gets a wall-clock timeout after which its whole process group is killed,
its temporary files live in a directory the parent removes, and its output goes to files
rather than pipes (a chatty child cannot fill the parent's memory either).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import wheel_size
from wheel_size.evidence.worker import EXIT_MEMORY, MEMORY_ENV

__all__ = ["Outcome", "run_limited", "worker_argv"]

_TAIL = 2000


@dataclass(frozen=True)
class Outcome:
    """How the child ended: ``ok`` (exit 0), ``memory`` (over its budget), ``timeout``,
    or ``failed`` (any other exit or a signal); ``detail`` is the end of its stderr."""

    kind: Literal["ok", "memory", "timeout", "failed"]
    returncode: int | None
    detail: str = ""


def worker_argv(old: Path, new: Path, result: Path) -> list[str]:
    return [sys.executable, "-m", "wheel_size.evidence.worker", str(old), str(new), str(result)]


def _child_env(workdir: Path, memory_bytes: int | None, extra: Mapping[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    # The worker imports this very package, wherever it was loaded from (an install, or a
    # checkout's src/ on sys.path).
    package_root = str(Path(wheel_size.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env[MEMORY_ENV] = str(memory_bytes or 0)
    env["TMPDIR"] = str(workdir)  # the diff's scratch files: removed with workdir
    env.pop("GITHUB_TOKEN", None)  # the worker reads files only
    env.pop("INPUT_GITHUB-TOKEN", None)
    return env


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            fh.seek(max(0, path.stat().st_size - _TAIL))
            return fh.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


def run_limited(
    argv: Sequence[str],
    *,
    workdir: Path,
    memory_bytes: int | None,
    timeout: float | None,
    env: Mapping[str, str] | None = None,
) -> Outcome:
    """Run ``argv`` (the worker, or a test's stand-in that honours ``MEMORY_ENV``) in its own
    session, in ``workdir``, and report how it ended."""
    workdir.mkdir(parents=True, exist_ok=True)
    out_path, err_path = workdir / "worker.out", workdir / "worker.err"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(
            list(argv),
            cwd=workdir,
            env=_child_env(workdir, memory_bytes, env or {}),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,  # one process group: a timeout kills all of it
        )
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            return Outcome("timeout", None, _tail(err_path))
        except BaseException:
            _kill_group(proc)
            raise
    detail = _tail(err_path)
    if code == 0:
        return Outcome("ok", 0, detail)
    if code == EXIT_MEMORY or "MemoryError" in detail:
        return Outcome("memory", code, detail)
    return Outcome("failed", code, detail)

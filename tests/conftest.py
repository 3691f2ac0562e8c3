"""Shared test helpers: run the CLI of *this* checkout in this process (``run_main``, the
default) or as a real subprocess (``run_cli``: the console script, resource limits, crash
isolation, signals)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import settings

from fakegithub import FakeGitHub

REPO_ROOT = Path(__file__).resolve().parents[1]
SRC = REPO_ROOT / "src"

# The same commit must get the same verdict in CI, so property tests there replay a fixed
# set of examples. Local runs explore new ones and keep what fails in .hypothesis/; the
# fuzz harnesses under scripts/ run the long campaigns (docs/reliability.md).
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def checkout_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """An environment whose Python imports ``wheel_size`` from this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    if extra:
        env.update(extra)
    return env


# Coverage measures CLI subprocesses through these variables (pyproject: patch = subprocess).
COVERAGE_VARIABLES = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")


def unmeasured(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` without coverage's subprocess measurement: for a child run under a file-size
    limit, whose coverage data file could not be written (and whose failure to write it would
    be taken for the command's own)."""
    return {k: v for k, v in env.items() if k not in COVERAGE_VARIABLES}


def run_cli(
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 300,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``wheel-size ARGS`` in a subprocess and capture its output (``preexec_fn`` runs in
    the child before it starts, e.g. to cap its memory with ``resource.setrlimit``). A test
    that needs no process of its own uses :func:`cli_runner.run_main`: the same result,
    without a Python start and every import again."""
    return subprocess.run(
        [sys.executable, "-m", "wheel_size", *args],
        env=checkout_env(env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        preexec_fn=preexec_fn,
    )


@pytest.fixture
def cli() -> object:
    """The :func:`run_cli` helper as a fixture."""
    return run_cli


@pytest.fixture
def main_cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    """:func:`cli_runner.run_main` as a fixture: ``main_cli(args, env=..., cwd=...)`` runs
    ``wheel-size ARGS`` in this process and reads as :func:`run_cli`'s result."""
    from cli_runner import run_main

    return run_main


@pytest.fixture
def github_world() -> FakeGitHub:
    """The fake GitHub's world, never served: for tests through the in-memory port
    (``fakegithub.memory.MemoryGitHub``), which cannot reach GitHub over HTTP."""
    return FakeGitHub()


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    """A started fake GitHub REST server (tests/fakegithub); stopped after the test."""
    with FakeGitHub() as fake:
        yield fake

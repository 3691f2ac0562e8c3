"""The in-process CLI runner reads as a subprocess would, and leaves the process as it was."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from cli_runner import run_main
from conftest import run_cli
from fakegithub import FakeGitHub


def test_same_result_as_the_subprocess_for_help_and_a_bad_command() -> None:
    for args in (["--help"], ["no-such-command"], ["report", "--history"]):
        inside, outside = run_main(args), run_cli(args)
        assert (inside.returncode, inside.stdout, inside.stderr) == (
            outside.returncode,
            outside.stdout,
            outside.stderr,
        )


def test_one_line_error_and_exit_2(tmp_path: Path) -> None:
    result = run_main(["audit", str(tmp_path / "missing.whl")])
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("wheel-size: error: ")
    assert result.stderr.count("\n") == 1


def test_env_cwd_and_tempdir_are_restored(tmp_path: Path) -> None:
    before_env, before_cwd, before_tmp = dict(os.environ), Path.cwd(), tempfile.tempdir
    env = {"WHEEL_SIZE_TEST_VARIABLE": "1", "TMPDIR": str(tmp_path)}
    result = run_main(["report", "--history", "nowhere"], env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("wheel-size: error: ")
    assert dict(os.environ) == before_env
    assert Path.cwd() == before_cwd
    assert tempfile.tempdir == before_tmp


def test_a_child_process_writes_into_the_captured_output(tmp_path: Path) -> None:
    """What git (or any child) writes to the inherited descriptors reaches the result, in
    order with the command's own lines, as it would from a subprocess."""
    import subprocess

    from cli_runner import captured

    with captured() as (out, err):
        print("before", flush=True)
        subprocess.run(["sh", "-c", "echo child; echo oops >&2"], check=True)
        print("after")
        print("warned", file=sys.stderr)
    assert out.text == "before\nchild\nafter\n"
    assert err.text == "oops\nwarned\n"


def test_the_fixture_is_the_runner(main_cli: Callable[..., object]) -> None:
    assert main_cli is run_main


def test_the_action_in_process_leaves_ssl_and_the_environment_as_they_were(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    """The Action patches ``ssl`` with the system trust store (an entry point's right): in
    this process that is undone, so no later test runs with it."""
    import ssl

    from action_runner import run_action, runner_env

    before_env, before_context = dict(os.environ), ssl.SSLContext
    env = runner_env(fake_github, tmp_path, {"audit-input": "nothing/*.whl"}, action="audit")
    done = run_action(env, "audit")
    assert done.returncode == 2
    assert "input audit-input: nothing/*.whl matches no file in the workspace" in done.stdout
    assert ssl.SSLContext is before_context
    assert dict(os.environ) == before_env

"""Issue 32: cancelling the action (SIGINT, as a cancelled job's ``docker kill --signal``
or Ctrl-C) printed a traceback; it ends with one line and the shell's 130. The entrypoint
runs as a process against the fake GitHub, held in the middle of a GitHub request."""

from __future__ import annotations

import datetime as dt
import signal
import subprocess
import sys
from pathlib import Path

from action_runner import ENTRYPOINT, runner_env
from fakegithub import FakeGitHub
from nightly_world import WORKFLOW_ID, add_night, add_world


def test_sigint_ends_with_one_line_and_130(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    add_night(wf, dt.date(2025, 10, 11))
    env = runner_env(fake_github, tmp_path, {"workflow": str(WORKFLOW_ID), "history-dir": "h"})
    held = fake_github.hold("GET", r"/actions/")
    proc = subprocess.Popen(
        [sys.executable, str(ENTRYPOINT)], env=env, cwd=env["GITHUB_WORKSPACE"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert held.reached.wait(60), "the action never asked GitHub"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        held.release()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, out + err
    assert "Traceback" not in out + err
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert errors == [
        "::error title=wheel-size::interrupted (SIGINT): the run was cancelled; what it wrote "
        "so far is complete"
    ]
    assert err.strip() == ""

"""Data-branch git against remotes that misbehave and processes that get killed.

A remote that accepts and never answers (HTTP and git://), one that stalls on the push,
a store killed with SIGKILL (its scratch clone swept by the next run) or stopped with
SIGTERM/SIGINT mid-fetch (clean exit, clone removed, git's helpers dead). Timeouts here are
a few seconds; no assertion is on elapsed time — only that the subprocess limits given to
pytest were not reached.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_runner import run_main
from conftest import checkout_env, run_cli
from git_servers import GitHttpServer, StalledServer
from history_factory import run
from wheel_size.errors import HistoryError, InputError
from wheel_size.history import GitBranchStore
from wheel_size.history.scratch import PREFIX, sweep_stale

TIMEOUT = 3.0


@pytest.fixture
def tmp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private temp dir for scratch clones, so other test runs' clones are not ours."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def scratch_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.name.startswith(PREFIX))


@pytest.fixture
def stalled() -> Iterator[StalledServer]:
    with StalledServer() as server:
        yield server


@pytest.mark.parametrize("scheme", ["http", "git"])
def test_stalled_remote_gives_up_with_one_line(
    stalled: StalledServer, tmp_root: Path, scheme: str
) -> None:
    url = f"{scheme}://127.0.0.1:{stalled.port}/o/data.git"
    store = GitBranchStore(url, timeout=TIMEOUT, backoff=0)
    with store, pytest.raises(HistoryError) as exc:
        store.write_runs([run("2025-10-11", {"cpu": 1.0})])
    msg = str(exc.value)
    assert msg.startswith(f"data branch wheel-size-data of {url}: git fetch ")
    assert "\n" not in msg
    # HTTP: git's own low-speed limit ends it; git:// has none, the hard deadline does
    expected = "Operation too slow" if scheme == "http" else "did not finish within 3 s"
    assert expected in msg, msg
    assert stalled.accepted.is_set()
    assert stalled.peers_closed(), "a git helper still holds the connection"
    assert scratch_dirs(tmp_root) == []


def test_stalled_remote_from_the_cli_is_exit_2(stalled: StalledServer, tmp_path: Path) -> None:
    url = f"git://127.0.0.1:{stalled.port}/o/data.git"
    res = run_cli(
        ["report", "--data-remote", url, "--from", "2025-10-01", "--to", "2025-10-02"],
        env={"WHEEL_SIZE_GIT_TIMEOUT": "2", "TMPDIR": str(tmp_path)},
        timeout=120,
    )
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr
    assert res.stderr.startswith(f"wheel-size: error: data branch wheel-size-data of {url}: ")
    assert "git fetch did not finish within 2 s" in res.stderr
    assert res.stdout == ""
    assert scratch_dirs(tmp_path) == []


def test_push_to_a_remote_that_stalls_is_one_error(tmp_path: Path, tmp_root: Path) -> None:
    (tmp_path / "srv").mkdir()
    with GitHttpServer(tmp_path / "srv", "u", "p") as server:
        bare = server.bare("o/data.git")
        server.stall_push = True
        url = server.url("o/data.git").replace("http://", "http://u:p@")
        store = GitBranchStore(url, timeout=TIMEOUT, backoff=0)
        with store, pytest.raises(HistoryError) as exc:
            store.write_runs([run("2025-10-11", {"cpu": 1.0})])
    msg = str(exc.value)
    assert "git push " in msg and "\n" not in msg and ":p@" not in msg
    assert scratch_dirs(tmp_root) == []
    heads = subprocess.run(
        ["git", "--git-dir", str(bare), "for-each-ref"], capture_output=True, text=True
    )
    assert heads.stdout == ""  # the stalled push stored nothing


def test_bad_timeouts_are_input_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--git-timeout must be a positive"):
        GitBranchStore(str(tmp_path), timeout=0)
    monkeypatch.setenv("WHEEL_SIZE_GIT_TIMEOUT", "soon")
    with pytest.raises(InputError, match="WHEEL_SIZE_GIT_TIMEOUT must be a number"):
        GitBranchStore(str(tmp_path))
    res = run_main(
        ["report", "--data-remote", str(tmp_path), "--git-timeout", "-1", "--from", "2025-10-01"]
    )
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "--git-timeout must be a positive number of seconds" in res.stderr


_HOLD = """
import sys, time
from wheel_size.history import GitBranchStore
store = GitBranchStore(sys.argv[1])
print(store._tmp, flush=True)
time.sleep(600)
"""


def _holder(remote: Path, tmp_root: Path) -> tuple[subprocess.Popen[str], Path]:
    """A process that opened a store and waits: its scratch clone, locked."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(remote)],
        env=checkout_env({"TMPDIR": str(tmp_root)}),
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def _age(path: Path, seconds: float) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past))


def test_killed_run_leaves_a_clone_the_next_run_removes(tmp_path: Path, tmp_root: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    dead, dead_dir = _holder(remote, tmp_root)
    live, live_dir = _holder(remote, tmp_root)
    try:
        dead.send_signal(signal.SIGKILL)
        dead.communicate(timeout=60)
        assert dead_dir.is_dir()  # SIGKILL: no clean-up could run
        other = tmp_root / "unrelated-dir"
        other.mkdir()
        young = tmp_root / f"{PREFIX}young"  # no lock yet, but too new to judge
        young.mkdir()
        for path in (dead_dir, live_dir, other):
            _age(path, 3600)
        with GitBranchStore(str(remote), timeout=60) as store:
            store.read_runs()
            assert not dead_dir.exists()
            assert live_dir.is_dir()  # its owner still holds the lock
            assert other.is_dir() and young.is_dir()
            assert store._tmp.is_dir()
        assert scratch_dirs(tmp_root) == sorted([live_dir, young])
    finally:
        for proc in (dead, live):
            proc.kill()
            proc.communicate(timeout=60)
    # once its owner is gone, the live one is stale too
    assert sweep_stale(60, tmp_root) == [live_dir]


@pytest.mark.parametrize(("sig", "status", "said"), [
    (signal.SIGTERM, 143, "wheel-size: terminated"),
    (signal.SIGINT, 130, "wheel-size: interrupted"),
])  # fmt: skip
def test_signal_mid_fetch_cleans_up(
    stalled: StalledServer, tmp_path: Path, sig: signal.Signals, status: int, said: str
) -> None:
    url = f"git://127.0.0.1:{stalled.port}/o/data.git"
    proc = subprocess.Popen(
        [sys.executable, "-m", "wheel_size", "report", "--data-remote", url,
         "--git-timeout", "600", "--from", "2025-10-01", "--to", "2025-10-02"],
        env=checkout_env({"TMPDIR": str(tmp_path)}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert stalled.accepted.wait(60), "git never connected"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == status, err
    assert err.strip() == said
    assert "Traceback" not in err and out == ""
    assert scratch_dirs(tmp_path) == []
    assert stalled.peers_closed(), "git was left running after the signal"


def test_action_input_reaches_the_store_option(tmp_path: Path) -> None:
    from wheel_size.action.track_inputs import track_inputs
    from wheel_size.cli.main import build_parser
    from wheel_size.cli.options import store_location_from_args

    env = {"INPUT_WORKFLOW": "nightly.yml", "INPUT_BRANCH": "main", "INPUT_GIT-TIMEOUT": "45",
           "GITHUB_REPOSITORY": "o/r"}  # fmt: skip
    assert track_inputs(env, tmp_path).store.git_timeout == 45.0
    assert track_inputs({**env, "INPUT_GIT-TIMEOUT": ""}, tmp_path).store.git_timeout is None
    args = build_parser().parse_args(["track", "--workflow", "1", "--git-timeout", "45"])
    assert store_location_from_args(args).git_timeout == 45.0


_DROPPED_INTERRUPT = """
import signal, subprocess, sys, tempfile
from pathlib import Path
import wheel_size  # counts SIGINT from here on
from wheel_size.history.gitrun import GitTimedOut, run_git


class Finalized:
    def __del__(self):
        signal.raise_signal(signal.SIGINT)  # its KeyboardInterrupt is "ignored" here


Finalized()  # as importlib's module-lock callback may during a lazy import
try:
    run_git(["git", "ls-remote", sys.argv[1]], cwd=Path(tempfile.gettempdir()),
            env={"PATH": "/usr/bin:/bin", "GIT_TERMINAL_PROMPT": "0"}, timeout=float(sys.argv[2]))
except KeyboardInterrupt:
    print("interrupted")
except GitTimedOut:
    print("waited for the timeout")
"""


def test_an_interrupt_python_dropped_still_stops_git(
    stalled: StalledServer, tmp_path: Path
) -> None:
    """The cause of the slow SIGINT: Python drops a KeyboardInterrupt raised inside a
    weakref callback or ``__del__`` (importlib's module-lock callback, in a lazy import),
    and the process went on into a fetch of the stalled remote, to wait for the git
    timeout. Made deterministic: the interrupt is dropped on purpose, then git is started."""
    script = tmp_path / "dropped.py"
    script.write_text(_DROPPED_INTERRUPT)
    url = f"git://127.0.0.1:{stalled.port}/o/data.git"
    done = subprocess.run(
        [sys.executable, str(script), url, "20"], env=checkout_env({"TMPDIR": str(tmp_path)}),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.stdout.strip() == "interrupted", done.stdout + done.stderr
    assert "KeyboardInterrupt" in done.stderr  # Python's "Exception ignored in …" said so

"""The token reaches an authenticated HTTP remote without ever being on a command line.

The remote is git's own ``http-backend`` behind Basic auth (tests/git_servers.py): a push
that lands proves the credentials got through; three witnesses prove they never were in
an argv — a ``git`` shim on PATH that logs its arguments, ``GIT_TRACE`` (git logs the argv
of every built-in and helper it starts, ``git-remote-http`` included) and a watcher reading
``/proc/*/cmdline`` while the store works.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from git_servers import GitHttpServer
from history_factory import run
from wheel_size.errors import HistoryError
from wheel_size.history import GitBranchStore, actions_remote

TOKEN = "ghs_ArgvWatch0123456789abcdefSECRET"


class ProcWatcher:
    """Reads every process's command line in a loop; keeps the ones that hold a needle."""

    def __init__(self, needles: list[str]) -> None:
        self.needles = [n.encode() for n in needles]
        self.hits: list[bytes] = []
        self.git_seen = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.is_set():
            for proc in Path("/proc").iterdir():
                if not proc.name.isdigit():
                    continue
                try:
                    argv = (proc / "cmdline").read_bytes()
                except OSError:
                    continue
                if argv.startswith(b"git") or b"/git" in argv.split(b"\0")[0]:
                    self.git_seen += 1
                if any(n in argv for n in self.needles):
                    self.hits.append(argv)

    def __enter__(self) -> ProcWatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[GitHttpServer]:
    root = tmp_path / "srv"
    root.mkdir()
    with GitHttpServer(root, "x-access-token", TOKEN) as srv:
        yield srv


@pytest.fixture
def witnesses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A PATH shim logging git's argv, and a GIT_TRACE file."""
    real = shutil.which("git")
    assert real
    shim_dir = tmp_path / "shim"
    shim_dir.mkdir()
    argv_log = tmp_path / "argv.log"
    shim = shim_dir / "git"
    shim.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{argv_log}"\nexec "{real}" "$@"\n')
    shim.chmod(0o755)
    trace = tmp_path / "trace.log"
    monkeypatch.setenv("PATH", f"{shim_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GIT_TRACE", str(trace))
    return argv_log, trace


def secrets() -> list[str]:
    """The token and every form of it a careless implementation would pass along."""
    basic = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
    return [TOKEN, basic, basic[:-4]]


def files_holding(root: Path, needles: list[str]) -> list[Path]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            if any(n.encode() in data for n in needles):
                found.append(path)
    return found


def test_push_and_fetch_with_the_token_never_in_argv(
    server: GitHttpServer, witnesses: tuple[Path, Path]
) -> None:
    argv_log, trace = witnesses
    bare = server.bare("o/data.git")
    url = actions_remote("o/data", TOKEN, f"http://127.0.0.1:{server.port}")
    assert TOKEN in url  # what the caller hands over still carries it ...
    with ProcWatcher(secrets()) as watcher:
        with GitBranchStore(url, secret=TOKEN, backoff=0) as store:
            assert TOKEN not in store.remote  # ... the store takes it out of the URL
            result = store.write_runs([run("2025-10-11", {"cpu": 1.0})])
            assert result.commit
            # nothing in the scratch clone (.git/config, FETCH_HEAD, logs) holds it
            assert files_holding(store._tmp, secrets()) == []
        with GitBranchStore(url, secret=TOKEN, backoff=0) as store:
            assert [r.date.isoformat() for r in store.read_runs()] == ["2025-10-11"]
            assert files_holding(store._tmp, secrets()) == []
    # the remote really got the push, through authenticated requests only
    pushed = subprocess.run(
        ["git", "--git-dir", str(bare), "ls-tree", "-r", "--name-only", "wheel-size-data"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "runs/2025/10/2025-10-11/202510110.json" in pushed
    assert server.seen_auth and all(map(server.authorized, server.seen_auth))
    # the witnesses saw git run ...
    argv_text = argv_log.read_text()
    trace_text = trace.read_text()
    assert "fetch" in argv_text and "push" in argv_text
    assert "remote-http" in trace_text  # the helper's argv is in the trace too
    assert watcher.git_seen > 0
    # ... and never with the token
    for needle in secrets():
        assert needle not in argv_text
        assert needle not in trace_text
    assert watcher.hits == []


def test_refused_token_error_names_the_remote_not_the_token(
    server: GitHttpServer, witnesses: tuple[Path, Path]
) -> None:
    server.bare("o/data.git")
    wrong = "ghs_WrongWrongWrong0123456789"
    url = actions_remote("o/data", wrong, f"http://127.0.0.1:{server.port}")
    with GitBranchStore(url, secret=wrong, backoff=0) as store, pytest.raises(HistoryError) as exc:
        store.write_runs([run("2025-10-11", {"cpu": 1.0})])
    msg = str(exc.value)
    assert "git fetch failed" in msg and f"127.0.0.1:{server.port}/o/data.git" in msg
    assert wrong not in msg and "\n" not in msg
    assert wrong not in witnesses[0].read_text() and wrong not in witnesses[1].read_text()


def test_credentials_in_a_user_given_url_move_to_the_header(
    server: GitHttpServer, tmp_path: Path
) -> None:
    """``--data-remote https://user:pass@host/x.git``: same treatment as the Actions token."""
    server.bare("me/sizes.git")
    password = "p@ss:word/" + TOKEN  # characters that must be quoted in a URL
    with GitHttpServer(tmp_path / "srv", "me", password) as other:
        quoted = f"http://me:{password.replace('@', '%40').replace('/', '%2F')}@127.0.0.1"
        with GitBranchStore(f"{quoted}:{other.port}/me/sizes.git", backoff=0) as store:
            assert store.remote == f"http://127.0.0.1:{other.port}/me/sizes.git"
            assert store.write_runs([run("2025-10-11", {"cpu": 1.0})]).commit
        assert other.seen_auth and all(map(other.authorized, other.seen_auth))

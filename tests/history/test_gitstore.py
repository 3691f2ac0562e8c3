"""The data-branch store against real git repositories (a local bare repo as the remote)."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest

from cli_runner import run_main
from history_factory import run
from wheel_size.errors import HistoryError
from wheel_size.history import GitBranchStore, actions_remote
from wheel_size.history.gitstore import redact_url


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    git("init", "-q", "--bare", "-b", "main", str(bare))
    return bare


def branch_files(remote: Path, branch: str = "wheel-size-data") -> list[str]:
    return git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", branch).splitlines()


def test_creates_orphan_branch_and_appends(remote: Path) -> None:
    with GitBranchStore(str(remote), backoff=0) as store:
        result = store.write_runs([run("2025-10-11", {"cpu": 1.0})])
        assert result.commit
    assert branch_files(remote) == ["README.md", "runs/2025/10/2025-10-11/202510110.json"]
    # orphan: a root commit, no history from any other branch
    assert git("--git-dir", str(remote), "rev-list", "--count", "wheel-size-data") == "1"
    with GitBranchStore(str(remote), backoff=0) as store:
        store.write_runs([run("2025-10-12", {"cpu": 1.1})])
        assert [r.date.isoformat() for r in store.read_runs()] == ["2025-10-11", "2025-10-12"]
    assert git("--git-dir", str(remote), "rev-list", "--count", "wheel-size-data") == "2"


def test_rerun_is_idempotent_no_commit(remote: Path) -> None:
    runs = [run("2025-10-11", {"cpu": 1.0})]
    with GitBranchStore(str(remote), backoff=0) as store:
        store.write_runs(runs)
    head = git("--git-dir", str(remote), "rev-parse", "wheel-size-data")
    with GitBranchStore(str(remote), backoff=0) as store:
        result = store.write_runs(runs)
    assert result.changed == [] and result.commit is None
    assert git("--git-dir", str(remote), "rev-parse", "wheel-size-data") == head


def test_concurrent_writers_lose_nothing(remote: Path) -> None:
    errors: list[BaseException] = []

    def writer(i: int) -> None:
        try:
            with GitBranchStore(str(remote), backoff=0.05, attempts=20) as store:
                store.write_runs([run(f"2025-10-{i + 1:02d}", {"cpu": float(i)})])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    files = [f for f in branch_files(remote) if f.startswith("runs/")]
    assert len(files) == 6


def test_rejected_push_after_all_attempts_is_one_error(remote: Path) -> None:
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected branch' >&2\nexit 1\n")
    hook.chmod(0o755)
    sleeps: list[float] = []
    store = GitBranchStore(str(remote), attempts=3, backoff=0.01, sleep=sleeps.append)
    with store, pytest.raises(HistoryError) as exc:
        store.write_runs([run("2025-10-11", {"cpu": 1.0})])
    msg = str(exc.value)
    assert "push rejected after 3 attempts" in msg
    assert "(last: protected branch)" in msg  # the remote's own reason, not git's summary
    assert "\n" not in msg
    assert len(sleeps) == 2  # jittered backoff between attempts
    assert branch_files_or_none(remote) is None


def branch_files_or_none(remote: Path) -> list[str] | None:
    try:
        return branch_files(remote)
    except subprocess.CalledProcessError:
        return None


def test_unreachable_remote_is_one_error(tmp_path: Path) -> None:
    with (
        GitBranchStore(str(tmp_path / "nope.git"), backoff=0) as store,
        pytest.raises(HistoryError, match="git fetch failed"),
    ):
        store.read_runs()


def test_token_never_in_messages(tmp_path: Path) -> None:
    token = "ghs_SECRETSECRET"
    url = actions_remote("o/r", token, "http://127.0.0.1:9")
    assert url == f"http://x-access-token:{token}@127.0.0.1:9/o/r.git"
    assert token not in redact_url(url)
    store = GitBranchStore(url, secret=token, attempts=1, backoff=0)
    assert token not in store.description
    with store, pytest.raises(HistoryError) as exc:
        store.read_runs()
    assert token not in str(exc.value)


def test_bad_branch_name() -> None:
    with pytest.raises(HistoryError, match="branch"):
        GitBranchStore("x", "-rf")


def test_relative_remote_path_resolves_against_the_cwd(
    remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git runs in a scratch directory elsewhere; ``--data-remote remote.git`` still means
    the one next to us."""
    monkeypatch.chdir(remote.parent)
    with GitBranchStore("remote.git", backoff=0) as store:
        assert store.remote == str(remote)
        assert store.write_runs([run("2025-10-11", {"cpu": 1.0})]).commit
    monkeypatch.chdir(remote)
    with GitBranchStore("../remote.git", backoff=0) as store:
        assert [r.date.isoformat() for r in store.read_runs()] == ["2025-10-11"]


def test_relative_remote_path_from_the_cli(remote: Path, tmp_path: Path) -> None:

    with GitBranchStore(str(remote), backoff=0) as store:
        store.write_runs([run("2025-10-11", {"cuda12_8": 1.0})])
    res = run_main(
        ["report", "--data-remote", "remote.git", "--from", "2025-10-11", "--to", "2025-10-11"],
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    assert "2025-10-11" in res.stdout


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("git@github.com:o/r.git", True),  # scp-like ssh
        ("ssh://git@github.com/o/r.git", True),
        ("https://github.com/o/r.git", True),
        ("git://127.0.0.1/r.git", True),
        ("file:///srv/r.git", True),
        ("/srv/r.git", True),
        ("data/r.git", False),
        ("./a:b/r.git", False),  # a colon after the first slash: still a path
        ("r.git", False),
    ],
)
def test_resolve_remote(given: str, kept: bool, tmp_path: Path) -> None:
    from wheel_size.history.gitrun import resolve_remote

    assert resolve_remote(given, tmp_path) == (given if kept else str(tmp_path / given))


@pytest.mark.parametrize("given", ["--upload-pack=evil:x", "-oProxyCommand=nc:22", "  "])
def test_remote_that_git_would_read_as_an_option_is_refused(given: str) -> None:
    from wheel_size.errors import InputError
    from wheel_size.history.gitrun import resolve_remote

    with pytest.raises(InputError):
        resolve_remote(given)


def test_dash_path_becomes_an_absolute_path(tmp_path: Path) -> None:
    """Without a host part it is a path; made absolute, git cannot take it for an option."""
    from wheel_size.history.gitrun import resolve_remote

    assert resolve_remote("--upload-pack=touch /tmp/x", tmp_path).startswith(str(tmp_path))

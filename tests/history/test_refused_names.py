"""Issue 32, point 5: entries git refuses to check out (``..``, ``.git``, ``GIT~1``) on
the data branch used to make every later run exit 2; they are now left out with one
counted warning, the run stores its night, and its commit removes them. Skipped stray
files are counted beyond the first few, not one warning line each."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from history_factory import run
from wheel_size.action.skipped import SHOWN, report_skipped
from wheel_size.history import DirectoryStore, GitBranchStore
from wheel_size.history.gitstore import refused_name
from wheel_size.history.recordfile import SkippedRecord, drain_skipped

BRANCH = "wheel-size-data"


def git(*args: str, cwd: Path | None = None, stdin: str | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, input=stdin
    ).stdout.strip()


@pytest.fixture(autouse=True)
def _no_leftover_warnings() -> None:
    drain_skipped()


def planted_branch(tmp_path: Path) -> Path:
    """A data branch with one good night and entries named ``..``, ``.git``, ``GIT~1``
    and ``.GIT.`` (written with plumbing: git's porcelain would refuse them too)."""
    remote = tmp_path / "data.git"
    git("init", "-q", "--bare", "-b", "main", str(remote))
    work = tmp_path / "work"
    git("init", "-q", "-b", BRANCH, str(work))
    DirectoryStore(work).write_runs([run("2023-10-01", {"cpu": 1.0})])
    git("add", "-A", cwd=work)
    good = git("write-tree", cwd=work)
    blob = git("hash-object", "-w", "--stdin", cwd=work, stdin="hook\n")
    bad = "".join(f"100644 blob {blob}\t{name}\n" for name in ("..", ".git", "GIT~1", ".GIT."))
    evil = git("mktree", cwd=work, stdin=bad)
    listing = git("ls-tree", good, cwd=work) + f"\n040000 tree {evil}\truns2\n"
    listing += f"100644 blob {blob}\t..\n"
    top = git("mktree", cwd=work, stdin=listing)
    env = ["-c", "user.name=m", "-c", "user.email=m@x"]
    commit = git(*env, "commit-tree", top, "-m", "plant", cwd=work)
    git(
        "--git-dir", str(remote), "fetch", "-q", str(work / ".git"), f"{commit}:refs/heads/{BRANCH}"
    )
    return remote


def test_names_git_refuses_never_block_a_run(tmp_path: Path) -> None:
    remote = planted_branch(tmp_path)
    with GitBranchStore(str(remote), BRANCH, backoff=0) as store:
        assert [str(r.date) for r in store.read_runs()] == ["2023-10-01"]
        result = store.write_runs([run("2025-10-11", {"cpu": 2.0})])
    assert result.commit
    warned = drain_skipped()
    assert len(warned) == 1 and "5 entries" in warned[0].message, warned
    paths = git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", BRANCH).splitlines()
    assert not any(refused_name(p) for p in paths)  # this run's commit removed them
    assert "runs/2023/10/2023-10-01/202310010.json" in paths  # nothing stored is lost
    assert "runs/2025/10/2025-10-11/202510110.json" in paths
    with GitBranchStore(str(remote), BRANCH, backoff=0) as store:
        assert len(store.read_runs()) == 2
    assert drain_skipped() == []


@pytest.mark.parametrize(
    ("path", "refused"),
    [
        ("..", True),
        ("runs/../x", True),
        (".git", True),
        ("a/.GIT/config", True),
        ("GIT~1", True),
        ("a/git~12", True),
        (".git. ", True),
        ("runs/2025/10/x.json", False),
        (".github/x", False),
        ("gitx~1", False),
        ("...", False),
    ],
)
def test_refused_names(path: str, refused: bool) -> None:
    assert refused_name(path) is refused


def test_many_skipped_files_are_counted_not_named_one_by_one(tmp_path: Path) -> None:
    records = [SkippedRecord(f"runs/x{n}.json", f"runs/x{n}.json: not JSON") for n in range(500)]
    err, notes = io.StringIO(), io.StringIO()
    summary = tmp_path / "summary.md"
    report_skipped(err, annotations=notes, summary_path=str(summary), records=records)
    lines = err.getvalue().splitlines()
    assert len(lines) == SHOWN + 1
    assert lines[-1].startswith(f"wheel-size: warning: {500 - SHOWN} more stored file(s)")
    assert len(notes.getvalue().splitlines()) == SHOWN + 1
    text = summary.read_text()
    assert "500 file(s)" in text and f"{500 - SHOWN} more" in text
    assert text.count("| `runs/x") == SHOWN

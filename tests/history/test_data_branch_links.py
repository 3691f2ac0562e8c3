"""The data branch is data (issue 17, point 5): a committed symbolic link or submodule
(gitlink) is refused on read and never followed on write; the run's own night is stored
through a real directory, and each link is named in one warning."""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

import pytest

from cli_runner import run_main
from fakegithub import FakeGitHub
from fakegithub.memory import MemoryGitHub
from history_factory import run
from nightly_world import WORKFLOW_ID, add_night, add_world
from wheel_size.collect import WorkflowSource
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.history import DirectoryStore, GitBranchStore
from wheel_size.history.investigations import InvestigationNote, write_notes
from wheel_size.history.recordfile import drain_skipped
from wheel_size.track import TrackOptions, track

D = dt.date
BRANCH = "wheel-size-data"
NIGHT = D(2025, 10, 11)
SOURCE = WorkflowSource("pytorch/pytorch", str(WORKFLOW_ID), "nightly")


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def tree(remote: Path) -> dict[str, str]:
    """path -> mode of every entry on the data branch."""
    out = git("--git-dir", str(remote), "ls-tree", "-r", BRANCH)
    entries = {}
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        entries[path] = meta.split()[0]
    return entries


@pytest.fixture(autouse=True)
def _no_leftover_warnings() -> None:
    drain_skipped()


@pytest.fixture
def hostile_branch(tmp_path: Path) -> tuple[Path, Path]:
    """A data branch with one good night, a directory symlink ``runs/2025`` pointing out of
    the clone, a symlink ``report.md`` to a file outside, a link ``investigations`` and a
    gitlink ``runs/2024``. Returns (remote, the outside directory)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not yours\n")
    remote = tmp_path / "data.git"
    git("init", "-q", "--bare", "-b", "main", str(remote))
    work = tmp_path / "work"
    git("init", "-q", "-b", BRANCH, str(work))
    DirectoryStore(work).write_runs([run("2023-10-01", {"cpu": 1.0})])
    (work / "runs/2025").symlink_to(outside, target_is_directory=True)
    (work / "report.md").symlink_to(outside / "secret.txt")
    (work / "investigations").symlink_to(outside, target_is_directory=True)
    git("add", "-A", cwd=work)
    sub = "1" * 40
    git("update-index", "--add", "--cacheinfo", f"160000,{sub},runs/2024", cwd=work)
    git("-c", "user.name=m", "-c", "user.email=m@x", "commit", "-q", "-m", "plant", cwd=work)
    git("push", "-q", str(remote), f"{BRANCH}:{BRANCH}", cwd=work)
    assert tree(remote)["runs/2025"] == "120000" and tree(remote)["runs/2024"] == "160000"
    return remote, outside


def client(fake: FakeGitHub) -> PyGithubPort:
    return PyGithubPort(connect(fake.token, fake.url, retry=RetryPolicy(total=0, between_writes=0)))


def outside_files(outside: Path) -> list[str]:
    return sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*"))


def test_track_never_writes_through_a_symlinked_data_branch(
    github_world: FakeGitHub, hostile_branch: tuple[Path, Path]
) -> None:
    remote, outside = hostile_branch
    wf = add_world(github_world)
    night = add_night(wf, D(2025, 10, 11))
    with GitBranchStore(str(remote), backoff=0) as store:
        res = track(
            store, TrackOptions(SOURCE), github=MemoryGitHub(github_world), today=D(2025, 10, 11)
        )
    assert res.write.commit
    assert outside_files(outside) == ["secret.txt"]  # nothing written outside the clone
    assert (outside / "secret.txt").read_text() == "not yours\n"
    entries = tree(remote)
    record = f"runs/2025/10/2025-10-11/{night}.json"
    assert entries[record] == "100644"  # the night is stored, as a regular file
    assert entries["report.md"] == "100644"
    assert not any(mode in ("120000", "160000") for mode in entries.values())
    assert "runs/2023/10/2023-10-01/202310010.json" in entries  # nothing stored is lost
    warned = {w.path: w.message for w in drain_skipped()}
    assert set(warned) == {"runs/2025", "runs/2024", "report.md", "investigations"}
    assert "symbolic link" in warned["runs/2025"] and "not followed" in warned["runs/2025"]
    assert "submodule" in warned["runs/2024"]
    # a second run reads the branch as plain data and stores nothing new
    with GitBranchStore(str(remote), backoff=0) as store:
        again = track(
            store, TrackOptions(SOURCE), github=MemoryGitHub(github_world), today=D(2025, 10, 11)
        )
    assert again.write.changed == []
    assert drain_skipped() == []


def test_reading_refuses_links_and_names_them(hostile_branch: tuple[Path, Path]) -> None:
    remote, outside = hostile_branch
    day = outside / "10/2025-10-11"
    day.mkdir(parents=True)
    DirectoryStore(outside.parent / "donor").write_runs([run("2025-10-11", {"cpu": 9.0})])
    donor = outside.parent / "donor/runs/2025/10/2025-10-11/202510110.json"
    (day / "202510110.json").write_bytes(donor.read_bytes())
    with GitBranchStore(str(remote), backoff=0) as store:
        dates = [r.date for r in store.read_runs()]
    assert dates == [D(2023, 10, 1)]  # the record behind the link is never read
    assert {w.path for w in drain_skipped()} >= {"runs/2025", "runs/2024"}


def test_directory_store_replaces_a_link_instead_of_following_it(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "h"
    (root / "runs").mkdir(parents=True)
    (root / "runs/2025").symlink_to(outside, target_is_directory=True)
    assert DirectoryStore(root).read_runs() == []
    store = DirectoryStore(root)
    result = store.write_runs([run("2025-10-11", {"cpu": 1.0})])
    assert result.changed == ["runs/2025/10/2025-10-11/202510110.json"]
    assert list(outside.iterdir()) == []
    assert not (root / "runs/2025").is_symlink() and (root / "runs/2025").is_dir()
    assert [r.date for r in store.read_runs()] == [D(2025, 10, 11)]
    (message,) = [w.message for w in drain_skipped()]
    assert message.startswith("runs/2025: a symbolic link") and "not followed" in message


def test_a_link_in_place_of_the_record_file_is_replaced(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("keep\n")
    root = tmp_path / "h"
    day = root / "runs/2025/10/2025-10-11"
    day.mkdir(parents=True)
    (day / "202510110.json").symlink_to(outside)
    DirectoryStore(root).write_runs([run("2025-10-11", {"cpu": 1.0})])
    assert outside.read_text() == "keep\n"
    assert not (day / "202510110.json").is_symlink()
    assert [r.date for r in DirectoryStore(root).read_runs()] == [D(2025, 10, 11)]


def test_notes_never_follow_a_linked_directory(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "h"
    root.mkdir()
    (root / "investigations").symlink_to(outside, target_is_directory=True)
    note = InvestigationNote(key="jump/cuda12_8/2025-10-11", issue=7)
    changed = write_notes(DirectoryStore(root), [note], "notes")
    assert changed and list(outside.iterdir()) == []
    assert (root / changed[0]).is_file() and not (root / "investigations").is_symlink()


def test_cli_track_names_the_link_once(
    fake_github: FakeGitHub, hostile_branch: tuple[Path, Path]
) -> None:
    remote, outside = hostile_branch
    wf = add_world(fake_github)
    add_night(wf, D(2025, 10, 11))
    env = {
        **fake_github.env(),
        "GITHUB_ACTIONS": "",
        "GITHUB_OUTPUT": "",
        "GITHUB_STEP_SUMMARY": "",
    }
    res = run_main(
        ["track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
         "--date", "2025-10-11", "--data-remote", str(remote)],
        env=env,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if "runs/2025" in ln]
    assert len(lines) == 1 and "symbolic link" in lines[0]
    assert outside_files(outside) == ["secret.txt"]

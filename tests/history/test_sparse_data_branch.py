"""Issue 32, point 5: a run reads the data branch as data: only what it reads and writes
(runs/, investigations/, README.md, report.md, index.html) is checked out, and over a
server with partial clone, blobs elsewhere are never downloaded (a 2 GiB blob added 23 s,
10^5 stray files 105 s). What is elsewhere stays on the branch."""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

from history_factory import run
from wheel_size.history import DirectoryStore, GitBranchStore

BRANCH = "wheel-size-data"


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def test_only_the_data_is_checked_out_and_fetched(tmp_path: Path) -> None:
    remote = tmp_path / "data.git"
    git("init", "-q", "--bare", "-b", "main", str(remote))
    git("--git-dir", str(remote), "config", "uploadpack.allowFilter", "true")
    work = tmp_path / "work"
    git("init", "-q", "-b", BRANCH, str(work))
    DirectoryStore(work).write_runs([run("2023-10-01", {"cpu": 1.0})])
    (work / "stray").mkdir()
    for n in range(300):
        (work / "stray" / f"f{n}.txt").write_text(f"{n}\n")
    (work / "big.bin").write_bytes(b"\0" * (4 << 20))
    git("add", "-A", cwd=work)
    git("-c", "user.name=m", "-c", "user.email=m@x", "commit", "-q", "-m", "data", cwd=work)
    git("push", "-q", str(remote), f"{BRANCH}:{BRANCH}", cwd=work)
    big = git("rev-parse", f"{BRANCH}:big.bin", cwd=work)

    url = f"file://{remote}"
    with GitBranchStore(url, BRANCH, backoff=0) as store:
        assert [str(r.date) for r in store.read_runs()] == ["2023-10-01"]
        tree = store.workdir
        assert not (tree / "stray").exists() and not (tree / "big.bin").exists()
        missing = git("rev-list", "--objects", "--missing=print", "--all", cwd=tree)
        assert f"?{big}" in missing.splitlines()  # never downloaded
        result = store.write_runs([run("2025-10-11", {"cpu": 2.0})])
    assert result.commit
    paths = git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", BRANCH).splitlines()
    assert "big.bin" in paths and sum(p.startswith("stray/") for p in paths) == 300
    assert "runs/2025/10/2025-10-11/202510110.json" in paths


def _branch_with_runs(tmp_path: Path, dates: list[str]) -> str:
    remote = tmp_path / "data.git"
    git("init", "-q", "--bare", "-b", "main", str(remote))
    git("--git-dir", str(remote), "config", "uploadpack.allowFilter", "true")
    work = tmp_path / "work"
    git("init", "-q", "-b", BRANCH, str(work))
    DirectoryStore(work).write_runs([run(d, {"cpu": 1.0 + n}) for n, d in enumerate(dates)])
    git("add", "-A", cwd=work)
    git("-c", "user.name=m", "-c", "user.email=m@x", "commit", "-q", "-m", "data", cwd=work)
    git("push", "-q", str(remote), f"{BRANCH}:{BRANCH}", cwd=work)
    return f"file://{remote}"


def _checked_out(tree: Path) -> list[str]:
    return sorted(p.parent.name for p in (tree / "runs").rglob("*.json"))


DATES = ["2023-10-01", "2025-09-30", "2025-10-01", "2025-10-11", "2025-10-31", "2025-11-01"]


def test_a_window_checks_out_only_its_runs(tmp_path: Path) -> None:
    """Issue 32 point 5: a run that knows its window checks out the runs/ of those dates
    only; a wider read later widens the checkout, and nothing is lost."""
    url = _branch_with_runs(tmp_path, DATES)
    with GitBranchStore(url, BRANCH, backoff=0) as store:
        got = store.read_runs(dt.date(2025, 10, 1), dt.date(2025, 10, 31))
        assert [str(r.date) for r in got] == ["2025-10-01", "2025-10-11", "2025-10-31"]
        assert _checked_out(store.workdir) == ["2025-10-01", "2025-10-11", "2025-10-31"]
        remote = url.removeprefix("file://")
        listing = git("--git-dir", remote, "ls-tree", "-r", BRANCH, "runs/2023/").split()
        missing = git("rev-list", "--objects", "--missing=print", "--all", cwd=store.workdir)
        assert f"?{listing[2]}" in missing.splitlines()  # an old night's blob: not fetched
        # A narrower read inside the window keeps the checkout; a wider one widens it.
        assert len(store.read_runs(dt.date(2025, 10, 11), dt.date(2025, 10, 11))) == 1
        assert [str(r.date) for r in store.read_runs()] == DATES
        assert _checked_out(store.workdir) == DATES


def test_a_long_window_checks_out_its_months(tmp_path: Path) -> None:
    url = _branch_with_runs(tmp_path, DATES)
    with GitBranchStore(url, BRANCH, backoff=0) as store:
        got = store.read_runs(dt.date(2025, 9, 15), dt.date(2025, 10, 20))
        assert [str(r.date) for r in got] == ["2025-09-30", "2025-10-01", "2025-10-11"]
        assert _checked_out(store.workdir) == DATES[1:5]  # September and October


def test_a_write_after_a_narrow_read_keeps_every_record(tmp_path: Path) -> None:
    """A write after a narrowed read stores its record (inside or outside the window) and
    every other record stays on the branch; a concurrent writer's record is kept too."""
    url = _branch_with_runs(tmp_path, DATES)
    with GitBranchStore(url, BRANCH, backoff=0) as store:
        store.read_runs(dt.date(2025, 10, 11), dt.date(2025, 10, 11))
        with GitBranchStore(url, BRANCH, backoff=0) as other:  # lands first: a race
            assert other.write_runs([run("2025-10-12", {"cpu": 9.0})]).commit
        result = store.write_runs([run("2024-01-05", {"cpu": 3.0}), run("2025-10-11", {"cpu": 5})])
        assert result.commit
        assert len(store.read_runs()) == len(DATES) + 2
    with GitBranchStore(url, BRANCH, backoff=0) as fresh:
        dates = [str(r.date) for r in fresh.read_runs()]
    assert dates == sorted([*DATES, "2024-01-05", "2025-10-12"])


def test_window_patterns() -> None:
    from wheel_size.history.gitstore import window_runs

    assert window_runs(None, dt.date(2025, 1, 1)) is None
    assert window_runs(dt.date(2025, 1, 2), dt.date(2025, 1, 1)) is None
    assert window_runs(dt.date(2025, 12, 31), dt.date(2026, 1, 1)) == (
        "/runs/2025/12/2025-12-31/",
        "/runs/2026/01/2026-01-01/",
    )
    assert window_runs(dt.date(2025, 11, 20), dt.date(2026, 2, 1)) == (
        "/runs/2025/11/",
        "/runs/2025/12/",
        "/runs/2026/01/",
        "/runs/2026/02/",
    )
    assert window_runs(dt.date(2020, 1, 1), dt.date(2025, 1, 1)) is None

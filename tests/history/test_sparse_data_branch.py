"""Issue 32, point 5: a run reads the data branch as data: only what it reads and writes
(runs/, investigations/, README.md, report.md, index.html) is checked out, and over a
server with partial clone, blobs elsewhere are never downloaded (a 2 GiB blob added 23 s,
10^5 stray files 105 s). What is elsewhere stays on the branch."""

from __future__ import annotations

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

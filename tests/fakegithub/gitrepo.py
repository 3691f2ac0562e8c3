"""Commits and comparisons read from a real local git repository with real git, so
``ahead_by``, merge bases, renames and gitlinks are what git says, not what we assume."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .model import Commit, FileChange
from .query import parse_time

_STATUS = {
    "A": "added",
    "D": "removed",
    "M": "modified",
    "R": "renamed",
    "C": "copied",
    "T": "changed",
}

_LOG_FORMAT = "%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x1e"


class GitRepo:
    """Read-only view of a git directory (work tree or bare)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def _git(self, *args: str, check: bool = True) -> str:
        result = subprocess.run(
            ["git", "-C", str(self.path), *args],
            capture_output=True,
            text=True,
            check=False,
        )
        if check and result.returncode != 0:
            raise LookupError(result.stderr.strip())
        return result.stdout

    def resolve(self, ref: str) -> str | None:
        """Full sha of a commit-ish, or None (GitHub answers 404/422 then)."""
        if not ref or ref.startswith("-"):
            return None
        result = subprocess.run(
            ["git", "-C", str(self.path), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
            capture_output=True,
            text=True,
            check=False,
        )
        return result.stdout.strip() or None

    def _parse_log(self, text: str) -> list[Commit]:
        commits = []
        for record in text.split("\x1e"):
            record = record.lstrip("\n")
            if not record:
                continue
            sha, tree, parents, an, ae, ad, cn, ce, cd, body = record.split("\x00", 9)
            commits.append(
                Commit(
                    sha=sha,
                    message=body.rstrip("\n"),
                    parents=parents.split(),
                    files=[],
                    author_name=an,
                    author_email=ae,
                    author_date=parse_time(ad),
                    committer_name=cn,
                    committer_email=ce,
                    committer_date=parse_time(cd),
                    tree=tree,
                )
            )
        return commits

    def commit(self, sha: str) -> Commit:
        return self._parse_log(self._git("log", "-1", f"--format={_LOG_FORMAT}", sha))[0]

    def log_range(self, base: str, head: str) -> list[Commit]:
        """Commits in ``base..head``, oldest first (GitHub's chronological order)."""
        return self._parse_log(
            self._git("log", "--reverse", f"--format={_LOG_FORMAT}", f"{base}..{head}")
        )

    def count(self, spec: str) -> int:
        return int(self._git("rev-list", "--count", spec).strip() or 0)

    def merge_base(self, a: str, b: str) -> str | None:
        out = self._git("merge-base", a, b, check=False).strip()
        return out or None

    def diff(self, old: str | None, new: str) -> list[FileChange]:
        """Changed files between two commits (``old`` None: the root commit's tree)."""
        spec = ["--root", new] if old is None else [old, new]
        raw = self._git("diff-tree", "-r", "-z", "-M", "--raw", "--no-commit-id", *spec)
        numstat = self._git("diff-tree", "-r", "-z", "-M", "--numstat", "--no-commit-id", *spec)
        counts = self._numstat(numstat)
        changes = []
        fields = raw.split("\x00")
        i = 0
        while i < len(fields) - 1:
            meta = fields[i]
            if not meta.startswith(":"):
                i += 1
                continue
            _old_mode, _new_mode, _old_sha, new_sha, status = meta[1:].split(" ")
            letter = status[0]
            if letter in "RC":
                previous, path = fields[i + 1], fields[i + 2]
                i += 3
            else:
                previous, path = None, fields[i + 1]
                i += 2
            added, deleted = counts.get(path, (0, 0))
            changes.append(
                FileChange(
                    filename=path,
                    status=_STATUS.get(letter, "modified"),
                    additions=added,
                    deletions=deleted,
                    previous_filename=previous,
                    sha=None if letter == "D" else new_sha,
                )
            )
        return changes

    @staticmethod
    def _numstat(text: str) -> dict[str, tuple[int, int]]:
        counts: dict[str, tuple[int, int]] = {}
        fields = text.split("\x00")
        i = 0
        while i < len(fields):
            entry = fields[i]
            if not entry:
                i += 1
                continue
            added, deleted, path = entry.split("\t", 2)
            if path == "":  # rename: old and new names follow as separate fields
                path = fields[i + 2]
                i += 3
            else:
                i += 1
            counts[path] = (
                int(added) if added.isdigit() else 0,
                int(deleted) if deleted.isdigit() else 0,
            )
        return counts

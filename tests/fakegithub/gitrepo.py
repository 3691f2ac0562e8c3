"""Commits and comparisons read from a real local git repository with real git, so
``ahead_by``, merge bases, renames and gitlinks are what git says, not what we assume."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

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


_SHA = re.compile(r"[0-9a-f]{40}")


def _shas(*refs: str | None) -> bool:
    """Every ref a full object id (what it names never changes: its answer can be kept)."""
    return all(ref is None or _SHA.fullmatch(ref) for ref in refs)


class GitRepo:
    """Read-only view of a git directory (work tree or bare).

    Answers about full object ids are kept: a commit, a range or a diff between two ids is
    the same forever, so a test that compares the same nights again (the PR check's search
    for a merge base does, at every position) starts git once per question. Refs (branch
    names, short ids) are always asked again: a test may move them.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._kept: dict[tuple[str, ...], Any] = {}

    def _keep(self, key: tuple[str, ...], refs: tuple[str | None, ...], answer: Any) -> Any:
        if _shas(*refs):
            self._kept[key] = answer
        return answer

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
        if ("resolve", ref) in self._kept:
            return self._kept[("resolve", ref)]  # type: ignore[no-any-return]
        result = subprocess.run(
            ["git", "-C", str(self.path), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
            capture_output=True,
            text=True,
            check=False,
        )
        sha = result.stdout.strip() or None
        if sha is not None and sha == ref:  # a full id of a commit names it forever
            self._keep(("resolve", ref), (ref,), sha)
        return sha

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
        found = self._kept.get(("commit", sha))
        if found is None:
            found = self._parse_log(self._git("log", "-1", f"--format={_LOG_FORMAT}", sha))[0]
            self._keep(("commit", sha), (sha,), found)
        return found

    def log_range(self, base: str, head: str) -> list[Commit]:
        """Commits in ``base..head``, oldest first (GitHub's chronological order)."""
        found = self._kept.get(("log", base, head))
        if found is None:
            text = self._git("log", "--reverse", f"--format={_LOG_FORMAT}", f"{base}..{head}")
            found = self._keep(("log", base, head), (base, head), self._parse_log(text))
        return list(found)

    def count(self, spec: str) -> int:
        found = self._kept.get(("count", spec))
        if found is None:
            found = int(self._git("rev-list", "--count", spec).strip() or 0)
            self._keep(("count", spec), tuple(spec.split("..")), found)
        return found

    def merge_base(self, a: str, b: str) -> str | None:
        found = self._kept.get(("merge-base", a, b))
        if found is None:
            found = self._git("merge-base", a, b, check=False).strip() or None
            if found is not None:  # none yet: the objects may still arrive
                self._keep(("merge-base", a, b), (a, b), found)
        return found

    def diff(self, old: str | None, new: str) -> list[FileChange]:
        """Changed files between two commits (``old`` None: the root commit's tree)."""
        found = self._kept.get(("diff", old or "", new))
        if found is None:
            found = self._keep(("diff", old or "", new), (old, new), self._diff(old, new))
        return list(found)

    def _diff(self, old: str | None, new: str) -> list[FileChange]:
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

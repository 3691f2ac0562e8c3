"""Commits of a window, as plain data: what the ranking and the issue need, nothing more."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wheel_size.regressions.window.text_signals import PatchTerms, patch_terms

__all__ = ["ChangedFile", "Commit", "commit_from_api", "files_from_api", "pull_request_number"]

# "Some title (#165055)" -- the squash-merge convention; the last one wins.
_TITLE_PR = re.compile(r"\(#(\d+)\)\s*$")
_PATCH_WORDS = re.compile(
    r"cutlass|fbgemm|-O[0-3s]\b|instantiat|template|compile_options|arch_list|gencode",
    re.IGNORECASE,
)
# ghstack / Meta's land bot: "Pull Request resolved: https://github.com/o/r/pull/165055".
_RESOLVED = re.compile(r"^Pull Request resolved:\s*\S*?/pull/(\d+)\b", re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class ChangedFile:
    """One entry of a commit's ``files`` (GitHub's diff-entry)."""

    filename: str
    status: str  # added, removed, modified, renamed, copied, changed, unchanged
    additions: int = 0
    deletions: int = 0
    submodule: bool = False  # a gitlink: the patch is "Subproject commit <sha>"
    # Size-relevant words seen in the patch (e.g. "cutlass", "-O3"), so a CMake change
    # that widens a kernel regex can be told from one that renames a target.
    patch_keywords: frozenset[str] = frozenset()
    # What the changed lines name, and the toolkit versions they are scoped to.
    terms: PatchTerms = field(default_factory=PatchTerms)


@dataclass(frozen=True)
class Commit:
    """A commit between the two nightlies' base SHAs."""

    sha: str
    message: str
    html_url: str = ""
    author: str = ""
    # None: not fetched (GET /commits/{sha} is one request per commit; we cap them).
    files: tuple[ChangedFile, ...] | None = None
    files_truncated: bool = False  # the commit has more files than one page holds
    parents: tuple[str, ...] = ()  # SHAs, when the listing gave them (build evidence)
    login: str = ""  # the author's GitHub login, when known (only for the opt-in cc)

    @property
    def title(self) -> str:
        return self.message.strip().split("\n", 1)[0].strip()

    @property
    def body(self) -> str:
        parts = self.message.strip().split("\n", 1)
        return parts[1] if len(parts) == 2 else ""

    @property
    def short_sha(self) -> str:
        return self.sha[:12]

    @property
    def pr(self) -> int | None:
        return pull_request_number(self.message)


def pull_request_number(message: str) -> int | None:
    """The pull request a commit came from, from its message (None if it does not say)."""
    resolved = _RESOLVED.search(message)
    if resolved is not None:
        return int(resolved[1])
    title = message.strip().split("\n", 1)[0] if message.strip() else ""
    in_title = _TITLE_PR.search(title.strip())
    return int(in_title[1]) if in_title is not None else None


def files_from_api(entries: Sequence[Mapping[str, Any]]) -> tuple[ChangedFile, ...]:
    """Convert GitHub diff-entries; a gitlink shows up as a one-line 'Subproject commit' patch."""
    files = []
    for entry in entries:
        patch = entry.get("patch") or ""
        files.append(
            ChangedFile(
                filename=str(entry["filename"]),
                status=str(entry.get("status") or "modified"),
                additions=int(entry.get("additions") or 0),
                deletions=int(entry.get("deletions") or 0),
                submodule="Subproject commit" in patch,
                patch_keywords=frozenset(m.lower() for m in _PATCH_WORDS.findall(patch)),
                terms=patch_terms(patch),
            )
        )
    return tuple(files)


def commit_from_api(data: Mapping[str, Any], *, with_files: bool = False) -> Commit:
    """Build a :class:`Commit` from a GitHub ``commit`` object (compare or get-commit)."""
    inner = data.get("commit") or {}
    author = (inner.get("author") or {}).get("name") or ""
    files = None
    truncated = False
    if with_files and "files" in data:
        entries = list(data.get("files") or [])
        files = files_from_api(entries)
        truncated = len(entries) >= 300
    return Commit(
        sha=str(data["sha"]),
        message=str(inner.get("message") or ""),
        html_url=str(data.get("html_url") or ""),
        author=str(author),
        files=files,
        files_truncated=truncated,
        parents=tuple(str(p["sha"]) for p in data.get("parents") or [] if p.get("sha")),
        login=str((data.get("author") or {}).get("login") or ""),
    )

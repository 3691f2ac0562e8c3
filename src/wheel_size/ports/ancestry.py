"""How two commits of one repository relate, as the PR check's merge-base comparison needs it.

One ``compare`` request answers both questions the check asks: where a pull request's head
meets its base branch (``merge_base_sha``) and whether a stored night's base commit is an
ancestor of that merge base (``status`` "ahead" or "identical", ``ahead_by`` commits apart).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["CommitRelation", "RelatesCommits"]


@dataclass(frozen=True)
class CommitRelation:
    """GitHub's compare of ``base...head``: ``status`` is "ahead" when ``base`` is an
    ancestor of ``head``, "behind" for the reverse, "identical" or "diverged"."""

    status: str
    ahead_by: int  # commits in head not in base
    behind_by: int  # commits in base not in head
    merge_base_sha: str

    @property
    def base_is_ancestor(self) -> bool:
        return self.status in ("ahead", "identical")


class RelatesCommits(Protocol):
    """Compares commits of one repository (``contents: read``); one request per call."""

    @property
    def full_name(self) -> str: ...

    def relate(self, base: str, head: str) -> CommitRelation:
        """``base...head`` (a :class:`~wheel_size.ports.GitHubFailure` when either is unknown)."""
        ...

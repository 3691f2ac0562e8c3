"""The pull requests the PR check reads: which open pull request a build's head commit is.

A ``workflow_run`` job that may comment must learn its pull request from GitHub, never from
what the untrusted build uploaded; these are the two reads it needs (``pull-requests: read``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["PullRequests", "PullView"]


@dataclass(frozen=True)
class PullView:
    """The fields of a pull request the check decides on."""

    number: int
    state: str
    head_sha: str
    head_ref: str
    head_repository: str  # owner/name; empty when the head repository was deleted
    body: str
    html_url: str
    base_ref: str = ""  # the branch it would merge into


class PullRequests(Protocol):
    """Pull requests of one repository (the base repository the PRs were opened against)."""

    @property
    def full_name(self) -> str: ...

    def pull(self, number: int) -> PullView:
        """Pull request ``number`` (a 404 :class:`~wheel_size.ports.GitHubFailure` if none)."""
        ...

    def open_pulls(self, head: str | None, *, max_pulls: int) -> list[PullView]:
        """Open pull requests, newest first; only those from ``head`` (``owner:branch``) when
        given, else at most ``max_pulls`` of them."""
        ...

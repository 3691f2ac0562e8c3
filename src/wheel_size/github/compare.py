"""Commit ancestry through PyGithub (:class:`wheel_size.ports.ancestry.RelatesCommits`)."""

from __future__ import annotations

from github import Github
from github.Repository import Repository

from wheel_size.github.failures import port_failures
from wheel_size.ports.ancestry import CommitRelation

__all__ = ["PyGithubCompares"]


class PyGithubCompares:
    """``GET /repos/{o}/{r}/compare/{base}...{head}``, one request per :meth:`relate`: only
    the totals and the merge base are read (never the paged commit listing)."""

    def __init__(self, gh: Github, repository: str) -> None:
        self.gh = gh
        self._name = repository
        self._repo: Repository | None = None
        self.requests = 0  # compares made, for the JSON and the benchmarks

    @property
    def full_name(self) -> str:
        return self._name

    def relate(self, base: str, head: str) -> CommitRelation:
        if self._repo is None:
            self._repo = self.gh.withLazy(True).get_repo(self._name)  # lazy: no request
        with port_failures(f"comparing {base[:12]}...{head[:12]} in {self._name}"):
            self.requests += 1
            # per_page=1: GitHub pages the commit listing; the totals come with any page.
            found = self._repo.compare(base, head, comparison_commits_per_page=1)
            merge_base = found.merge_base_commit
            return CommitRelation(
                status=str(found.status or ""),
                ahead_by=int(found.ahead_by or 0),
                behind_by=int(found.behind_by or 0),
                merge_base_sha=str(merge_base.sha if merge_base is not None else ""),
            )

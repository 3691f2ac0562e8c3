"""Pull requests through PyGithub (:class:`wheel_size.ports.pulls.PullRequests`)."""

from __future__ import annotations

import itertools

from github import Github
from github.PullRequest import PullRequest
from github.Repository import Repository

from wheel_size.github.failures import port_failures
from wheel_size.ports.pulls import PullView

__all__ = ["PyGithubPulls"]


def _view(pull: PullRequest) -> PullView:
    head = pull.head
    repo = head.repo  # None when the fork was deleted
    return PullView(
        number=pull.number,
        state=pull.state or "",
        head_sha=head.sha or "",
        head_ref=head.ref or "",
        head_repository=(repo.full_name or "") if repo is not None else "",
        body=pull.body or "",
        html_url=pull.html_url or "",
        base_ref=(pull.base.ref if pull.base is not None else "") or "",
    )


class PyGithubPulls:
    """The pull requests of ``repository`` (read once; nothing is written here)."""

    def __init__(self, gh: Github, repository: str) -> None:
        self.gh = gh
        self._name = repository
        self._repo: Repository | None = None

    @property
    def full_name(self) -> str:
        return self._name

    def _repository(self) -> Repository:
        if self._repo is None:
            # Lazy: no request until a pull request is read.
            self._repo = self.gh.withLazy(True).get_repo(self._name)
        return self._repo

    def pull(self, number: int) -> PullView:
        with port_failures(f"reading pull request #{number} of {self._name}"):
            return _view(self._repository().get_pull(number))

    def open_pulls(self, head: str | None, *, max_pulls: int) -> list[PullView]:
        doing = f"listing the open pull requests of {self._name}"
        with port_failures(doing + (f" from {head}" if head else "")):
            listing = (
                self._repository().get_pulls(state="open", head=head)
                if head
                else self._repository().get_pulls(state="open", sort="created", direction="desc")
            )
            return [_view(p) for p in itertools.islice(listing, max(max_pulls, 0))]

"""Pull requests and commit ancestry in memory: the ports ``github/pulls.py`` and
``github/compare.py`` implement over HTTP, answered from the fake's model as its routes
answer (``fakegithub/pulls.py``, ``FakeGitHub.compare_refs``).

Both are lazy, as the adapters are: a missing repository fails the first read (404), not
the call that hands them out.
"""

from __future__ import annotations

from wheel_size.ports.ancestry import CommitRelation
from wheel_size.ports.pulls import PullView

from .memory_failure import memory_failure
from .model import Issue, PullHead, Repo
from .server import FakeGitHub

__all__ = ["MemoryCompares", "MemoryPulls"]


_failure = memory_failure


def _repo(fake: FakeGitHub, name: str, doing: str) -> Repo:
    repo = fake.repos.get(name.lower())
    if repo is None:
        raise _failure(doing, 404, "Not Found")
    return repo


def _view(fake: FakeGitHub, pull: Issue) -> PullView:
    repo = pull.repo
    head = pull.head or PullHead("0" * 40, "unknown", repo.full_name)
    known = fake.repos.get(head.repository.lower())
    return PullView(
        number=pull.number,
        state=pull.state,
        head_sha=head.sha,
        head_ref=head.ref,
        head_repository=known.full_name if known is not None else head.repository,
        body=pull.body or "",
        html_url=f"{fake.payloads.web}/{repo.full_name}/pull/{pull.number}",
        base_ref=head.base_ref,
    )


class MemoryPulls:
    """:class:`wheel_size.ports.pulls.PullRequests` of one repository of the model."""

    def __init__(self, fake: FakeGitHub, repository: str) -> None:
        self._fake = fake
        self._name = repository

    @property
    def full_name(self) -> str:
        return self._name

    def pull(self, number: int) -> PullView:
        doing = f"reading pull request #{number} of {self._name}"
        with self._fake.lock:
            found = _repo(self._fake, self._name, doing).issue(number)
            if found is None or not found.is_pull_request:
                raise _failure(doing, 404, "Not Found")
            return _view(self._fake, found)

    def open_pulls(self, head: str | None, *, max_pulls: int) -> list[PullView]:
        doing = f"listing the open pull requests of {self._name}"
        with self._fake.lock:
            repo = _repo(self._fake, self._name, doing + (f" from {head}" if head else ""))
            pulls = [i for i in repo.issues if i.is_pull_request and i.state == "open"]
            if head:
                owner, _, ref = head.partition(":")
                pulls = [
                    p
                    for p in pulls
                    if p.head is not None
                    and p.head.repository.partition("/")[0].lower() == owner.lower()
                    and (not ref or p.head.ref == ref)
                ]
            pulls.sort(key=lambda p: (p.created_at, p.number), reverse=True)  # newest first
            return [_view(self._fake, p) for p in pulls[: max(max_pulls, 0)]]


class MemoryCompares:
    """:class:`wheel_size.ports.ancestry.RelatesCommits` of one repository of the model."""

    def __init__(self, fake: FakeGitHub, repository: str) -> None:
        self._fake = fake
        self._name = repository
        self.requests = 0  # compares made, as the adapter counts them

    @property
    def full_name(self) -> str:
        return self._name

    def relate(self, base: str, head: str) -> CommitRelation:
        doing = f"comparing {base[:12]}...{head[:12]} in {self._name}"
        with self._fake.lock:
            repo = _repo(self._fake, self._name, doing)
            self.requests += 1
            found = self._fake.compare_refs(repo, base, head)
        if found is None:
            raise _failure(doing, 404, "Not Found")
        return CommitRelation(
            status=found.status,
            ahead_by=found.ahead_by,
            behind_by=found.behind_by,
            merge_base_sha=found.merge_base.sha,
        )

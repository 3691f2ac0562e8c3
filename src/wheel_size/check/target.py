"""Which pull request a ``workflow_run`` check speaks for, learnt from GitHub, not the build.

The build that runs a pull request's code is untrusted: a fork controls every byte it
uploads, including a "pull request number" file. The privileged job therefore takes the
pull request from what GitHub says about the run that built the wheels (its head commit and
head repository, from the ``workflow_run`` event) and accepts only an open pull request of
the base repository whose head is that commit from that repository. A number the build
claims is checked against it and refused when it does not match: the check still runs and
reports, but nothing is commented and no description (no acknowledgement) is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wheel_size.ports import GitHubFailure
from wheel_size.ports.pulls import PullRequests, PullView

__all__ = ["BuildHead", "Target", "find_pull_request"]

MAX_OPEN_PULLS = 1000  # listed when the head branch is unknown (newest first)


@dataclass(frozen=True)
class BuildHead:
    """The run that built the wheels, as GitHub's ``workflow_run`` event describes it."""

    sha: str
    repository: str  # owner/name of the head repository (a fork's, for a fork)
    branch: str | None = None
    pull_requests: Sequence[int] = ()  # the event's ``pull_requests`` (empty for forks)
    # The triggering run's own event (``pull_request``, ``push``…; None: not known). Only a
    # ``pull_request*`` run builds a pull request's code: any other names no pull request.
    event: str | None = None
    deleted: bool = False  # GitHub reports no head repository: the fork was deleted

    @property
    def where(self) -> str:
        repository = self.repository or "a deleted repository"
        return f"{self.sha[:12]} of {repository}" + (
            f" (branch {self.branch})" if self.branch else ""
        )


@dataclass(frozen=True)
class Target:
    """The pull request to comment on and read, or why there is none (one line)."""

    pull: PullView | None
    warning: str | None = None


def _is_head(pull: PullView, head: BuildHead) -> bool:
    return (
        pull.state == "open"
        and pull.head_sha.lower() == head.sha.lower()
        and pull.head_repository.lower() == head.repository.lower()
    )


def _candidates(pulls: PullRequests, head: BuildHead) -> list[PullView]:
    found: dict[int, PullView] = {}
    for number in dict.fromkeys(head.pull_requests):
        try:
            pull = pulls.pull(number)
        except GitHubFailure as exc:
            if exc.status != 404:
                raise
            continue
        if _is_head(pull, head):
            found[pull.number] = pull
    if not found:  # a fork's run lists none: search the open pull requests
        owner = head.repository.partition("/")[0]
        spec = f"{owner}:{head.branch}" if head.branch else None
        for pull in pulls.open_pulls(spec, max_pulls=MAX_OPEN_PULLS):
            if _is_head(pull, head):
                found[pull.number] = pull
    return sorted(found.values(), key=lambda p: p.number)


def _claim(pulls: PullRequests, head: BuildHead, claimed: int) -> Target:
    """``claimed`` if its head is the run's commit from the run's repository, else refused."""
    refused = f"refused, not commented, no acknowledgement read; this run built {head.where}"
    try:
        pull = pulls.pull(claimed)
    except GitHubFailure as exc:
        if exc.status != 404:
            raise
        return Target(
            None, f"the build names pull request #{claimed}, which does not exist: {refused}"
        )
    if _is_head(pull, head):
        return Target(pull)
    actual = f"{pull.head_sha[:12]} of {pull.head_repository or 'a deleted repository'}"
    state = "" if pull.state == "open" else f" ({pull.state})"
    return Target(
        None, f"the build names pull request #{claimed}{state}, whose head is {actual}: {refused}"
    )


def find_pull_request(pulls: PullRequests, head: BuildHead, claimed: int | None) -> Target:
    """The open pull request whose head is ``head``; ``claimed`` (a number the build
    uploaded) must be such a pull request. Never raises for GitHub: a failure is the warning."""
    claim = f" (the build names #{claimed}: ignored)" if claimed is not None else ""
    if head.event is not None and not head.event.startswith("pull_request"):
        return Target(
            None,
            f"the run that built {head.where} was a {head.event} run, not a pull request's: "
            f"it speaks for no pull request{claim}; not commented, no acknowledgement read",
        )
    if head.deleted:
        return Target(
            None,
            f"the head repository of {head.sha[:12]} was deleted (a deleted fork): its pull "
            f"request cannot be checked{claim}; not commented, no acknowledgement read",
        )
    try:
        if claimed is not None:
            return _claim(pulls, head, claimed)
        found = _candidates(pulls, head)
    except GitHubFailure as exc:
        return Target(None, f"finding the pull request of {head.where}: {exc}; not commented")
    if len(found) == 1:
        return Target(found[0])
    if not found:
        return Target(
            None,
            f"no open pull request of {pulls.full_name} has head {head.where}: not commented",
        )
    numbers = ", ".join(f"#{p.number}" for p in found)
    return Target(
        None,
        f"several open pull requests of {pulls.full_name} have head {head.where} ({numbers}): "
        "not commented; pass the one to check as pr-number",
    )

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

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from wheel_size.errors import InputError
from wheel_size.ports import GitHubFailure
from wheel_size.ports.pulls import PullRequests, PullView

__all__ = [
    "BuildHead",
    "Target",
    "build_head",
    "find_pull_request",
    "head_defaults",
    "triggering_run",
]

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


def triggering_run(env: Mapping[str, str]) -> dict[str, object]:
    """The run a ``workflow_run`` job was triggered by, from the job's event file (empty
    outside such a job, or when the file cannot be read). One reader for the Action and the
    CLI, so both trust the same facts."""
    if env.get("GITHUB_EVENT_NAME") != "workflow_run" or not env.get("GITHUB_EVENT_PATH"):
        return {}
    try:
        event = json.loads(Path(env["GITHUB_EVENT_PATH"]).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    run = event.get("workflow_run") if isinstance(event, dict) else None
    return run if isinstance(run, dict) else {}


def head_defaults(run: Mapping[str, object]) -> dict[str, str]:
    """``head-sha``, ``head-repository`` and ``head-branch`` of the triggering run, when it
    was a pull request's (empty strings otherwise: another run's head names no PR)."""
    if not str(run.get("event") or "").startswith("pull_request"):
        return {"head-sha": "", "head-repository": "", "head-branch": ""}
    repo = run.get("head_repository")
    return {
        "head-sha": str(run.get("head_sha") or ""),
        "head-repository": str(repo.get("full_name") or "") if isinstance(repo, dict) else "",
        "head-branch": str(run.get("head_branch") or ""),
    }


def build_head(
    run: Mapping[str, object],
    sha: str,
    repository: str,
    branch: str | None,
    *,
    names: tuple[str, str],
    repository_given: bool,
) -> BuildHead:
    """The head to check, with the triggering ``run``'s event and ``pull_requests`` (those
    only when ``sha`` is the run's head). ``names`` are the two options as the user typed
    them, for the one-line errors; a head repository the event says is gone (a deleted
    fork) is reported by the check, unless one was given."""
    if not re.fullmatch(r"[0-9a-fA-F]{7,64}", sha):
        raise InputError(f"{names[0]} must be a commit SHA, not {sha!r}")
    deleted = (
        not repository
        and not repository_given
        and "head_repository" in run
        and run.get("head_repository") is None
    )
    if not deleted and not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository):
        raise InputError(f"{names[1]} must be OWNER/NAME (with {names[0]}), not {repository!r}")
    numbers: list[int] = []
    if str(run.get("head_sha", "")).lower() == sha.lower():
        pulls = run.get("pull_requests")
        for pull in pulls if isinstance(pulls, list) else []:
            number = pull.get("number") if isinstance(pull, dict) else None
            if isinstance(number, int) and number > 0:
                numbers.append(number)
    event = str(run.get("event") or "") or None
    return BuildHead(sha, repository, branch or None, tuple(numbers), event=event, deleted=deleted)


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

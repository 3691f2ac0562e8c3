"""The pull-request check as the CLI and the Action run it: find the pull request and its
description, choose the night to compare with, then compare, render and comment.

GitHub is reached only through the :class:`~wheel_size.ports.CheckPort` given (None: no
token, or nothing asked of GitHub); ``cli/check.py`` and ``action/check.py`` compose it,
tests give the in-memory port.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from wheel_size.check.ack import acknowledgement
from wheel_size.check.job import COMMENT_KEY, CheckOutcome, pr_check
from wheel_size.check.mergebase import NightChoice, nearest_night, stored_nights
from wheel_size.check.request import CheckRequest
from wheel_size.check.target import find_pull_request
from wheel_size.errors import InputError
from wheel_size.history.history import History, load_history
from wheel_size.history.location import open_store
from wheel_size.ports import (
    ArtifactDownloads,
    ArtifactUnavailable,
    CheckPort,
    GitHubFailure,
    worded,
)
from wheel_size.ports.pulls import PullView
from wheel_size.sticky import post_sticky_in

__all__ = ["NightlyDownloads", "check_pull_request"]


@dataclasses.dataclass(frozen=True)
class NightlyDownloads:
    """A stored night's artifact by run id and name (``check.run.NightlyArtifacts``), up to
    ``max_bytes`` each, through the port's artifact listing and download."""

    port: ArtifactDownloads
    repository: str
    max_bytes: int | None = None
    progress: TextIO | None = None

    def download(self, run_id: int, artifact: str, dest: Path) -> Path:
        listed = self.port.run_artifacts(self.repository, run_id)
        found = [a for a in listed if a.name == artifact]
        if not found:
            raise ArtifactUnavailable(f"run {run_id} has no artifact {artifact!r}")
        return self.port.download_artifact(
            found[0], dest, max_bytes=self.max_bytes, progress=self.progress
        )


def _description(github: CheckPort, repository: str, number: int) -> str:
    """The description of pull request ``number`` (empty when it has none)."""
    with worded(f"reading {repository}#{number}", not_found=f"no pull request #{number}"):
        return github.repository(repository).issue_body(number)


def _pull_request(
    request: CheckRequest, github: CheckPort | None, warnings: list[str]
) -> tuple[int | None, str | None, PullView | str | None]:
    """The pull request to comment on, its description (None: none, or not read) and, for
    the merge-base comparison, the pull request read from GitHub or why it was not."""
    repo = request.comment_repository
    if request.head is None:  # the pull request's own event: its number is GitHub's
        body = request.pr_body
        pull: PullView | str | None = None
        if request.pr_number and github is not None and repo and _merge_base_wanted(request):
            try:
                pull = github.pulls(repo).pull(request.pr_number)
            except GitHubFailure as exc:
                pull = f"pull request #{request.pr_number} could not be read ({exc})"
            if body is None and not isinstance(pull, str):
                body = pull.body
        if body is None and request.pr_number and github is not None and repo:
            body = _description(github, repo, request.pr_number)
        return request.pr_number, body, pull
    if github is None or not repo:
        raise InputError(
            "finding the pull request of a workflow_run needs a token (GITHUB_TOKEN) and "
            "the repository"
        )
    target = find_pull_request(github.pulls(repo), request.head, request.pr_number)
    if target.pull is None:
        warnings.append(target.warning or "no pull request found: not commented")
        return None, None, "no pull request of this build was found"
    return target.pull.number, target.pull.body, target.pull


def _merge_base_wanted(request: CheckRequest) -> bool:
    return request.compare_with in (None, "merge-base")


def _night(
    request: CheckRequest,
    github: CheckPort | None,
    pull: PullView | str | None,
    history: History,
) -> NightChoice:
    """The night to compare with, as ``compare_with`` asks and as far as GitHub tells."""
    newest = NightChoice("newest")
    if not _merge_base_wanted(request):
        return newest
    explicit = request.compare_with == "merge-base"
    if github is None or pull is None:
        if not explicit:
            return newest  # the default without a pull request or a token: as before
        given = bool(request.pr_number or request.head)
        why = "no token (GITHUB_TOKEN)" if given else "no pull request (pr-number)"
        return NightChoice("merge-base", fallback=f"the merge base is unknown: {why}")
    if isinstance(pull, str):
        return NightChoice("merge-base", fallback=f"the merge base is unknown: {pull}")
    if not pull.base_ref or not pull.head_sha:
        return NightChoice(
            "merge-base", fallback=f"pull request #{pull.number} names no base branch or head"
        )
    repo = request.comment_repository or ""
    return nearest_night(
        github.ancestry(repo), stored_nights(history), base_ref=pull.base_ref,
        head_sha=pull.head_sha,
    )  # fmt: skip


def check_pull_request(
    request: CheckRequest,
    github: CheckPort | None,
    *,
    token: str | None,
    environ: Mapping[str, str] | None = None,
    progress: TextIO | None = None,
) -> CheckOutcome:
    """Compare, render and (when asked) comment; ``github`` is used only where the request
    needs it (downloads with ``repository``, the pull request with ``pr_number`` or
    ``head``). ``token`` and ``environ`` open a history store on a data branch."""
    pr_repo = request.comment_repository
    warnings: list[str] = []
    number, body, pull = _pull_request(request, github, warnings)
    options = dataclasses.replace(
        request.options, acknowledgement=acknowledgement(body, request.footer)
    )
    artifacts = None
    if github is not None and request.repository and request.max_download_bytes != 0:
        artifacts = NightlyDownloads(
            github, request.repository, request.max_download_bytes, progress
        )
    post = None
    if request.comment and number:
        if github is None or not pr_repo:
            raise InputError(
                "commenting on a pull request needs a token (GITHUB_TOKEN) and the repository"
            )
        port, repo, pr = github, pr_repo, number

        def post(text: str) -> str:
            return post_sticky_in(port, repo, pr, text, COMMENT_KEY, bot_login=request.bot_login)

    with open_store(
        request.store, repository=request.repository, token=token, environ=environ
    ) as store:
        history = load_history(store, repository=request.repository, workflow=request.workflow)
    night = _night(request, github, pull, history)
    relates = None
    if github is not None and request.comment_repository and night.merge_base_sha:
        relates = github.ancestry(request.comment_repository)  # for a step back
    runs = f"{request.server_url}/{request.repository}/actions/runs" if request.repository else None
    return pr_check(
        options, history, artifacts=artifacts, post_comment=post, run_url=runs,
        footer=request.footer, warnings=warnings, night=night, relates=relates,
    )  # fmt: skip

"""Wire a pull-request check to GitHub (artifact downloads, the pull request and its
description, the sticky comment) and to its history store: the one call the CLI and the
Action both make."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping

from github import Github

from wheel_size.check.ack import acknowledgement
from wheel_size.check.job import COMMENT_KEY, CheckOutcome, pr_check
from wheel_size.check.mergebase import NightChoice, nearest_night, stored_nights
from wheel_size.check.request import CheckRequest
from wheel_size.errors import InputError
from wheel_size.history.history import History, load_history
from wheel_size.history.location import open_store
from wheel_size.ports import GitHubFailure
from wheel_size.ports.pulls import PullView

__all__ = ["run_check"]


def _pull_request(
    request: CheckRequest, gh: Github | None, warnings: list[str]
) -> tuple[int | None, str | None, PullView | str | None]:
    """The pull request to comment on, its description (None: none, or not read) and, for
    the merge-base comparison, the pull request read from GitHub or why it was not."""
    from wheel_size.check.target import find_pull_request
    from wheel_size.github.comments import pull_request_body
    from wheel_size.github.pulls import PyGithubPulls

    repo = request.comment_repository
    if request.head is None:  # the pull request's own event: its number is GitHub's
        body = request.pr_body
        pull: PullView | str | None = None
        if request.pr_number and gh is not None and repo and _merge_base_wanted(request):
            try:
                pull = PyGithubPulls(gh, repo).pull(request.pr_number)
            except GitHubFailure as exc:
                pull = f"pull request #{request.pr_number} could not be read ({exc})"
            if body is None and not isinstance(pull, str):
                body = pull.body
        if body is None and request.pr_number and gh is not None and repo:
            body = pull_request_body(gh, repo, request.pr_number)
        return request.pr_number, body, pull
    if gh is None or not repo:
        raise InputError(
            "finding the pull request of a workflow_run needs a token (GITHUB_TOKEN) and "
            "the repository"
        )
    target = find_pull_request(PyGithubPulls(gh, repo), request.head, request.pr_number)
    if target.pull is None:
        warnings.append(target.warning or "no pull request found: not commented")
        return None, None, "no pull request of this build was found"
    return target.pull.number, target.pull.body, target.pull


def _merge_base_wanted(request: CheckRequest) -> bool:
    return request.compare_with in (None, "merge-base")


def _night(
    request: CheckRequest,
    gh: Github | None,
    pull: PullView | str | None,
    history: History,
) -> NightChoice:
    """The night to compare with, as ``compare_with`` asks and as far as GitHub tells."""
    from wheel_size.github.compare import PyGithubCompares

    newest = NightChoice("newest")
    if not _merge_base_wanted(request):
        return newest
    explicit = request.compare_with == "merge-base"
    if gh is None or pull is None:
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
        PyGithubCompares(gh, repo), stored_nights(history), base_ref=pull.base_ref,
        head_sha=pull.head_sha,
    )  # fmt: skip


def run_check(
    request: CheckRequest, *, token: str | None, environ: Mapping[str, str] | None = None
) -> CheckOutcome:
    """Compare, render and (when asked) comment; GitHub is used only where the request needs
    it (downloads with ``repository``, the pull request with ``pr_number`` or ``head``)."""
    from wheel_size.github.artifacts import RunArtifactDownloads
    from wheel_size.github.client import connect
    from wheel_size.github.comments import post_sticky_comment

    pr_repo = request.comment_repository
    needs_github = bool(request.repository or request.pr_number or request.head)
    gh = connect(token=token) if token and needs_github else None
    warnings: list[str] = []
    number, body, pull = _pull_request(request, gh, warnings)
    options = dataclasses.replace(
        request.options, acknowledgement=acknowledgement(body, request.footer)
    )
    artifacts = None
    if gh is not None and request.repository and request.max_download_bytes != 0:
        artifacts = RunArtifactDownloads(
            gh, request.repository, request.max_download_bytes, sys.stderr
        )
    post = None
    if request.comment and number:
        if gh is None or not pr_repo:
            raise InputError(
                "commenting on a pull request needs a token (GITHUB_TOKEN) and the repository"
            )
        client, repo, pr = gh, pr_repo, number

        def post(text: str) -> str:
            return post_sticky_comment(
                client, repo, pr, text, COMMENT_KEY, bot_login=request.bot_login
            )

    with open_store(
        request.store, repository=request.repository, token=token, environ=environ
    ) as store:
        history = load_history(store, repository=request.repository, workflow=request.workflow)
    night = _night(request, gh, pull, history)
    relates = None
    if gh is not None and request.comment_repository and night.merge_base_sha:
        from wheel_size.github.compare import PyGithubCompares

        relates = PyGithubCompares(gh, request.comment_repository)  # for a step back
    runs = f"{request.server_url}/{request.repository}/actions/runs" if request.repository else None
    return pr_check(
        options, history, artifacts=artifacts, post_comment=post, run_url=runs,
        footer=request.footer, warnings=warnings, night=night, relates=relates,
    )  # fmt: skip

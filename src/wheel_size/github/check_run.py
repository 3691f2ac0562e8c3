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
from wheel_size.check.request import CheckRequest
from wheel_size.errors import InputError
from wheel_size.history.history import load_history
from wheel_size.history.location import open_store

__all__ = ["run_check"]


def _pull_request(
    request: CheckRequest, gh: Github | None, warnings: list[str]
) -> tuple[int | None, str | None]:
    """The pull request to comment on and its description (None: none, or not read)."""
    from wheel_size.check.target import find_pull_request
    from wheel_size.github.comments import pull_request_body
    from wheel_size.github.pulls import PyGithubPulls

    repo = request.comment_repository
    if request.head is None:  # the pull request's own event: its number is GitHub's
        body = request.pr_body
        if body is None and request.pr_number and gh is not None and repo:
            body = pull_request_body(gh, repo, request.pr_number)
        return request.pr_number, body
    if gh is None or not repo:
        raise InputError(
            "finding the pull request of a workflow_run needs a token (GITHUB_TOKEN) and "
            "the repository"
        )
    target = find_pull_request(PyGithubPulls(gh, repo), request.head, request.pr_number)
    if target.pull is None:
        warnings.append(target.warning or "no pull request found: not commented")
        return None, None
    return target.pull.number, target.pull.body


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
    number, body = _pull_request(request, gh, warnings)
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
            return post_sticky_comment(client, repo, pr, text, COMMENT_KEY)

    with open_store(
        request.store, repository=request.repository, token=token, environ=environ
    ) as store:
        history = load_history(store, repository=request.repository, workflow=request.workflow)
    runs = f"{request.server_url}/{request.repository}/actions/runs" if request.repository else None
    return pr_check(
        options, history, artifacts=artifacts, post_comment=post, run_url=runs,
        footer=request.footer, warnings=warnings,
    )  # fmt: skip

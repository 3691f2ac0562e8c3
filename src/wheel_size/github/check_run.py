"""Wire a pull-request check to GitHub (artifact downloads, the description, the sticky
comment) and to its history store: the one call the CLI and the Action both make."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping

from wheel_size.check.ack import acknowledgement
from wheel_size.check.job import COMMENT_KEY, CheckOutcome, pr_check
from wheel_size.check.request import CheckRequest
from wheel_size.errors import InputError
from wheel_size.history.history import load_history
from wheel_size.history.location import open_store

__all__ = ["run_check"]


def run_check(
    request: CheckRequest, *, token: str | None, environ: Mapping[str, str] | None = None
) -> CheckOutcome:
    """Compare, render and (when asked) comment; GitHub is used only where the request needs
    it (downloads with ``repository``, the comment and description with ``pr_number``)."""
    from wheel_size.github.artifacts import RunArtifactDownloads
    from wheel_size.github.client import connect
    from wheel_size.github.comments import post_sticky_comment, pull_request_body

    pr_repo = request.comment_repository
    needs_github = bool(request.repository or request.pr_number)
    gh = connect(token=token) if token and needs_github else None
    body = request.pr_body
    if body is None and request.pr_number and gh is not None and pr_repo:
        body = pull_request_body(gh, pr_repo, request.pr_number)
    options = dataclasses.replace(
        request.options, acknowledgement=acknowledgement(body, request.footer)
    )
    artifacts = None
    if gh is not None and request.repository and request.max_download_bytes != 0:
        artifacts = RunArtifactDownloads(
            gh, request.repository, request.max_download_bytes, sys.stderr
        )
    post = None
    if request.comment and request.pr_number:
        if gh is None or not pr_repo:
            raise InputError(
                "commenting on a pull request needs a token (GITHUB_TOKEN) and the repository"
            )
        client, repo, number = gh, pr_repo, request.pr_number

        def post(text: str) -> str:
            return post_sticky_comment(client, repo, number, text, COMMENT_KEY)

    with open_store(
        request.store, repository=request.repository, token=token, environ=environ
    ) as store:
        history = load_history(store, repository=request.repository, workflow=request.workflow)
    runs = f"{request.server_url}/{request.repository}/actions/runs" if request.repository else None
    return pr_check(
        options, history, artifacts=artifacts, post_comment=post, run_url=runs,
        footer=request.footer,
    )  # fmt: skip

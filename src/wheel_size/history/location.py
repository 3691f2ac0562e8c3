"""Where the history lives, as data, and opening it: a directory, or a branch of a git remote.

The CLI's ``--history``/``--data-branch``/``--data-remote`` and the Action's
``history-dir``/``data-branch``/``data-remote`` inputs both become a :class:`StoreLocation`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from wheel_size.errors import InputError
from wheel_size.history.gitstore import (
    DEFAULT_DATA_BRANCH,
    DEFAULT_PUSH_ATTEMPTS,
    GitBranchStore,
    actions_remote,
)
from wheel_size.history.store import DirectoryStore, HistoryStore

__all__ = ["DEFAULT_HISTORY_DIR", "StoreLocation", "open_store"]

DEFAULT_HISTORY_DIR = ".wheel-size"


@dataclass(frozen=True)
class StoreLocation:
    """``history``: a directory; else ``data_branch`` of ``data_remote`` (default: the
    workflow's own repository, authenticated with the token). ``data_remote`` alone implies
    the default data branch; with neither, the directory :data:`DEFAULT_HISTORY_DIR`."""

    history: str | None = None
    data_branch: str | None = None
    data_remote: str | None = None
    push_attempts: int = DEFAULT_PUSH_ATTEMPTS
    git_timeout: float | None = None

    def __post_init__(self) -> None:
        if self.data_remote and self.history:
            raise InputError("give either --history or --data-remote, not both")
        if self.data_branch and self.history:
            raise InputError("give either --history or --data-branch, not both")
        if self.is_branch and self.push_attempts < 1:
            raise InputError("--push-attempts must be at least 1")

    @property
    def is_branch(self) -> bool:
        return bool(self.data_branch or self.data_remote)

    def reproduce_args(
        self, repository: str | None = None, environ: Mapping[str, str] | None = None
    ) -> tuple[str, ...]:
        """The history options a Reproduce command repeats, paste-able anywhere: the data
        branch and the remote as given (never a token)."""
        from wheel_size.history.reproduce import store_reproduce_args

        env = os.environ if environ is None else environ
        return store_reproduce_args(
            data_branch=self.data_branch,
            data_remote=self.data_remote,
            repository=env.get("GITHUB_REPOSITORY") or repository,
            server_url=env.get("GITHUB_SERVER_URL"),
            default_branch=DEFAULT_DATA_BRANCH,
        )


@contextlib.contextmanager
def open_store(
    location: StoreLocation,
    *,
    repository: str | None = None,
    token: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Iterator[HistoryStore]:
    """The store ``location`` names; a git store's scratch clone is removed afterwards."""
    env = os.environ if environ is None else environ
    if not location.is_branch:
        yield DirectoryStore(Path(location.history or DEFAULT_HISTORY_DIR))
        return
    branch = location.data_branch or DEFAULT_DATA_BRANCH  # --data-remote alone: the default
    remote = location.data_remote
    if not remote:
        # In a workflow the data branch belongs to the repository running it (where the
        # token may push), even when the runs read are another repository's.
        repo = env.get("GITHUB_REPOSITORY") or repository
        if not repo:
            raise InputError("--data-branch needs --data-remote or --repo to know where to push")
        if not token:
            raise InputError(
                "--data-branch without --data-remote needs a token (GITHUB_TOKEN) to push"
            )
        remote = actions_remote(repo, token, env.get("GITHUB_SERVER_URL"))
    store = GitBranchStore(
        remote,
        branch,
        secret=token,
        attempts=location.push_attempts,
        timeout=location.git_timeout,
    )
    try:
        yield store
    finally:
        store.close()

"""The build-evidence port: what a build at one commit looks like, as plain data, and the
calls the evidence logic (``regressions/builds/evidence.py``) makes; ``github/checks.py``
implements them with PyGithub."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "DEFAULT_MAX_LOG_BYTES",
    "BuildArtifact",
    "BuildDataUnavailable",
    "BuildJob",
    "BuildPort",
    "BuildRun",
]

DEFAULT_MAX_LOG_BYTES = 16 << 20


class BuildDataUnavailable(Exception):
    """The data could not be had (forbidden, gone, too large): ``reason`` is said in the
    issue as is, and the candidate stays LIKELY."""

    def __init__(self, reason: str, *, whole_repo: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        # True: the endpoint is refused for every commit (403, rate limit): ask no more.
        self.whole_repo = whole_repo


@dataclass(frozen=True)
class BuildRun:
    """A workflow run at one head SHA."""

    id: int
    name: str
    path: str  # .github/workflows/x.yml
    head_sha: str
    status: str | None
    conclusion: str | None
    html_url: str


@dataclass(frozen=True)
class BuildArtifact:
    name: str
    size_in_bytes: int
    expired: bool


@dataclass(frozen=True)
class BuildJob:
    """A job of a workflow run, or a check run (for Actions the ids are the same)."""

    id: int
    name: str
    status: str | None
    conclusion: str | None
    html_url: str
    run_id: int | None = None
    workflow: str = ""


class BuildPort(Protocol):
    """What build evidence needs from GitHub; one call is one API request (a log: one API
    request plus the download), ``check_runs_for_sha`` at most ``max_pages``."""

    def runs_for_sha(self, sha: str) -> Sequence[BuildRun]: ...

    def artifacts_of_run(self, run: BuildRun) -> Sequence[BuildArtifact]: ...

    def check_runs_for_sha(self, sha: str, max_pages: int) -> Sequence[BuildJob]: ...

    def jobs_of_run(self, run: BuildRun) -> Sequence[BuildJob]: ...

    def job_log(self, job: BuildJob) -> str: ...

    def parent_of(self, sha: str) -> str | None: ...

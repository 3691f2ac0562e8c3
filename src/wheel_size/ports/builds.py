"""The build-evidence port: what a build at one commit looks like, as plain data, and the
calls the evidence logic (``regressions/builds/evidence.py``) makes; ``github/checks.py``
implements them with PyGithub."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "DEFAULT_MAX_LOG_BYTES",
    "ArtifactListing",
    "BuildArtifact",
    "BuildDataUnavailable",
    "BuildJob",
    "BuildPort",
    "BuildRun",
    "NamedArtifact",
    "RunListing",
    "log_text",
]

DEFAULT_MAX_LOG_BYTES = 16 << 20


def log_text(data: bytes) -> str:
    """A job log as text; one that is more than 1 % NUL bytes is not a log."""
    if data.count(0) > len(data) // 100:
        raise BuildDataUnavailable("log unreadable (not text)")
    return data.decode("utf-8", "replace")


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
    event: str = ""  # what started it: push, schedule, workflow_dispatch ("": not said)


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

    def log_url(self, template: str, repository: str) -> str:
        """``log-url-template`` for this job: ``{job_id}``, ``{run_id}`` and ``{repo}``
        filled (a mirror of the logs outside GitHub)."""
        return (
            template.replace("{job_id}", str(self.id))
            .replace("{run_id}", str(self.run_id or ""))
            .replace("{repo}", repository)
        )


@dataclass(frozen=True)
class NamedArtifact:
    """An artifact from the repository-wide listing by name, with the run that made it."""

    run_id: int
    head_sha: str
    artifact: BuildArtifact
    created_at: str = ""  # ISO 8601, as GitHub lists it


@dataclass(frozen=True)
class RunListing:
    """Runs listed over a ``created`` range: ``requests`` pages were read; ``complete``
    is False when the page cap (or GitHub's 1,000-result cap) cut the listing short."""

    runs: tuple[BuildRun, ...]
    requests: int
    complete: bool


@dataclass(frozen=True)
class ArtifactListing:
    artifacts: tuple[NamedArtifact, ...]
    requests: int
    complete: bool


class BuildPort(Protocol):
    """What build evidence needs from GitHub; one call is one API request (a log: one API
    request plus the download), ``check_runs_for_sha`` at most ``max_pages``."""

    def runs_for_sha(self, sha: str) -> Sequence[BuildRun]: ...

    def artifacts_of_run(self, run: BuildRun) -> Sequence[BuildArtifact]: ...

    def check_runs_for_sha(self, sha: str, max_pages: int) -> Sequence[BuildJob]: ...

    def jobs_of_run(self, run: BuildRun) -> Sequence[BuildJob]: ...

    def job_log(self, job: BuildJob) -> str: ...

    def parent_of(self, sha: str) -> str | None: ...

    def runs_created(
        self, workflow: str | None, created: str, branch: str | None, max_pages: int
    ) -> RunListing:
        """The runs of ``workflow`` (file name or id; None: every workflow) created in
        ``created`` (GitHub's date syntax, e.g. ``2025-10-10..2025-10-14``), newest first,
        at most ``max_pages`` pages of 100."""
        ...

    def artifacts_named(self, name: str, since: str, max_pages: int) -> ArtifactListing:
        """The repository's artifacts called ``name`` (expired ones included, with their
        size), newest first, until one was created before ``since`` (ISO date) or
        ``max_pages`` pages of 100 were read."""
        ...

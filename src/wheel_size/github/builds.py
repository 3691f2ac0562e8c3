"""What a build at one commit looks like, as plain data: the values the build-evidence port
(:class:`wheel_size.regressions.build_evidence.BuildPort`) trades in, free of PyGithub so
the logic above it needs no GitHub to run."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEFAULT_MAX_LOG_BYTES",
    "BuildArtifact",
    "BuildDataUnavailable",
    "BuildJob",
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

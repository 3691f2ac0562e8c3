"""The GitHub port: workflow runs and artifacts, commits and compare, issues and comments.

Only what the library reads is here, as plain frozen dataclasses (never a lazy API object
whose attribute access could cost a request). Lists are complete when returned: paging
happens inside the adapter, so a failure half-way through a listing surfaces as the one
:class:`~wheel_size.ports.GitHubFailure` of the call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO, runtime_checkable

from wheel_size.errors import GitHubError
from wheel_size.installed.ranges import RangeSource
from wheel_size.ports.ancestry import RelatesCommits
from wheel_size.ports.builds import BuildPort
from wheel_size.ports.pulls import PullRequests
from wheel_size.ports.trigger import BuildTriggers

__all__ = [
    "ArtifactDownloads",
    "ArtifactRanges",
    "ArtifactTooLarge",
    "ArtifactUnavailable",
    "CheckPort",
    "CommentView",
    "CommitAncestry",
    "CommitSummary",
    "Commits",
    "Comparison",
    "GitHubPort",
    "IssueView",
    "Issues",
    "PullRequestsOf",
    "Repositories",
    "Repository",
    "RunArtifact",
    "RunJobs",
    "RunPage",
    "WorkflowRuns",
]


# -- runs and artifacts -------------------------------------------------------------------


@dataclass(frozen=True)
class RunPage:
    """One page of a filtered run listing: the runs as GitHub sent them (JSON objects) and
    the listing's ``total_count`` (GitHub caps filtered listings at 1,000 runs)."""

    runs: Sequence[Mapping[str, Any]]
    total_count: int


@dataclass(frozen=True)
class RunArtifact:
    """The fields of a run's artifact that downloads need."""

    id: int
    name: str
    size_in_bytes: int
    expired: bool
    archive_download_url: str
    digest: str | None
    run_id: int | None


class WorkflowRuns(Protocol):
    """Listing a workflow's runs and their artifacts (``actions: read``)."""

    @property
    def per_page(self) -> int:
        """How many items a page of a listing holds."""
        ...

    def run_page(
        self, repository: str, workflow: int | str, *, created: str, branch: str | None, page: int
    ) -> RunPage:
        """Page ``page`` (0-based) of the runs of ``workflow`` created in ``created``
        (GitHub's ``created=`` syntax), on ``branch`` when given."""
        ...

    def run_artifacts_json(self, artifacts_url: str) -> list[Mapping[str, Any]]:
        """Every artifact object of a run, from the run's ``artifacts_url``, all pages."""
        ...

    def check_repository(self, repository: str) -> None:
        """Raise a 404 :class:`GitHubFailure` when ``repository`` is not visible."""
        ...


@runtime_checkable
class RunJobs(Protocol):
    """Listing a run's jobs (``actions: read``): what build time is read from."""

    def run_jobs_json(self, jobs_url: str) -> list[Mapping[str, Any]]:
        """Every ``job`` object of the run's latest attempt (``filter=latest``), from the
        run's ``jobs_url``, all pages."""
        ...


class ArtifactUnavailable(GitHubError):
    """The artifact cannot be had any more (expired, deleted): evidence is unavailable."""


class ArtifactTooLarge(GitHubError):
    """Downloading the artifact would exceed the configured size limit."""


class ArtifactDownloads(Protocol):
    """Finding and downloading run artifacts (streamed to disk, with a size limit)."""

    def run_artifacts(self, repository: str, run_id: int) -> list[RunArtifact]: ...

    def download_artifact(
        self,
        artifact: RunArtifact,
        dest: Path,
        *,
        max_bytes: int | None = None,
        progress: TextIO | None = None,
    ) -> Path:
        """Raises :class:`ArtifactUnavailable` / :class:`ArtifactTooLarge` when it cannot."""
        ...


@runtime_checkable
class ArtifactRanges(Protocol):
    """Ranged reads of a run artifact's zip (installed size reads only its directories)."""

    def artifact_ranges(self, artifact: RunArtifact, *, timeout: float) -> RangeSource:
        """A source over the artifact's zip; each read is one ``Range`` request."""
        ...


# -- commits ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CommitSummary:
    """A commit as a comparison lists it (no changed files: those cost a request each)."""

    sha: str
    message: str
    html_url: str
    author: str
    parents: tuple[str, ...] = ()  # the listing carries them: no request


@dataclass(frozen=True)
class Comparison:
    commits: Sequence[CommitSummary]  # oldest first, at most the number asked for
    total_commits: int
    html_url: str | None


class Commits(Protocol):
    """Reading one repository's commits."""

    @property
    def full_name(self) -> str: ...

    @property
    def html_url(self) -> str: ...

    def commit_message(self, sha: str) -> str: ...

    def compare(self, base: str, head: str, *, max_commits: int) -> Comparison: ...

    def commit_files(self, sha: str) -> list[Mapping[str, Any]]:
        """The ``files`` entries of ``GET /commits/{sha}`` (GitHub lists at most 300)."""
        ...


# -- issues -------------------------------------------------------------------------------


@dataclass(frozen=True)
class IssueView:
    number: int
    title: str
    body: str
    state: str  # "open" or "closed"
    html_url: str
    labels: tuple[str, ...]
    author: str = ""  # the login that opened it (markers count only from the bot's own)


@dataclass(frozen=True)
class CommentView:
    id: int
    body: str
    html_url: str
    author: str = ""  # the login that wrote it (markers count only from the bot's own)


class Issues(Protocol):
    """One repository's issues and their comments (``issues: write`` for the writes).

    Creates are exactly-once although an answer may be lost: after a failure that may have
    been stored, ``find_existing`` is asked before the create is sent again.
    """

    @property
    def full_name(self) -> str: ...

    def identity(self) -> str:
        """The login our issues and comments are written by (the bot): the configured one,
        else the token's user, else ``github-actions[bot]`` (an installation token cannot
        read ``/user``). Only markers in issues and comments by this login are ours."""
        ...

    def issues(self, label: str) -> list[IssueView]:
        """Every issue with ``label``, open and closed; pull requests left out."""
        ...

    def create_issue(
        self,
        title: str,
        body: str,
        labels: Sequence[str],
        *,
        find_existing: Callable[[], IssueView | None],
    ) -> IssueView: ...

    def comments(self, number: int) -> list[CommentView]: ...

    def create_comment(
        self, number: int, body: str, *, find_existing: Callable[[], CommentView | None]
    ) -> CommentView: ...

    def edit_comment(self, number: int, comment_id: int, body: str) -> None: ...

    def delete_comment(self, number: int, comment_id: int) -> None:
        """Delete one of our comments (a duplicate a concurrent run posted first)."""
        ...

    def close_issue(self, number: int) -> IssueView: ...

    def edit_issue(self, number: int, *, title: str, body: str) -> IssueView:
        """Set an issue's title and body (a variant joining the night's issue)."""
        ...

    def issue_body(self, number: int) -> str:
        """The description of issue or pull request ``number`` (empty when it has none)."""
        ...


class Repository(Commits, Issues, Protocol):
    """A repository: its commits and its issues."""


class Repositories(Protocol):
    """Repositories by name: their commits, issues and comments."""

    def repository(self, full_name: str) -> Repository:
        """The repository (one request: a 404 :class:`GitHubFailure` when not visible)."""
        ...


class PullRequestsOf(Protocol):
    """The pull requests of a repository (``pull-requests: read``)."""

    def pulls(self, repository: str) -> PullRequests:
        """No request until a pull request is read."""
        ...


class CommitAncestry(Protocol):
    """How commits of a repository relate (``contents: read``)."""

    def ancestry(self, repository: str) -> RelatesCommits:
        """No request until two commits are related."""
        ...


class CheckPort(Repositories, PullRequestsOf, CommitAncestry, ArtifactDownloads, Protocol):
    """What the pull-request check asks of GitHub: the pull request and its description,
    the merge base, the nightly's artifacts, the sticky comment."""


class GitHubPort(
    WorkflowRuns,
    ArtifactDownloads,
    Repositories,
    PullRequestsOf,
    CommitAncestry,
    BuildTriggers,
    Protocol,
):
    """Everything the library asks of GitHub; each job takes the small protocols it uses
    (:class:`CheckPort`, :class:`ArtifactDownloads`, :class:`Repositories`, …), and only
    ``cli/`` and ``action/`` compose the one that talks to GitHub."""

    def builds(
        self, repository: str, *, log_url_template: str | None, max_log_bytes: int
    ) -> BuildPort:
        """Builds at single commits of ``repository`` (per-commit build evidence); job logs
        come from ``log_url_template`` (``{job_id}``) when given, never with the token."""
        ...

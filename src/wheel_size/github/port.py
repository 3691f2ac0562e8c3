"""The GitHub port (:mod:`wheel_size.ports`) implemented with PyGithub.

Every PyGithub or network failure leaves this module as a
:class:`~wheel_size.ports.GitHubFailure` carrying the status and GitHub's message, worded
by :func:`~wheel_size.github.client.github_error` (the permission a token lacks, when a
rate limit resets). Run listings are read as the JSON GitHub sent, through the requester:
a listed run object would fetch itself again if its raw data were asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar
from urllib.parse import quote

from github import Consts, Github
from github.Artifact import Artifact
from github.Issue import Issue
from github.IssueComment import IssueComment
from github.PaginatedList import PaginatedList
from github.Repository import Repository as GithubRepository

from wheel_size.github.client import create_once
from wheel_size.github.failures import port_failures
from wheel_size.github.identity import BotIdentity
from wheel_size.ports import (
    CommentView,
    CommitSummary,
    Comparison,
    IssueView,
    RunArtifact,
    RunPage,
)

if TYPE_CHECKING:
    from wheel_size.github.checks import GitHubBuilds
    from wheel_size.github.compare import PyGithubCompares
    from wheel_size.github.pulls import PyGithubPulls
    from wheel_size.installed.ranges import RangeSource
    from wheel_size.ports.trigger import BuildTrigger

__all__ = ["PyGithubPort", "PyGithubRepository"]

# A run's jobs listing is read to this many pages (100 jobs each): PyTorch's largest
# nightly workflow has a few hundred jobs.
MAX_JOB_PAGES = 20

T = TypeVar("T")


def _issue_view(issue: Issue) -> IssueView:
    return IssueView(
        number=issue.number,
        title=issue.title or "",
        body=issue.body or "",
        state=issue.state or "open",
        html_url=issue.html_url or "",
        labels=tuple(label.name for label in issue.labels),
        author=_login(issue),
    )


def _login(item: Issue | IssueComment) -> str:
    """The author's login (the listing carries ``user``: no request; ``raw_data`` would
    fetch the object again)."""
    user = item.user
    login = user.login if user is not None else None
    return login if isinstance(login, str) else ""


def _comment_view(comment: IssueComment) -> CommentView:
    return CommentView(
        id=comment.id,
        body=comment.body or "",
        html_url=comment.html_url or "",
        author=_login(comment),
    )


class PyGithubRepository:
    """:class:`wheel_size.ports.Repository` over a PyGithub repository.

    Issues listed or created here are kept, so commenting on or closing one costs only the
    write (a listed issue needs no second read).
    """

    def __init__(self, repo: GithubRepository, identity: BotIdentity) -> None:
        self._repo = repo
        self._identity = identity
        self._issues: dict[int, Issue] = {}
        self._comments: dict[int, IssueComment] = {}

    @property
    def full_name(self) -> str:
        return str(self._repo.full_name)

    @property
    def html_url(self) -> str:
        return str(self._repo.html_url or "")

    def identity(self) -> str:
        with port_failures("asking GitHub who this token is (GET /user)"):
            return self._identity.login()

    # -- commits

    def commit_message(self, sha: str) -> str:
        with port_failures(f"reading commit {sha[:12]} of {self.full_name}"):
            return str(self._repo.get_commit(sha).commit.message or "")

    def compare(self, base: str, head: str, *, max_commits: int) -> Comparison:
        import itertools

        with port_failures(f"comparing {base[:12]}...{head[:12]} in {self.full_name}"):
            comparison = self._repo.compare(base, head, comparison_commits_per_page=100)
            total = comparison.total_commits  # one request: page 1 and the totals
            listed = itertools.islice(comparison.commits, max(max_commits, 0))
            # Only attributes the listing carries: ``raw_data`` would fetch each commit again.
            commits = [
                CommitSummary(
                    sha=item.sha,
                    message=item.commit.message or "",
                    html_url=item.html_url or "",
                    author=(item.commit.author.name if item.commit.author else "") or "",
                    parents=tuple(parent.sha for parent in item.parents),
                )
                for item in listed
            ]
            return Comparison(commits, total, comparison.html_url)

    def commit_files(self, sha: str) -> list[Mapping[str, Any]]:
        with port_failures(f"reading the changed files of {sha[:12]} in {self.full_name}"):
            # GitHub's JSON as received: the ranking reads each field with a check.
            files: object = self._repo.get_commit(sha).raw_data.get("files")
            return [f for f in files if isinstance(f, Mapping)] if isinstance(files, list) else []

    # -- issues

    def _issue(self, number: int) -> Issue:
        if number not in self._issues:
            self._issues[number] = self._repo.get_issue(number)
        return self._issues[number]

    def issues(self, label: str) -> list[IssueView]:
        out = []
        with port_failures(f"listing the issues of {self.full_name}"):
            for issue in self._repo.get_issues(state="all", labels=[label]):
                # A pull request's html_url is .../pull/N. (Reading ``pull_request`` would make
                # PyGithub fetch every issue again when the key is absent, as it is for issues.)
                if "/pull/" in (issue.html_url or ""):
                    continue
                self._issues[issue.number] = issue
                out.append(_issue_view(issue))
        return out

    def create_issue(
        self,
        title: str,
        body: str,
        labels: Sequence[str],
        *,
        find_existing: Callable[[], IssueView | None],
    ) -> IssueView:
        found: list[IssueView] = []

        def find() -> Issue | None:
            view = find_existing()
            if view is None:
                return None
            found.append(view)
            return self._issue(view.number)

        doing = f"creating an issue in {self.full_name}"
        with port_failures(doing):
            issue = create_once(
                lambda: self._repo.create_issue(title=title, body=body, labels=list(labels)),
                find,
                doing=doing,
            )
        self._issues[issue.number] = issue
        return found[-1] if found and found[-1].number == issue.number else _issue_view(issue)

    def comments(self, number: int) -> list[CommentView]:
        with port_failures(f"reading the comments of #{number} in {self.full_name}"):
            listed = list(self._issue(number).get_comments())
        self._comments.update((c.id, c) for c in listed)
        return [_comment_view(c) for c in listed]

    def create_comment(
        self, number: int, body: str, *, find_existing: Callable[[], CommentView | None]
    ) -> CommentView:
        doing = f"commenting on #{number} in {self.full_name}"

        def create() -> CommentView:
            comment = issue.create_comment(body)
            self._comments[comment.id] = comment
            return _comment_view(comment)

        with port_failures(doing):
            issue = self._issue(number)
            return create_once(create, find_existing, doing=doing)

    def edit_comment(self, number: int, comment_id: int, body: str) -> None:
        with port_failures(f"editing a comment on #{number} in {self.full_name}"):
            comment = self._comments.get(comment_id) or self._issue(number).get_comment(comment_id)
            comment.edit(body)

    def delete_comment(self, number: int, comment_id: int) -> None:
        with port_failures(f"deleting a comment on #{number} in {self.full_name}"):
            comment = self._comments.get(comment_id) or self._issue(number).get_comment(comment_id)
            comment.delete()
        self._comments.pop(comment_id, None)

    def close_issue(self, number: int) -> IssueView:
        with port_failures(f"closing #{number} in {self.full_name}"):
            issue = self._issue(number)
            issue.edit(state="closed", state_reason="completed")
            return _issue_view(issue)

    def edit_issue(self, number: int, *, title: str, body: str) -> IssueView:
        with port_failures(f"editing #{number} in {self.full_name}"):
            issue = self._issue(number)
            issue.edit(title=title, body=body)
            return _issue_view(issue)

    def issue_body(self, number: int) -> str:
        with port_failures(f"reading #{number} of {self.full_name}"):
            return str(self._issue(number).body or "")


class PyGithubPort:
    """:class:`wheel_size.ports.GitHubPort` over a PyGithub client (see
    :func:`wheel_size.github.client.connect`)."""

    def __init__(self, gh: Github, *, bot_login: str | None = None) -> None:
        self.gh = gh
        # Who the bot is (a configured login, or asked once): see github/identity.py.
        self.identity = BotIdentity(gh, bot_login)

    @classmethod
    def connected(cls, *, bot_login: str | None = None) -> PyGithubPort:
        """A port over :func:`~wheel_size.github.client.connect` (``GITHUB_TOKEN``): for an
        adapter that opens GitHub only once a job asks for it."""
        from wheel_size.github.client import connect

        return cls(connect(), bot_login=bot_login)

    @property
    def per_page(self) -> int:
        return int(getattr(self.gh, "per_page", 100) or 100)

    def repository(self, full_name: str) -> PyGithubRepository:
        with port_failures(f"reading repository {full_name}"):
            return PyGithubRepository(self.gh.get_repo(full_name), self.identity)

    def check_repository(self, repository: str) -> None:
        self.repository(repository)

    def builds(
        self, repository: str, *, log_url_template: str | None, max_log_bytes: int
    ) -> GitHubBuilds:
        from wheel_size.github.checks import GitHubBuilds

        return GitHubBuilds(
            self.gh, repository, log_url_template=log_url_template, max_log_bytes=max_log_bytes
        )

    def pulls(self, repository: str) -> PyGithubPulls:
        from wheel_size.github.pulls import PyGithubPulls

        return PyGithubPulls(self.gh, repository)

    def ancestry(self, repository: str) -> PyGithubCompares:
        from wheel_size.github.compare import PyGithubCompares

        return PyGithubCompares(self.gh, repository)

    def build_trigger(
        self,
        repository: str,
        *,
        workflow: str,
        dispatch_input: str | None,
        dispatch_ref: str | None,
        tag_pattern: str | None,
    ) -> BuildTrigger:
        from wheel_size.github.dispatch import DispatchTrigger, TagTrigger

        if tag_pattern is not None:
            return TagTrigger(self.gh, repository, workflow, self, pattern=tag_pattern)
        return DispatchTrigger(
            self.gh, repository, workflow, self, input_name=str(dispatch_input), ref=dispatch_ref
        )

    # -- runs

    def run_page(
        self, repository: str, workflow: int | str, *, created: str, branch: str | None, page: int
    ) -> RunPage:
        ref = str(workflow) if isinstance(workflow, int) else quote(workflow, safe="")
        url = f"/repos/{repository}/actions/workflows/{ref}/runs"
        params: dict[str, str | int] = {"created": created}
        if branch:
            params["branch"] = branch
        if page:
            params["page"] = page + 1
        if self.per_page != Consts.DEFAULT_PER_PAGE:
            params["per_page"] = self.per_page
        doing = f"listing runs of workflow {workflow} in {repository}"
        with port_failures(doing, everything=True):
            _, data = self.gh.requester.requestJsonAndCheck("GET", url, parameters=params)
            runs = data["workflow_runs"]
            total = data["total_count"]
            if not isinstance(runs, list) or not isinstance(total, int):
                raise TypeError("the run listing has no workflow_runs list or total_count")
            return RunPage(runs, total)

    def run_artifacts_json(self, artifacts_url: str) -> list[Mapping[str, Any]]:
        with port_failures(f"listing artifacts at {artifacts_url}"):
            listing = PaginatedList(
                Artifact, self.gh.requester, artifacts_url, None, list_item="artifacts"
            )
            return [a.raw_data for a in listing]

    def run_jobs_json(self, jobs_url: str) -> list[Mapping[str, Any]]:
        # Pages read as JSON through the requester: a listed WorkflowJob would fetch itself
        # again (one request a job) if its raw data were asked for.
        jobs: list[Mapping[str, Any]] = []
        with port_failures(f"listing jobs at {jobs_url}", everything=True):
            for page in range(1, MAX_JOB_PAGES + 1):
                params: dict[str, str | int] = {"filter": "latest", "per_page": self.per_page}
                if page > 1:
                    params["page"] = page
                _, data = self.gh.requester.requestJsonAndCheck("GET", jobs_url, parameters=params)
                listed = data["jobs"]
                total = data["total_count"]
                if not isinstance(listed, list) or not isinstance(total, int):
                    raise TypeError("the jobs listing has no jobs list or total_count")
                jobs += [j for j in listed if isinstance(j, Mapping)]
                if not listed or len(jobs) >= total:
                    break
        return jobs

    # -- artifact downloads

    def run_artifacts(self, repository: str, run_id: int) -> list[RunArtifact]:
        from wheel_size.github.artifacts import list_run_artifacts

        return list_run_artifacts(self.gh, repository, run_id)

    def download_artifact(
        self,
        artifact: RunArtifact,
        dest: Path,
        *,
        max_bytes: int | None = None,
        progress: TextIO | None = None,
    ) -> Path:
        from wheel_size.github.artifacts import download_artifact

        return download_artifact(
            self.gh, artifact, dest, max_bytes=max_bytes, progress_stream=progress
        )

    def artifact_ranges(self, artifact: RunArtifact, *, timeout: float) -> RangeSource:
        from wheel_size.github.artifact_ranges import ArtifactRangeReader

        return ArtifactRangeReader(self.gh, artifact, timeout=timeout)

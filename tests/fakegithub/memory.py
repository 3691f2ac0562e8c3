"""The GitHub port (:mod:`wheel_size.ports`) in memory, over the same world as the fake server.

Unit tests of the orchestration (collection, the nightly job, issues and comments, the
pull-request check, the split comment, the audit's run download, the bisection's builds) ask the
port for data, not GitHub for JSON: this answers each call from the fake's model directly,
with no HTTP, no PyGithub and no request log, so such a test costs what the code under test
costs. The world is built as for the server (``fake.add_repo(...).add_workflow(...)``, the
``*_world`` helpers) and inspected the same way (``repo.issues``, ``repo.comments``); a
``FakeGitHub`` used only through this port is never started.

What stays on the HTTP server: GitHub's shapes, pagination and request counts, errors and
faults (``fake.fail``), permissions and rate limits, and end-to-end runs of the CLI and the
Action. Listings here are what the adapter returns after paging (complete, same order); the
JSON objects of runs, artifacts and jobs are the server's own (``fake.payloads``). A missing
repository, workflow, run, commit, issue or comment is a :class:`GitHubFailure` with GitHub's
status (404, 422; 410 for disabled issues), as the adapter raises it.

    fake = FakeGitHub()
    wf = add_world(fake)
    port = MemoryGitHub(fake)  # a wheel_size.ports.GitHubPort
    track(store, options, github=port, today=...)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from wheel_size.ports import (
    ACTIONS_BOT,
    ArtifactTooLarge,
    ArtifactUnavailable,
    CommentView,
    CommitSummary,
    Comparison,
    IssueView,
    RunArtifact,
    RunPage,
)
from wheel_size.ports.builds import BuildPort
from wheel_size.ports.trigger import BuildTrigger

from .memory_failure import memory_failure
from .memory_pulls import MemoryCompares, MemoryPulls
from .model import Comment, Issue, Repo, Workflow, _now
from .server import FakeGitHub, _filter_runs

__all__ = ["MemoryGitHub", "MemoryRepository"]

_RUN_URL = re.compile(r"/repos/(?P<repo>[^/]+/[^/]+)/actions/runs/(?P<run>\d+)/(?P<what>\w+)$")


_failure = memory_failure


class MemoryRepository:
    """:class:`wheel_size.ports.Repository` over one repository of the fake's model."""

    def __init__(self, fake: FakeGitHub, repo: Repo, bot_login: str | None) -> None:
        self._fake = fake
        self._repo = repo
        self._bot_login = bot_login

    @property
    def full_name(self) -> str:
        return self._repo.full_name

    @property
    def html_url(self) -> str:
        return f"{self._fake.web_url}/{self._repo.full_name}"

    def identity(self) -> str:
        """The configured login, else a personal token's user, else the Actions bot (an
        installation token cannot read ``/user``), as ``github/identity.py`` decides."""
        return self._bot_login or self._fake.token_user or self._fake.token_app or ACTIONS_BOT

    # -- commits

    def _commit(self, sha: str, doing: str) -> Any:
        with self._fake.lock:
            commit = self._fake._resolve(self._repo, sha)
        if commit is None:
            raise _failure(doing, 422, f"No commit found for SHA: {sha}")
        return commit

    def commit_message(self, sha: str) -> str:
        doing = f"reading commit {sha[:12]} of {self.full_name}"
        return str(self._commit(sha, doing).message)

    def compare(self, base: str, head: str, *, max_commits: int) -> Comparison:
        doing = f"comparing {base[:12]}...{head[:12]} in {self.full_name}"
        with self._fake.lock:
            found = self._fake.compare_refs(self._repo, base, head)
        if found is None:
            raise _failure(doing, 404, "Not Found")
        commits = [
            CommitSummary(
                sha=c.sha,
                message=c.message,
                html_url=f"{self.html_url}/commit/{c.sha}",
                author=c.author_name,
                parents=tuple(c.parents),
            )
            for c in found.commits[: max(max_commits, 0)]
        ]
        return Comparison(commits, len(found.commits), f"{self.html_url}/compare/{base}...{head}")

    def commit_files(self, sha: str) -> list[Mapping[str, Any]]:
        doing = f"reading the changed files of {sha[:12]} in {self.full_name}"
        commit = self._commit(sha, doing)
        with self._fake.lock:
            files = self._fake._files(self._repo, commit)[:300]
        return [self._fake.payloads.diff_entry(self._repo, commit.sha, f) for f in files]

    # -- issues

    def _issues_enabled(self, doing: str) -> Repo:
        if not self._repo.has_issues:
            raise _failure(doing, 410, "Issues are disabled for this repository")
        return self._repo

    def _issue(self, number: int, doing: str) -> Issue:
        issue = self._issues_enabled(doing).issue(number)
        if issue is None:
            raise _failure(doing, 404, "Not Found")
        return issue

    def _comment(self, number: int, comment_id: int, doing: str) -> Comment:
        self._issue(number, doing)
        for comment in self._repo.comments:
            if comment.id == comment_id:
                return comment
        raise _failure(doing, 404, "Not Found")

    def issues(self, label: str) -> list[IssueView]:
        repo = self._issues_enabled(f"listing the issues of {self.full_name}")
        wanted = label.lower()
        with self._fake.lock:
            found = [
                i
                for i in repo.issues
                if not i.is_pull_request and wanted in {n.lower() for n in i.label_names}
            ]
        found.sort(key=lambda i: (i.created_at, i.number), reverse=True)
        return [_issue_view(self._fake, i) for i in found]

    def create_issue(
        self,
        title: str,
        body: str,
        labels: Sequence[str],
        *,
        find_existing: Callable[[], IssueView | None],
    ) -> IssueView:
        del find_existing  # an answer is never lost in memory
        repo = self._issues_enabled(f"creating an issue in {self.full_name}")
        with self._fake.lock:
            issue = repo._new_issue(title, body, list(labels), user=self._fake.writer())
        return _issue_view(self._fake, issue)

    def comments(self, number: int) -> list[CommentView]:
        issue = self._issue(number, f"reading the comments of #{number} in {self.full_name}")
        with self._fake.lock:
            listed = sorted(issue.comments, key=lambda c: c.id)
        return [_comment_view(self._fake, c) for c in listed]

    def create_comment(
        self, number: int, body: str, *, find_existing: Callable[[], CommentView | None]
    ) -> CommentView:
        del find_existing
        issue = self._issue(number, f"commenting on #{number} in {self.full_name}")
        with self._fake.lock:
            now = _now()
            comment = Comment(issue, self._fake.ids.next("comment"), body, self._fake.writer(),
                              now, now)  # fmt: skip
            self._repo.comments.append(comment)
            issue.updated_at = now
        return _comment_view(self._fake, comment)

    def edit_comment(self, number: int, comment_id: int, body: str) -> None:
        doing = f"editing a comment on #{number} in {self.full_name}"
        comment = self._comment(number, comment_id, doing)
        with self._fake.lock:
            comment.body = body
            comment.updated_at = _now()

    def delete_comment(self, number: int, comment_id: int) -> None:
        doing = f"deleting a comment on #{number} in {self.full_name}"
        comment = self._comment(number, comment_id, doing)
        with self._fake.lock:
            self._repo.comments.remove(comment)

    def close_issue(self, number: int) -> IssueView:
        issue = self._issue(number, f"closing #{number} in {self.full_name}")
        with self._fake.lock:
            if issue.state != "closed":
                issue.closed_at = _now()
                issue.state_reason = "completed"
            issue.state = "closed"
            issue.updated_at = _now()
        return _issue_view(self._fake, issue)

    def edit_issue(self, number: int, *, title: str, body: str) -> IssueView:
        issue = self._issue(number, f"editing #{number} in {self.full_name}")
        with self._fake.lock:
            issue.title, issue.body, issue.updated_at = title, body, _now()
        return _issue_view(self._fake, issue)

    def issue_body(self, number: int) -> str:
        return self._issue(number, f"reading #{number} of {self.full_name}").body or ""


def _issue_view(fake: FakeGitHub, issue: Issue) -> IssueView:
    data = fake.payloads.issue(issue)
    return IssueView(
        number=issue.number,
        title=issue.title,
        body=issue.body or "",
        state=issue.state,
        html_url=str(data["html_url"]),
        labels=tuple(issue.label_names),
        author=issue.user.login,
    )


def _comment_view(fake: FakeGitHub, comment: Comment) -> CommentView:
    data = fake.payloads.comment(comment)
    return CommentView(comment.id, comment.body, str(data["html_url"]), comment.user.login)


class MemoryGitHub:
    """:class:`wheel_size.ports.GitHubPort` answered from ``fake``'s model (see the module
    docstring); ``bot_login`` as ``--bot-login`` configures it."""

    per_page = 100

    def __init__(self, fake: FakeGitHub, *, bot_login: str | None = None) -> None:
        self.fake = fake
        self.bot_login = bot_login

    def _repo(self, full_name: str, doing: str) -> Repo:
        repo = self.fake.repos.get(full_name.lower())
        if repo is None:
            raise _failure(doing, 404, "Not Found")
        return repo

    def repository(self, full_name: str) -> MemoryRepository:
        repo = self._repo(full_name, f"reading repository {full_name}")
        return MemoryRepository(self.fake, repo, self.bot_login)

    def check_repository(self, repository: str) -> None:
        self.repository(repository)

    def builds(
        self, repository: str, *, log_url_template: str | None, max_log_bytes: int
    ) -> BuildPort:
        """Runs, artifacts, check runs, jobs and logs of ``repository`` from the model, as
        :class:`wheel_size.github.checks.GitHubBuilds` reads them over HTTP (the repository
        is looked up lazily, as there: a missing one fails each call, not this one)."""
        from .memory_builds import MemoryBuilds

        return MemoryBuilds(
            self.fake, repository, log_url_template=log_url_template, max_log_bytes=max_log_bytes
        )

    def pulls(self, repository: str) -> MemoryPulls:
        """Pull requests of ``repository`` (``fakegithub/memory_pulls.py``)."""
        return MemoryPulls(self.fake, repository)

    def ancestry(self, repository: str) -> MemoryCompares:
        """Commit relations of ``repository`` (``fakegithub/memory_pulls.py``)."""
        return MemoryCompares(self.fake, repository)

    def build_trigger(
        self,
        repository: str,
        *,
        workflow: str,
        dispatch_input: str | None,
        dispatch_ref: str | None,
        tag_pattern: str | None,
    ) -> BuildTrigger:
        """Builds on demand from the fake's farms (``fakegithub/memory_trigger.py``)."""
        from .memory_trigger import MemoryTrigger

        return MemoryTrigger(
            self.fake, repository, workflow, self.run_artifacts_json, input_name=dispatch_input,
            ref=dispatch_ref, pattern=tag_pattern,
        )  # fmt: skip

    # -- runs

    def _workflow(self, repository: str, workflow: int | str, doing: str) -> Workflow:
        repo = self._repo(repository, doing)
        for wf in repo.workflows:
            if str(workflow) in (str(wf.id), wf.file_name):
                return wf
        raise _failure(doing, 404, "Not Found")

    def run_page(
        self, repository: str, workflow: int | str, *, created: str, branch: str | None, page: int
    ) -> RunPage:
        doing = f"listing runs of workflow {workflow} in {repository}"
        wf = self._workflow(repository, workflow, doing)
        query = {"created": created, **({"branch": branch} if branch else {})}
        with self.fake.lock:
            selected = _filter_runs(wf.runs, query)
            reachable = selected[:1000]  # filtered listings stop at 1,000 runs, as GitHub's
            start = page * self.per_page
            runs = [self.fake.payloads.run(r) for r in reachable[start : start + self.per_page]]
        return RunPage(runs, len(selected))

    def _run_of(self, url: str, what: str) -> Any:
        doing = f"listing {what} at {url}"
        match = _RUN_URL.search(url)
        if match is None or match["what"] != what:
            raise _failure(doing, 404, "Not Found")
        repo = self._repo(match["repo"], doing)
        run = self.fake.runs.get(int(match["run"]))
        if run is None or run.workflow.repo is not repo:
            raise _failure(doing, 404, "Not Found")
        return run

    def run_artifacts_json(self, artifacts_url: str) -> list[Mapping[str, Any]]:
        run = self._run_of(artifacts_url, "artifacts")
        with self.fake.lock:
            listed = sorted(run.artifacts, key=lambda a: (a.created_at, a.id), reverse=True)
            return [self.fake.payloads.artifact(a) for a in listed]

    def run_jobs_json(self, jobs_url: str) -> list[Mapping[str, Any]]:
        run = self._run_of(jobs_url, "jobs")
        with self.fake.lock:
            return [self.fake.payloads.job(j) for j in run.jobs]

    # -- artifact downloads

    def run_artifacts(self, repository: str, run_id: int) -> list[RunArtifact]:
        url = f"/repos/{repository}/actions/runs/{run_id}/artifacts"
        return [
            RunArtifact(
                id=int(a["id"]),
                name=str(a["name"]),
                size_in_bytes=int(a["size_in_bytes"]),
                expired=bool(a["expired"]),
                archive_download_url=str(a["archive_download_url"]),
                digest=a.get("digest"),
                run_id=run_id,
            )
            for a in self.run_artifacts_json(url)
        ]

    def download_artifact(
        self,
        artifact: RunArtifact,
        dest: Path,
        *,
        max_bytes: int | None = None,
        progress: TextIO | None = None,
    ) -> Path:
        """The artifact's zip at ``dest``; the adapter's errors for an expired, a deleted or
        a too large one (the size is checked before anything is written)."""
        del progress
        what = f"artifact {artifact.name!r} ({artifact.id})" + (
            f" of run {artifact.run_id}" if artifact.run_id else ""
        )
        stored = self.fake.artifacts.get(artifact.id)
        if artifact.expired or (stored is not None and stored.expired):
            raise ArtifactUnavailable(f"{what} has expired: evidence unavailable")
        if stored is None:
            raise ArtifactUnavailable(f"{what} is gone (GitHub answered 404): evidence unavailable")
        data = stored.zip_bytes()
        for size in (artifact.size_in_bytes, len(data)):
            if max_bytes is not None and size > max_bytes:
                raise ArtifactTooLarge(
                    f"{what} is {size:,} bytes, over the download limit of {max_bytes:,}"
                )
        dest.parent.mkdir(parents=True, exist_ok=True)
        part = dest.with_name(f".{dest.name}.part")
        part.write_bytes(data)
        part.replace(dest)
        return dest

"""In-memory state of the fake: repositories, workflows, runs, artifacts, commits, issues.

Tests build the world through these objects (``fake.add_repo(...).add_workflow(...)``) and
inspect what the code under test wrote (``repo.issues``, ``repo.comments``).
"""

from __future__ import annotations

import hashlib
import io
import itertools
import threading
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from .query import format_time, parse_time

BOT_LOGIN = "github-actions[bot]"
BOT_ID = 41898282


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def _time(value: str | datetime | None, default: datetime) -> datetime:
    if value is None:
        return default
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc)
    return parse_time(value)


def fake_sha(*parts: object) -> str:
    """A stable 40-hex id for objects that need a sha but have no git behind them."""
    return hashlib.sha1("\0".join(map(str, parts)).encode()).hexdigest()


class Ids:
    """Thread-safe id counters, one per kind, starting at GitHub-like magnitudes."""

    _starts = {  # noqa: RUF012 - class-level defaults, copied per instance
        "repo": 65600000,
        "workflow": 21257000,
        "run": 18300000000,
        "artifact": 4200000000,
        "issue": 3400000000,
        "comment": 3300000000,
        "label": 8800000000,
        "check_suite": 47000000000,
        "job": 52000000000,
    }

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counters = {k: itertools.count(v) for k, v in self._starts.items()}

    def next(self, kind: str) -> int:
        with self._lock:
            return next(self._counters[kind])


@dataclass
class User:
    login: str
    id: int
    type: str = "User"


BOT = User(BOT_LOGIN, BOT_ID, "Bot")


def user_named(login: str) -> User:
    """The Actions bot for its login; any other login a user (a ``[bot]`` suffix: an app)."""
    if login == BOT_LOGIN:
        return BOT
    return User(login, 1000 + sum(map(ord, login)), "Bot" if login.endswith("[bot]") else "User")


@dataclass
class Artifact:
    run: Run
    id: int
    name: str
    size_in_bytes: int
    expired: bool
    content: bytes | None
    created_at: datetime
    expires_at: datetime
    digest: str | None

    def zip_bytes(self) -> bytes:
        """What the download endpoint serves: the given content, or a small placeholder zip."""
        if self.content is not None:
            return self.content
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("placeholder.txt", f"artifact {self.name} of run {self.run.id}\n")
        return buffer.getvalue()


@dataclass
class Job:
    """A job of a run, which GitHub also lists as a check run with the same id; with
    ``run=None`` a check run of another app (an external CI). ``log`` is what the log
    endpoints serve; ``log_state`` "gone" answers 410, "missing" 404. ``mirrored``: the
    log mirror (``/_mirror/log/{id}``) has it. ``stream``: served without Content-Length."""

    run: Run | None
    repo: Repo
    id: int
    name: str
    head_sha: str
    status: str
    conclusion: str | None
    log: bytes | None
    started_at: datetime
    completed_at: datetime | None
    log_state: str = "ok"
    mirrored: bool = True
    stream: bool = False
    app: str = "github-actions"
    details_url: str | None = None
    run_attempt: int | None = None  # the attempt the job ran in (default: the run's)


def _log_bytes(log: str | bytes | None) -> bytes | None:
    return log.encode() if isinstance(log, str) else log


@dataclass
class Run:
    workflow: Workflow
    id: int
    run_number: int
    created_at: datetime
    updated_at: datetime
    head_sha: str
    head_branch: str | None
    message: str
    status: str
    conclusion: str | None
    run_attempt: int
    event: str
    actor: str
    display_title: str
    check_suite_id: int
    artifacts: list[Artifact] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    # Where the head commit came from: None is the workflow's own repository; a fork's
    # pull_request run names the fork (GitHub's ``head_repository``).
    head_repo: Repo | None = None

    def add_job(
        self,
        name: str,
        log: str | bytes | None = None,
        status: str = "completed",
        conclusion: str | None = "success",
        *,
        log_state: str = "ok",
        mirrored: bool = True,
        stream: bool = False,
        started_at: str | datetime | None = None,
        completed_at: str | datetime | None = None,
        run_attempt: int | None = None,
    ) -> Job:
        """Add a job (also listed among the head commit's check runs, same id). It starts a
        minute after the run and takes 79 minutes unless ``started_at``/``completed_at``
        say otherwise; ``run_attempt``: a job carried over from an earlier attempt."""
        fake = self.workflow.repo.fake
        job = Job(
            run=self,
            repo=self.workflow.repo,
            id=fake.ids.next("job"),
            name=name,
            head_sha=self.head_sha,
            status=status,
            conclusion=conclusion if status == "completed" else None,
            log=_log_bytes(log),
            started_at=_time(started_at, self.created_at + timedelta(minutes=1)),
            completed_at=_time(completed_at, self.created_at + timedelta(minutes=80))
            if status == "completed"
            else None,
            log_state=log_state,
            mirrored=mirrored,
            stream=stream,
            run_attempt=run_attempt,
        )
        with fake.lock:
            self.jobs.append(job)
            fake.jobs[job.id] = job
        return job

    def add_artifact(
        self,
        name: str,
        size_in_bytes: int | None = None,
        expired: bool = False,
        content: bytes | None = None,
        created_at: str | datetime | None = None,
        *,
        expires_at: str | datetime | None = None,
        digest: str | bool | None = True,
    ) -> Artifact:
        """Attach an artifact. ``content`` (zip bytes) is what downloads return; its length is
        the default ``size_in_bytes`` and its sha256 the ``digest`` (``digest=None`` mimics a
        pre-v4 artifact, a string sets it verbatim)."""
        fake = self.workflow.repo.fake
        created = _time(created_at, self.created_at + timedelta(minutes=90))
        if size_in_bytes is None:
            size_in_bytes = len(content) if content is not None else 0
        if digest is True:
            source = content if content is not None else f"{name}:{size_in_bytes}".encode()
            digest_value: str | None = "sha256:" + hashlib.sha256(source).hexdigest()
        elif digest is False:
            digest_value = None
        else:
            digest_value = digest
        artifact = Artifact(
            run=self,
            id=fake.ids.next("artifact"),
            name=name,
            size_in_bytes=size_in_bytes,
            expired=expired,
            content=content,
            created_at=created,
            expires_at=_time(expires_at, created + timedelta(days=90)),
            digest=digest_value,
        )
        with fake.lock:
            self.artifacts.append(artifact)
            fake.artifacts[artifact.id] = artifact
        return artifact


@dataclass
class Workflow:
    repo: Repo
    id: int
    name: str
    path: str
    state: str = "active"
    created_at: datetime = field(default_factory=_now)
    runs: list[Run] = field(default_factory=list)

    @property
    def file_name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    def add_run(
        self,
        created_at: str | datetime | None = None,
        head_sha: str | None = None,
        head_branch: str | None = "nightly",
        message: str = "nightly release",
        status: str = "completed",
        conclusion: str | None = "success",
        run_attempt: int = 1,
        event: str = "push",
        *,
        updated_at: str | datetime | None = None,
        actor: str = "pytorchbot",
        display_title: str | None = None,
        head_repository: Repo | None = None,
    ) -> Run:
        """Add a workflow run; ids and run numbers auto-increment. ``head_repository``: the
        fork a ``pull_request`` run was built from (default: this repository)."""
        fake = self.repo.fake
        created = _time(created_at, _now())
        run_id = fake.ids.next("run")
        if status != "completed" and conclusion == "success":
            conclusion = None
        with fake.lock:
            run = Run(
                workflow=self,
                id=run_id,
                run_number=len(self.runs) + 1,
                created_at=created,
                updated_at=_time(updated_at, created + timedelta(hours=3)),
                head_sha=head_sha or fake_sha("run", run_id),
                head_branch=head_branch,
                message=message,
                status=status,
                conclusion=conclusion,
                run_attempt=run_attempt,
                event=event,
                actor=actor,
                display_title=display_title or (message.splitlines()[0] if message else ""),
                check_suite_id=fake.ids.next("check_suite"),
                head_repo=head_repository,
            )
            self.runs.append(run)
            fake.runs[run.id] = run
        return run


@dataclass
class FileChange:
    """One entry of a commit's ``files`` (a GitHub diff-entry)."""

    filename: str
    status: str = "modified"
    additions: int = 1
    deletions: int = 0
    patch: str | None = None
    previous_filename: str | None = None
    sha: str | None = None


@dataclass
class Commit:
    """A commit added by hand (for repositories, or refs, without a git directory)."""

    sha: str
    message: str
    parents: list[str]
    files: list[FileChange]
    author_name: str
    author_email: str
    author_date: datetime
    committer_name: str
    committer_email: str
    committer_date: datetime
    tree: str


@dataclass
class Label:
    id: int
    name: str
    color: str = "ededed"
    description: str | None = None
    default: bool = False


@dataclass
class Comment:
    issue: Issue
    id: int
    body: str
    user: User
    created_at: datetime
    updated_at: datetime


@dataclass
class PullHead:
    """Where a pull request's commits come from: ``repository`` is a fork's for a fork."""

    sha: str
    ref: str
    repository: str
    base_ref: str = "main"


@dataclass
class Issue:
    repo: Repo
    id: int
    number: int
    title: str
    body: str | None
    user: User
    labels: list[Label]
    state: str = "open"
    state_reason: str | None = None
    created_at: datetime = field(default_factory=_now)
    updated_at: datetime = field(default_factory=_now)
    closed_at: datetime | None = None
    is_pull_request: bool = False
    locked: bool = False
    assignees: list[str] = field(default_factory=list)
    head: PullHead | None = None  # a pull request's head (pulls.py's add_pull sets it)

    @property
    def comments(self) -> list[Comment]:
        return [c for c in self.repo.comments if c.issue is self]

    @property
    def label_names(self) -> list[str]:
        return [label.name for label in self.labels]


@dataclass
class Repo:
    fake: Any  # FakeGitHub; Any avoids an import cycle
    id: int
    owner: str
    name: str
    git_dir: Path | None
    has_issues: bool = True
    private: bool = False
    default_branch: str = "main"
    created_at: datetime = field(default_factory=_now)
    workflows: list[Workflow] = field(default_factory=list)
    commits: dict[str, Commit] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)  # branch name -> sha (added commits)
    issues: list[Issue] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    labels: dict[str, Label] = field(default_factory=dict)  # lower-case name -> label

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def add_workflow(
        self, id: int | None = None, name: str = "nightly", path: str | None = None
    ) -> Workflow:
        """Add a workflow; ``path`` defaults to ``.github/workflows/<name>.yml``."""
        wf = Workflow(
            repo=self,
            id=id if id is not None else self.fake.ids.next("workflow"),
            name=name,
            path=path or f".github/workflows/{name}.yml",
        )
        with self.fake.lock:
            self.workflows.append(wf)
        return wf

    def add_commit(
        self,
        sha: str,
        message: str,
        files: list[FileChange | dict[str, Any] | str] | None = None,
        parents: list[str] | None = None,
        *,
        branch: str | None = None,
        author: tuple[str, str] = ("PyTorch MergeBot", "pytorchmergebot@users.noreply.github.com"),
        committer: tuple[str, str] | None = None,
        date: str | datetime | None = None,
    ) -> Commit:
        """Add a commit served by ``GET /commits/{ref}`` without a git directory. ``files``
        entries are FileChange, diff-entry-like dicts, or plain file names (modified)."""
        changes: list[FileChange] = []
        for entry in files or []:
            if isinstance(entry, FileChange):
                changes.append(entry)
            elif isinstance(entry, str):
                changes.append(FileChange(entry))
            else:
                changes.append(FileChange(**entry))
        when = _time(date, _now())
        committer = committer or author
        commit = Commit(
            sha=sha,
            message=message,
            parents=list(parents or []),
            files=changes,
            author_name=author[0],
            author_email=author[1],
            author_date=when,
            committer_name=committer[0],
            committer_email=committer[1],
            committer_date=when,
            tree=fake_sha("tree", sha),
        )
        with self.fake.lock:
            self.commits[sha] = commit
            if branch:
                self.refs[branch] = sha
        return commit

    def add_check_run(
        self,
        head_sha: str,
        name: str,
        log: str | bytes | None = None,
        status: str = "completed",
        conclusion: str | None = "success",
        *,
        app: str = "external-ci",
        details_url: str | None = None,
        log_state: str = "ok",
        mirrored: bool = True,
    ) -> Job:
        """A check run of another app (no workflow run): its log is only on the mirror."""
        when = _now()
        job = Job(
            run=None,
            repo=self,
            id=self.fake.ids.next("job"),
            name=name,
            head_sha=head_sha,
            status=status,
            conclusion=conclusion if status == "completed" else None,
            log=_log_bytes(log),
            started_at=when,
            completed_at=when if status == "completed" else None,
            log_state=log_state,
            mirrored=mirrored,
            app=app,
            details_url=details_url,
        )
        with self.fake.lock:
            self.fake.jobs[job.id] = job
        return job

    def add_label(self, name: str, color: str = "ededed", description: str | None = None) -> Label:
        with self.fake.lock:
            return self._label(name, color, description)

    def _label(self, name: str, color: str = "ededed", description: str | None = None) -> Label:
        key = name.lower()
        if key not in self.labels:
            self.labels[key] = Label(self.fake.ids.next("label"), name, color, description)
        return self.labels[key]

    def add_issue(
        self,
        title: str,
        body: str | None = None,
        labels: list[str] | None = None,
        *,
        state: str = "open",
        user: str = BOT_LOGIN,
        pull_request: bool = False,
        created_at: str | datetime | None = None,
    ) -> Issue:
        """Seed an issue (or, with ``pull_request=True``, a PR listed among issues)."""
        with self.fake.lock:
            return self._new_issue(
                title,
                body,
                labels or [],
                user=user_named(user),
                state=state,
                pull_request=pull_request,
                created_at=_time(created_at, _now()),
            )

    def _new_issue(
        self,
        title: str,
        body: str | None,
        labels: list[str],
        *,
        user: User,
        state: str = "open",
        pull_request: bool = False,
        created_at: datetime | None = None,
    ) -> Issue:
        when = created_at or _now()
        issue = Issue(
            repo=self,
            id=self.fake.ids.next("issue"),
            number=len(self.issues) + 1,
            title=title,
            body=body,
            user=user,
            labels=[self._label(n) for n in labels],
            state=state,
            created_at=when,
            updated_at=when,
            closed_at=when if state == "closed" else None,
            state_reason="completed" if state == "closed" else None,
            is_pull_request=pull_request,
        )
        self.issues.append(issue)
        return issue

    def add_comment(self, number: int, body: str, *, user: str = BOT_LOGIN) -> Comment:
        """Seed a comment on issue (or PR) ``number`` by ``user`` (e.g. another user who
        copies the bot's marker into it)."""
        with self.fake.lock:
            issue = self.issue(number)
            if issue is None:
                raise KeyError(f"no issue #{number} in {self.full_name}")
            now = _now()
            comment = Comment(
                issue, self.fake.ids.next("comment"), body, user_named(user), now, now
            )
            self.comments.append(comment)
            return comment

    def issue(self, number: int) -> Issue | None:
        for issue in self.issues:
            if issue.number == number:
                return issue
        return None


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else format_time(moment)

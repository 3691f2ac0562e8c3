"""A fake GitHub REST API for tests: real HTTP on 127.0.0.1, GitHub's JSON shapes, Link
pagination, rate-limit headers, errors and fault injection, driven through PyGithub.

    with FakeGitHub() as fake:
        repo = fake.add_repo("pytorch/pytorch")
        wf = repo.add_workflow(21257348, "linux-binary-manywheel", ".github/workflows/x.yml")
        run = wf.add_run(created_at="2025-10-11T07:30:00Z", message="2025-10-11 nightly …")
        run.add_artifact("manywheel-py3_12-cuda12_8", size_in_bytes=901234567)
        Github(auth=Auth.Token(fake.token), base_url=fake.url)...
"""

from .model import (
    BOT_LOGIN,
    Artifact,
    Comment,
    Commit,
    FileChange,
    Issue,
    Job,
    Label,
    PullHead,
    Repo,
    Run,
    User,
    Workflow,
    fake_sha,
)
from .pulls import add_pull
from .server import Answer, FakeGitHub, Fault, LoggedRequest

__all__ = [
    "BOT_LOGIN",
    "Answer",
    "Artifact",
    "Comment",
    "Commit",
    "FakeGitHub",
    "Fault",
    "FileChange",
    "Issue",
    "Job",
    "Label",
    "LoggedRequest",
    "PullHead",
    "Repo",
    "Run",
    "User",
    "Workflow",
    "add_pull",
    "fake_sha",
]

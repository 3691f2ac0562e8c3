"""Pull requests of the fake: what the PR check reads to learn which pull request a
``workflow_run`` built (``pull-requests: read``).

``add_pull(repo, title, body, head_sha=…, head_ref=…, head_repository=…)`` seeds an open pull
request (listed among the issues too, as on GitHub; ``head_repository`` defaults to the
repository itself, a fork's ``owner/name`` for a fork). ``GET …/pulls`` (``state``, ``head``
as ``owner:branch``, ``base``, ``sort``, ``direction``, paging) and ``GET …/pulls/{n}``.
"""

from __future__ import annotations

from typing import Any

from .model import BOT_LOGIN, Issue, PullHead, Repo, User, iso
from .server import _REPO, DOCS, Answer, Context, FakeGitHub, HTTPError, route

__all__ = ["add_pull"]

PULLS_READ = ("pull_requests", "read")


def add_pull(
    repo: Repo,
    title: str,
    body: str | None = None,
    *,
    head_sha: str,
    head_ref: str = "feature",
    head_repository: str | None = None,
    base_ref: str = "main",
    user: str = "contributor",
    state: str = "open",
) -> Issue:
    """Seed a pull request of ``repo`` whose head is ``head_sha`` on ``head_ref``."""
    pull = repo.add_issue(
        title, body, state=state, user=user if user != BOT_LOGIN else BOT_LOGIN, pull_request=True
    )
    pull.head = PullHead(head_sha, head_ref, head_repository or repo.full_name, base_ref)
    return pull


def _side(fake: FakeGitHub, repository: str, ref: str, sha: str) -> dict[str, Any]:
    owner, _, name = repository.partition("/")
    known = fake.repos.get(repository.lower())
    repo = known or Repo(fake, 90_000 + len(repository), owner, name, git_dir=None)
    payload = fake.payloads.full_repo(repo)
    if known is None:
        payload["fork"] = True
    return {
        "label": f"{owner}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": fake.payloads.user(User(owner, repo.id // 7, "User")),
        "repo": payload,
    }


def pull_payload(fake: FakeGitHub, pull: Issue, *, full: bool = False) -> dict[str, Any]:
    """A pull request as listed (``pull-request-simple``) or, ``full``, as ``GET pulls/N``."""
    data = _simple(fake, pull)
    if full:
        data.update(
            {
                "merged": False,
                "mergeable": True,
                "rebaseable": True,
                "mergeable_state": "clean",
                "merged_by": None,
                "comments": len(pull.comments),
                "review_comments": 0,
                "maintainer_can_modify": False,
                "commits": 1,
                "additions": 1,
                "deletions": 0,
                "changed_files": 1,
            }
        )
    return data


def _simple(fake: FakeGitHub, pull: Issue) -> dict[str, Any]:
    repo = pull.repo
    head = pull.head or PullHead("0" * 40, "unknown", repo.full_name)
    r = fake.payloads.repo_url(repo)
    u = f"{r}/pulls/{pull.number}"
    web = f"{fake.payloads.web}/{repo.full_name}/pull/{pull.number}"
    return {
        "url": u,
        "id": pull.id,
        "node_id": f"PR_{pull.id}",
        "html_url": web,
        "diff_url": f"{web}.diff",
        "patch_url": f"{web}.patch",
        "issue_url": f"{r}/issues/{pull.number}",
        "commits_url": f"{u}/commits",
        "review_comments_url": f"{u}/comments",
        "review_comment_url": f"{r}/pulls/comments{{/number}}",
        "comments_url": f"{r}/issues/{pull.number}/comments",
        "statuses_url": f"{r}/statuses/{head.sha}",
        "number": pull.number,
        "state": pull.state,
        "locked": pull.locked,
        "title": pull.title,
        "user": fake.payloads.user(pull.user),
        "body": pull.body,
        "labels": [fake.payloads.label(repo, label) for label in pull.labels],
        "milestone": None,
        "active_lock_reason": None,
        "created_at": iso(pull.created_at),
        "updated_at": iso(pull.updated_at),
        "closed_at": iso(pull.closed_at),
        "merged_at": None,
        "merge_commit_sha": None,
        "assignee": None,
        "assignees": [],
        "requested_reviewers": [],
        "requested_teams": [],
        "head": _side(fake, head.repository, head.ref, head.sha),
        "base": _side(fake, repo.full_name, head.base_ref, "b" * 40),
        "_links": {
            "self": {"href": u},
            "html": {"href": web},
            "issue": {"href": f"{r}/issues/{pull.number}"},
            "comments": {"href": f"{r}/issues/{pull.number}/comments"},
            "review_comments": {"href": f"{u}/comments"},
            "review_comment": {"href": f"{r}/pulls/comments{{/number}}"},
            "commits": {"href": f"{u}/commits"},
            "statuses": {"href": f"{r}/statuses/{head.sha}"},
        },
        "author_association": "CONTRIBUTOR",
        "auto_merge": None,
        "draft": False,
    }


@route("GET", _REPO + r"/pulls", PULLS_READ)
def _list_pulls(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    q = ctx.query
    state = q.get("state", "open")
    pulls = [i for i in repo.issues if i.is_pull_request and (state == "all" or i.state == state)]
    if q.get("head"):
        owner, _, ref = q["head"].partition(":")
        pulls = [
            p
            for p in pulls
            if p.head is not None
            and p.head.repository.partition("/")[0].lower() == owner.lower()
            and (not ref or p.head.ref == ref)
        ]
    if q.get("base"):
        pulls = [p for p in pulls if p.head is not None and p.head.base_ref == q["base"]]
    sort = q.get("sort", "created")
    if sort == "updated":
        pulls.sort(key=lambda p: (p.updated_at, p.number))
    else:
        pulls.sort(key=lambda p: (p.created_at, p.number))
    # GitHub: newest first when sorted by creation (the default), else oldest first
    if q.get("direction", "desc" if sort == "created" else "asc") == "desc":
        pulls.reverse()
    page, link = fake._page(ctx, pulls)
    return fake._ok([pull_payload(fake, p) for p in page], headers=link)


@route("GET", _REPO + r"/pulls/(?P<number>\d+)", PULLS_READ)
def _get_pull(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    pull = repo.issue(int(ctx.params["number"]))
    if pull is None or not pull.is_pull_request:
        raise HTTPError(404, "Not Found", doc=f"{DOCS}/pulls/pulls#get-a-pull-request")
    return fake._ok(pull_payload(fake, pull, full=True))

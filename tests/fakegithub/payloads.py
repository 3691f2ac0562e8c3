"""JSON payloads in GitHub's shapes (components.schemas of the OpenAPI description).

Every API URL is built from the fake's own base URL so PyGithub's URL guard accepts it;
``html_url``s use the configured web base (``https://github.com`` by default), as GitHub does.
"""

from __future__ import annotations

import base64
from typing import Any

from .model import (
    Artifact,
    Comment,
    Commit,
    FileChange,
    Issue,
    Job,
    Label,
    Repo,
    Run,
    User,
    Workflow,
    fake_sha,
    iso,
)


def node_id(kind: str, ident: object) -> str:
    return base64.b64encode(f"0{len(kind)}:{kind}{ident}".encode()).decode().rstrip("=")


class Payloads:
    """Builds payloads for one fake server (its API base and web base)."""

    def __init__(self, api: str, web: str) -> None:
        self.api = api.rstrip("/")
        self.web = web.rstrip("/")

    # -- users and repositories ---------------------------------------------------------

    def user(self, user: User) -> dict[str, Any]:
        u = f"{self.api}/users/{user.login}"
        return {
            "login": user.login,
            "id": user.id,
            "node_id": node_id("User", user.id),
            "avatar_url": f"https://avatars.githubusercontent.com/u/{user.id}?v=4",
            "gravatar_id": "",
            "url": u,
            "html_url": f"{self.web}/{user.login}",
            "followers_url": f"{u}/followers",
            "following_url": f"{u}/following{{/other_user}}",
            "gists_url": f"{u}/gists{{/gist_id}}",
            "starred_url": f"{u}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{u}/subscriptions",
            "organizations_url": f"{u}/orgs",
            "repos_url": f"{u}/repos",
            "events_url": f"{u}/events{{/privacy}}",
            "received_events_url": f"{u}/received_events",
            "type": user.type,
            "user_view_type": "public",
            "site_admin": False,
        }

    def repo_url(self, repo: Repo) -> str:
        return f"{self.api}/repos/{repo.full_name}"

    def minimal_repo(self, repo: Repo, *, fork: bool = False) -> dict[str, Any]:
        r = self.repo_url(repo)
        owner = User(repo.owner, repo.id // 7, "Organization")
        return {
            "id": repo.id,
            "node_id": node_id("Repository", repo.id),
            "name": repo.name,
            "full_name": repo.full_name,
            "private": repo.private,
            "owner": self.user(owner),
            "html_url": f"{self.web}/{repo.full_name}",
            "description": None,
            "fork": fork,
            "url": r,
            "forks_url": f"{r}/forks",
            "keys_url": f"{r}/keys{{/key_id}}",
            "collaborators_url": f"{r}/collaborators{{/collaborator}}",
            "teams_url": f"{r}/teams",
            "hooks_url": f"{r}/hooks",
            "issue_events_url": f"{r}/issues/events{{/number}}",
            "events_url": f"{r}/events",
            "assignees_url": f"{r}/assignees{{/user}}",
            "branches_url": f"{r}/branches{{/branch}}",
            "tags_url": f"{r}/tags",
            "blobs_url": f"{r}/git/blobs{{/sha}}",
            "git_tags_url": f"{r}/git/tags{{/sha}}",
            "git_refs_url": f"{r}/git/refs{{/sha}}",
            "trees_url": f"{r}/git/trees{{/sha}}",
            "statuses_url": f"{r}/statuses/{{sha}}",
            "languages_url": f"{r}/languages",
            "stargazers_url": f"{r}/stargazers",
            "contributors_url": f"{r}/contributors",
            "subscribers_url": f"{r}/subscribers",
            "subscription_url": f"{r}/subscription",
            "commits_url": f"{r}/commits{{/sha}}",
            "git_commits_url": f"{r}/git/commits{{/sha}}",
            "comments_url": f"{r}/comments{{/number}}",
            "issue_comment_url": f"{r}/issues/comments{{/number}}",
            "contents_url": f"{r}/contents/{{+path}}",
            "compare_url": f"{r}/compare/{{base}}...{{head}}",
            "merges_url": f"{r}/merges",
            "archive_url": f"{r}/{{archive_format}}{{/ref}}",
            "downloads_url": f"{r}/downloads",
            "issues_url": f"{r}/issues{{/number}}",
            "pulls_url": f"{r}/pulls{{/number}}",
            "milestones_url": f"{r}/milestones{{/number}}",
            "notifications_url": f"{r}/notifications{{?since,all,participating}}",
            "labels_url": f"{r}/labels{{/name}}",
            "releases_url": f"{r}/releases{{/id}}",
            "deployments_url": f"{r}/deployments",
        }

    def full_repo(self, repo: Repo) -> dict[str, Any]:
        data = self.minimal_repo(repo)
        host = self.web.split("://", 1)[-1]
        open_issues = sum(1 for i in repo.issues if i.state == "open")
        data.update(
            {
                "created_at": iso(repo.created_at),
                "updated_at": iso(repo.created_at),
                "pushed_at": iso(repo.created_at),
                "git_url": f"git://{host}/{repo.full_name}.git",
                "ssh_url": f"git@{host}:{repo.full_name}.git",
                "clone_url": f"{self.web}/{repo.full_name}.git",
                "svn_url": f"{self.web}/{repo.full_name}",
                "homepage": None,
                "size": 1024,
                "stargazers_count": 0,
                "watchers_count": 0,
                "language": "Python",
                "has_issues": repo.has_issues,
                "has_projects": True,
                "has_downloads": True,
                "has_wiki": True,
                "has_pages": False,
                "has_discussions": False,
                "forks_count": 0,
                "mirror_url": None,
                "archived": False,
                "disabled": False,
                "open_issues_count": open_issues,
                "license": None,
                "allow_forking": True,
                "is_template": False,
                "web_commit_signoff_required": False,
                "topics": [],
                "visibility": "private" if repo.private else "public",
                "forks": 0,
                "open_issues": open_issues,
                "watchers": 0,
                "default_branch": repo.default_branch,
                "permissions": {
                    "admin": False,
                    "maintain": False,
                    "push": True,
                    "triage": True,
                    "pull": True,
                },
                "network_count": 0,
                "subscribers_count": 0,
            }
        )
        return data

    # -- actions --------------------------------------------------------------------------

    def workflow(self, wf: Workflow) -> dict[str, Any]:
        r = self.repo_url(wf.repo)
        return {
            "id": wf.id,
            "node_id": node_id("Workflow", wf.id),
            "name": wf.name,
            "path": wf.path,
            "state": wf.state,
            "created_at": iso(wf.created_at),
            "updated_at": iso(wf.created_at),
            "url": f"{r}/actions/workflows/{wf.id}",
            "html_url": f"{self.web}/{wf.repo.full_name}/blob/{wf.repo.default_branch}/{wf.path}",
            "badge_url": f"{self.web}/{wf.repo.full_name}/workflows/{wf.name}/badge.svg",
        }

    def run(self, run: Run) -> dict[str, Any]:
        repo = run.workflow.repo
        r = self.repo_url(repo)
        u = f"{r}/actions/runs/{run.id}"
        actor = self.user(User(run.actor, 21957446))
        started = run.created_at
        head = run.head_repo or repo
        return {
            "id": run.id,
            "name": run.workflow.name,
            "node_id": node_id("WorkflowRun", run.id),
            "head_branch": run.head_branch,
            "head_sha": run.head_sha,
            "path": f"{run.workflow.path}@{run.head_branch or repo.default_branch}",
            "display_title": run.display_title,
            "run_number": run.run_number,
            "event": run.event,
            "status": run.status,
            "conclusion": run.conclusion,
            "workflow_id": run.workflow.id,
            "check_suite_id": run.check_suite_id,
            "check_suite_node_id": node_id("CheckSuite", run.check_suite_id),
            "url": u,
            "html_url": f"{self.web}/{repo.full_name}/actions/runs/{run.id}",
            "pull_requests": [],
            "created_at": iso(run.created_at),
            "updated_at": iso(run.updated_at),
            "actor": actor,
            "run_attempt": run.run_attempt,
            "referenced_workflows": [],
            "run_started_at": iso(started),
            "triggering_actor": actor,
            "jobs_url": f"{u}/jobs",
            "logs_url": f"{u}/logs",
            "check_suite_url": f"{r}/check-suites/{run.check_suite_id}",
            "artifacts_url": f"{u}/artifacts",
            "cancel_url": f"{u}/cancel",
            "rerun_url": f"{u}/rerun",
            "previous_attempt_url": (
                f"{u}/attempts/{run.run_attempt - 1}" if run.run_attempt > 1 else None
            ),
            "workflow_url": f"{r}/actions/workflows/{run.workflow.id}",
            "head_commit": {
                "id": run.head_sha,
                "tree_id": fake_sha("tree", run.head_sha),
                "message": run.message,
                "timestamp": iso(run.created_at),
                "author": {
                    "name": "PyTorch MergeBot",
                    "email": "pytorchmergebot@users.noreply.github.com",
                },
                "committer": {
                    "name": "PyTorch MergeBot",
                    "email": "pytorchmergebot@users.noreply.github.com",
                },
            },
            "repository": self.minimal_repo(repo),
            "head_repository": self.minimal_repo(head, fork=head is not repo),
            "head_repository_id": head.id,
        }

    def artifact(self, artifact: Artifact) -> dict[str, Any]:
        run = artifact.run
        repo = run.workflow.repo
        u = f"{self.repo_url(repo)}/actions/artifacts/{artifact.id}"
        return {
            "id": artifact.id,
            "node_id": node_id("Artifact", artifact.id),
            "name": artifact.name,
            "size_in_bytes": artifact.size_in_bytes,
            "url": u,
            "archive_download_url": f"{u}/zip",
            "expired": artifact.expired,
            "digest": artifact.digest,
            "created_at": iso(artifact.created_at),
            "updated_at": iso(artifact.created_at),
            "expires_at": iso(artifact.expires_at),
            "workflow_run": {
                "id": run.id,
                "repository_id": repo.id,
                "head_repository_id": (run.head_repo or repo).id,
                "head_branch": run.head_branch,
                "head_sha": run.head_sha,
            },
        }

    def job(self, job: Job) -> dict[str, Any]:
        """A workflow job (``job`` schema); only for jobs of runs."""
        run = job.run
        assert run is not None, "check runs of other apps are not jobs"
        repo = job.repo
        r = self.repo_url(repo)
        return {
            "id": job.id,
            "run_id": run.id,
            "workflow_name": run.workflow.name,
            "head_branch": run.head_branch,
            "run_url": f"{r}/actions/runs/{run.id}",
            "run_attempt": job.run_attempt or run.run_attempt,
            "node_id": node_id("CheckRun", job.id),
            "head_sha": job.head_sha,
            "url": f"{r}/actions/jobs/{job.id}",
            "html_url": self.job_html(job),
            "status": job.status,
            "conclusion": job.conclusion,
            "created_at": iso(job.started_at),
            "started_at": iso(job.started_at),
            "completed_at": iso(job.completed_at),
            "name": job.name,
            "steps": [
                {
                    "name": "Build wheel",
                    "status": job.status,
                    "conclusion": job.conclusion,
                    "number": 1,
                    "started_at": iso(job.started_at),
                    "completed_at": iso(job.completed_at),
                }
            ],
            "check_run_url": f"{r}/check-runs/{job.id}",
            "labels": ["linux.12xlarge"],
            "runner_id": 1,
            "runner_name": "runner-1",
            "runner_group_id": 1,
            "runner_group_name": "Default",
        }

    def job_html(self, job: Job) -> str:
        if job.run is not None:
            return f"{self.web}/{job.repo.full_name}/actions/runs/{job.run.id}/job/{job.id}"
        return f"{self.web}/{job.repo.full_name}/runs/{job.id}"

    def app(self, slug: str) -> dict[str, Any]:
        owner = User("github" if slug == "github-actions" else slug, 9919, "Organization")
        return {
            "id": 15368 if slug == "github-actions" else 900000 + len(slug),
            "slug": slug,
            "node_id": node_id("Integration", slug),
            "owner": self.user(owner),
            "name": "GitHub Actions" if slug == "github-actions" else slug,
            "description": "Automate your workflow from idea to production",
            "external_url": "https://help.github.com/en/actions",
            "html_url": f"{self.web}/apps/{slug}",
            "created_at": "2018-07-30T09:30:17Z",
            "updated_at": "2019-12-10T19:04:12Z",
            "permissions": {"actions": "write", "checks": "write", "metadata": "read"},
            "events": ["check_run", "check_suite", "push", "workflow_dispatch"],
        }

    def check_run(self, job: Job) -> dict[str, Any]:
        """A check run (``check-run`` schema): a job of a run, or another app's check."""
        r = self.repo_url(job.repo)
        html = self.job_html(job)
        suite = job.run.check_suite_id if job.run is not None else 1
        return {
            "id": job.id,
            "name": job.name,
            "node_id": node_id("CheckRun", job.id),
            "head_sha": job.head_sha,
            "external_id": "",
            "url": f"{r}/check-runs/{job.id}",
            "html_url": html,
            "details_url": job.details_url or html,
            "status": job.status,
            "conclusion": job.conclusion,
            "started_at": iso(job.started_at),
            "completed_at": iso(job.completed_at),
            "output": {
                "title": None,
                "summary": None,
                "text": None,
                "annotations_count": 0,
                "annotations_url": f"{r}/check-runs/{job.id}/annotations",
            },
            "check_suite": {"id": suite},
            "app": self.app(job.app),
            "pull_requests": [],
        }

    # -- commits --------------------------------------------------------------------------

    def diff_entry(self, repo: Repo, sha: str, change: FileChange) -> dict[str, Any]:
        r = self.repo_url(repo)
        entry: dict[str, Any] = {
            "sha": change.sha if change.sha is not None else fake_sha("blob", sha, change.filename),
            "filename": change.filename,
            "status": change.status,
            "additions": change.additions,
            "deletions": change.deletions,
            "changes": change.additions + change.deletions,
            "blob_url": f"{self.web}/{repo.full_name}/blob/{sha}/{change.filename}",
            "raw_url": f"{self.web}/{repo.full_name}/raw/{sha}/{change.filename}",
            "contents_url": f"{r}/contents/{change.filename}?ref={sha}",
        }
        if change.patch is not None:
            entry["patch"] = change.patch
        if change.previous_filename is not None:
            entry["previous_filename"] = change.previous_filename
        return entry

    def commit(
        self,
        repo: Repo,
        commit: Commit,
        *,
        user_for: Any,
        files: list[FileChange] | None = None,
        with_stats: bool = False,
    ) -> dict[str, Any]:
        """A ``commit`` object; ``files``/``stats`` only where GitHub sends them.
        ``user_for(name, email)`` maps a git identity to a simple-user or ``{}``."""
        r = self.repo_url(repo)
        data: dict[str, Any] = {
            "sha": commit.sha,
            "node_id": node_id("Commit", commit.sha),
            "commit": {
                "author": {
                    "name": commit.author_name,
                    "email": commit.author_email,
                    "date": iso(commit.author_date),
                },
                "committer": {
                    "name": commit.committer_name,
                    "email": commit.committer_email,
                    "date": iso(commit.committer_date),
                },
                "message": commit.message,
                "tree": {"sha": commit.tree, "url": f"{r}/git/trees/{commit.tree}"},
                "url": f"{r}/git/commits/{commit.sha}",
                "comment_count": 0,
                "verification": {
                    "verified": False,
                    "reason": "unsigned",
                    "signature": None,
                    "payload": None,
                    "verified_at": None,
                },
            },
            "url": f"{r}/commits/{commit.sha}",
            "html_url": f"{self.web}/{repo.full_name}/commit/{commit.sha}",
            "comments_url": f"{r}/commits/{commit.sha}/comments",
            "author": user_for(commit.author_name, commit.author_email),
            "committer": user_for(commit.committer_name, commit.committer_email),
            "parents": [
                {
                    "sha": p,
                    "url": f"{r}/commits/{p}",
                    "html_url": f"{self.web}/{repo.full_name}/commit/{p}",
                }
                for p in commit.parents
            ],
        }
        if with_stats:
            changes = files or []
            additions = sum(f.additions for f in changes)
            deletions = sum(f.deletions for f in changes)
            data["stats"] = {
                "total": additions + deletions,
                "additions": additions,
                "deletions": deletions,
            }
        if files is not None:
            data["files"] = [self.diff_entry(repo, commit.sha, f) for f in files]
        return data

    # -- issues ---------------------------------------------------------------------------

    def label(self, repo: Repo, label: Label) -> dict[str, Any]:
        return {
            "id": label.id,
            "node_id": node_id("Label", label.id),
            "url": f"{self.repo_url(repo)}/labels/{label.name}",
            "name": label.name,
            "color": label.color,
            "default": label.default,
            "description": label.description,
        }

    def issue(self, issue: Issue, *, search: bool = False) -> dict[str, Any]:
        repo = issue.repo
        r = self.repo_url(repo)
        u = f"{r}/issues/{issue.number}"
        kind = "pull" if issue.is_pull_request else "issues"
        data: dict[str, Any] = {
            "id": issue.id,
            "node_id": node_id("Issue", issue.id),
            "url": u,
            "repository_url": r,
            "labels_url": f"{u}/labels{{/name}}",
            "comments_url": f"{u}/comments",
            "events_url": f"{u}/events",
            "html_url": f"{self.web}/{repo.full_name}/{kind}/{issue.number}",
            "number": issue.number,
            "state": issue.state,
            "state_reason": issue.state_reason,
            "title": issue.title,
            "body": issue.body,
            "user": self.user(issue.user),
            "labels": [self.label(repo, label) for label in issue.labels],
            "assignee": None,
            "assignees": [],
            "milestone": None,
            "locked": issue.locked,
            "active_lock_reason": None,
            "comments": len(issue.comments),
            "closed_at": iso(issue.closed_at),
            "created_at": iso(issue.created_at),
            "updated_at": iso(issue.updated_at),
            "closed_by": self.user(issue.user) if issue.state == "closed" else None,
            "author_association": "NONE",
            "timeline_url": f"{u}/timeline",
            "performed_via_github_app": None,
            "reactions": self.reactions(f"{u}/reactions"),
        }
        if issue.is_pull_request:
            pr = f"{r}/pulls/{issue.number}"
            data["draft"] = False
            data["pull_request"] = {
                "url": pr,
                "html_url": f"{self.web}/{repo.full_name}/pull/{issue.number}",
                "diff_url": f"{self.web}/{repo.full_name}/pull/{issue.number}.diff",
                "patch_url": f"{self.web}/{repo.full_name}/pull/{issue.number}.patch",
                "merged_at": None,
            }
        if search:
            data["score"] = 1.0
            del data["closed_by"]
        return data

    def reactions(self, url: str) -> dict[str, Any]:
        return {
            "url": url,
            "total_count": 0,
            "+1": 0,
            "-1": 0,
            "laugh": 0,
            "hooray": 0,
            "confused": 0,
            "heart": 0,
            "rocket": 0,
            "eyes": 0,
        }

    def comment(self, comment: Comment) -> dict[str, Any]:
        issue = comment.issue
        repo = issue.repo
        r = self.repo_url(repo)
        kind = "pull" if issue.is_pull_request else "issues"
        return {
            "id": comment.id,
            "node_id": node_id("IssueComment", comment.id),
            "url": f"{r}/issues/comments/{comment.id}",
            "html_url": (
                f"{self.web}/{repo.full_name}/{kind}/{issue.number}#issuecomment-{comment.id}"
            ),
            "body": comment.body,
            "user": self.user(comment.user),
            "created_at": iso(comment.created_at),
            "updated_at": iso(comment.updated_at),
            "issue_url": f"{r}/issues/{issue.number}",
            "author_association": "NONE",
            "performed_via_github_app": None,
            "reactions": self.reactions(f"{r}/issues/comments/{comment.id}/reactions"),
        }

"""Builds on demand in memory: :class:`wheel_size.ports.trigger.BuildTrigger` over the fake's
farms (``fakegithub/dispatch.py``), as ``github/dispatch.py`` drives them over HTTP.

Each call answers from the same handlers the server routes to (dispatch, tag create and
delete, the run listing that hides a new run for ``list_after`` listings, the run read that
moves a build along, cancel), called directly: no HTTP, no PyGithub. A refusal is the
:class:`~wheel_size.ports.GitHubFailure` of the handler's status, as the adapter raises it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from wheel_size.ports import GitHubFailure
from wheel_size.ports.trigger import RunView, Started, run_query, started_run

from . import dispatch as farm
from .memory_failure import memory_failure
from .server import Context, FakeGitHub, HTTPError

__all__ = ["MemoryTrigger"]

_SLACK = timedelta(minutes=2)  # runs created this long before we asked are still ours


def _since() -> str:
    moment = datetime.now(timezone.utc).replace(microsecond=0) - _SLACK
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class MemoryTrigger:
    """A ``workflow_dispatch`` trigger (``input_name``, ``ref``) or, with ``pattern``, a tag
    trigger of ``workflow`` in ``repository``; ``artifacts(run_id)`` lists a run's
    artifacts as the port does."""

    def __init__(
        self,
        fake: FakeGitHub,
        repository: str,
        workflow: str,
        artifacts: Callable[[str], list[Mapping[str, Any]]],
        *,
        input_name: str | None = None,
        ref: str | None = None,
        pattern: str | None = None,
    ) -> None:
        self.fake = fake
        self.repository = repository
        self.workflow = workflow
        self.owner, _, self.name = repository.partition("/")
        self._artifacts = artifacts
        self.input_name = input_name
        self.ref = ref
        self.pattern = pattern
        self.run_details = True  # until the farm refuses return_run_details

    def _call(
        self,
        handler: Callable[[FakeGitHub, Context], Any],
        doing: str,
        *,
        body: Any = None,
        query: Mapping[str, str] | None = None,
        **params: str,
    ) -> Any:
        ctx = Context("", "", dict(query or {}), body, {},
                      {"owner": self.owner, "repo": self.name, **params}, "")  # fmt: skip
        try:
            with self.fake.lock:
                answer = handler(self.fake, ctx)
        except HTTPError as exc:
            raise memory_failure(doing, exc.status, exc.message) from None
        return json.loads(answer.body) if answer.body else None

    @property
    def how(self) -> str:
        if self.pattern is not None:
            return f"a tag {self.pattern} running {self.workflow}"
        if self.run_details:
            return f"workflow_dispatch of {self.workflow}"
        run_name = f"run-name: Build ${{{{ inputs.{self.input_name} }}}}"
        return (
            f"workflow_dispatch of {self.workflow} whose title names the commit (the server "
            f"returns no run id: the workflow needs `{run_name}`)"
        )

    def _tag(self, started_sha: str) -> str:
        return str(self.pattern).replace("{sha}", started_sha)

    def start(self, sha: str) -> Started:
        since = _since()
        if self.pattern is not None:
            tag = self._tag(sha)
            doing = f"creating tag {tag} at {sha[:12]} in {self.repository}"
            new_ref = {"ref": f"refs/tags/{tag}", "sha": sha}
            try:
                self._call(farm._create_ref, doing, body=new_ref)
            except GitHubFailure as exc:
                if exc.status != 422 or "already exists" not in exc.message:
                    raise
                self.clean(Started(sha, since, tag=tag))
                self._call(farm._create_ref, doing, body=new_ref)
            return Started(sha, since, tag=tag)
        if self.ref is None:
            repo = self.fake.repos.get(self.repository.lower())
            if repo is None:
                raise memory_failure(f"reading repository {self.repository}", 404, "Not Found")
            self.ref = repo.default_branch
        ref = self.ref
        doing = f"dispatching {self.workflow} on {ref} of {self.repository} for {sha[:12]}"
        body: dict[str, Any] = {"ref": ref, "inputs": {str(self.input_name): sha}}
        if self.run_details:
            try:
                data = self._call(farm._dispatch, doing, body={**body, "return_run_details": True},
                                  wf=self.workflow)  # fmt: skip
            except GitHubFailure as exc:
                if exc.status != 422 or "return_run_details" not in exc.message:
                    raise
                self.run_details = False  # an older server: find runs by their title
            else:
                if isinstance(data, dict) and isinstance(data.get("workflow_run_id"), int):
                    return Started(sha, since, data["workflow_run_id"], data.get("html_url"))
                return Started(sha, since)
        self._call(farm._dispatch, doing, body=body, wf=self.workflow)
        return Started(sha, since)

    def _listed(self, query: dict[str, str]) -> list[Mapping[str, Any]]:
        doing = f"listing runs of {self.workflow} in {self.repository}"
        data = self._call(farm._list_runs, doing, query={**query, "per_page": "100"},
                          wf=self.workflow)  # fmt: skip
        runs = data.get("workflow_runs") if isinstance(data, dict) else None
        return [r for r in runs or [] if isinstance(r, Mapping) and isinstance(r.get("id"), int)]

    def view(self, run_id: int) -> RunView:
        run = self._call(farm._get_run, f"reading run {run_id} of {self.repository}",
                         run=str(run_id))  # fmt: skip
        status = str(run.get("status") or "")
        artifacts: tuple[tuple[str, int], ...] = ()
        if status == "completed":
            artifacts = tuple(
                (str(a.get("name")), int(a.get("size_in_bytes") or 0))
                for a in self._artifacts(str(run.get("artifacts_url")))
                if not a.get("expired")
            )
        conclusion = run.get("conclusion")
        return RunView(run_id, str(run.get("html_url") or ""), status,
                       conclusion if isinstance(conclusion, str) else None, artifacts)  # fmt: skip

    def look(self, started: Started, taken: frozenset[int]) -> RunView | None:
        if started.run_id is not None:
            return self.view(started.run_id)
        tagged = self.pattern is not None
        listed = self._listed(run_query(started, tagged=tagged))
        run_id = started_run(listed, started, taken, tagged=tagged)
        return self.view(run_id) if run_id is not None else None

    def cancel(self, run_id: int) -> None:
        try:
            self._call(farm._cancel, f"cancelling run {run_id} of {self.repository}",
                       run=str(run_id))  # fmt: skip
        except GitHubFailure as exc:
            if exc.status != 409:  # 409: it completed meanwhile
                raise

    def clean(self, started: Started) -> None:
        if self.pattern is None:
            return
        tag = started.tag or self._tag(started.sha)
        try:
            self._call(farm._delete_ref, f"deleting tag {tag} in {self.repository}", name=tag)
        except GitHubFailure as exc:
            if exc.status not in (404, 422):  # already gone
                raise
        return

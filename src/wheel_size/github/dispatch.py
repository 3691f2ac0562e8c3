"""Builds of single commits on GitHub Actions (:class:`wheel_size.ports.trigger.BuildTrigger`).

Two triggers (docs/bisect.md; facts in the GitHub spec §12):

* ``workflow_dispatch`` of the build workflow on a branch, the commit in an input. The run's
  ``head_sha`` is the branch's tip, not the commit, so the run is found by the id the
  dispatch returns (``return_run_details``), else (an older server refuses that key) by
  its title: the workflow's ``run-name:`` must carry the input.
* A tag at the commit matching a pattern (``ciflow/binaries/{sha}``); the run is the build
  workflow's run at that commit created since. The tag is deleted once its build ended.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import quote

from github import Github, GithubException

from wheel_size.errors import WheelSizeError
from wheel_size.github.client import GITHUB_FAILURES
from wheel_size.github.failures import failure, port_failures
from wheel_size.ports import WorkflowRuns
from wheel_size.ports.trigger import RunView, Started, run_query, started_run

__all__ = ["DispatchTrigger", "TagTrigger"]

# Runs created up to this long before we asked are still ours (clocks differ).
_SLACK = timedelta(minutes=2)


def _since() -> str:
    moment = datetime.now(timezone.utc).replace(microsecond=0) - _SLACK
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class _Runs:
    """What both triggers share: the build workflow's runs, their artifacts, cancel."""

    def __init__(self, gh: Github, repository: str, workflow: str, runs: WorkflowRuns) -> None:
        self.gh = gh
        self.repository = repository
        self.workflow = workflow
        self.base = f"/repos/{repository}"
        self.port = runs  # the artifact listing, paged as the nightly reads it

    def _listed(self, params: dict[str, str]) -> list[Mapping[str, Any]]:
        url = f"{self.base}/actions/workflows/{quote(self.workflow, safe='')}/runs"
        with port_failures(f"listing runs of {self.workflow} in {self.repository}"):
            _, data = self.gh.requester.requestJsonAndCheck(
                "GET", url, parameters={**params, "per_page": "100"}
            )
        runs = data.get("workflow_runs") if isinstance(data, dict) else None
        return [r for r in runs or [] if isinstance(r, Mapping) and isinstance(r.get("id"), int)]

    def view(self, run_id: int) -> RunView:
        with port_failures(f"reading run {run_id} of {self.repository}"):
            _, run = self.gh.requester.requestJsonAndCheck(
                "GET", f"{self.base}/actions/runs/{run_id}"
            )
        status = str(run.get("status") or "")
        artifacts: tuple[tuple[str, int], ...] = ()
        if status == "completed":  # v4 uploads are listed before the run ends: not read
            listed = self.port.run_artifacts_json(
                str(run.get("artifacts_url") or f"{self.base}/actions/runs/{run_id}/artifacts")
            )
            artifacts = tuple(
                (str(a.get("name")), int(a.get("size_in_bytes") or 0))
                for a in listed
                if not a.get("expired")
            )
        return RunView(
            run_id=run_id,
            html_url=str(run.get("html_url") or ""),
            status=status,
            conclusion=run.get("conclusion") if isinstance(run.get("conclusion"), str) else None,
            artifacts=artifacts,
        )

    def cancel(self, run_id: int) -> None:
        try:
            with port_failures(f"cancelling run {run_id} of {self.repository}"):
                self.gh.requester.requestJsonAndCheck(
                    "POST", f"{self.base}/actions/runs/{run_id}/cancel"
                )
        except WheelSizeError as exc:
            if getattr(exc, "status", 0) != 409:  # 409: it completed meanwhile
                raise


class DispatchTrigger(_Runs):
    """``workflow_dispatch`` of ``workflow`` on ``ref`` with the commit in input ``name``."""

    def __init__(
        self,
        gh: Github,
        repository: str,
        workflow: str,
        runs: WorkflowRuns,
        *,
        input_name: str,
        ref: str | None,
    ) -> None:
        super().__init__(gh, repository, workflow, runs)
        self.input_name = input_name
        self.ref = ref
        self.run_details = True  # until the server refuses return_run_details

    @property
    def how(self) -> str:
        if self.run_details:
            return f"workflow_dispatch of {self.workflow}"
        run_name = f"run-name: Build ${{{{ inputs.{self.input_name} }}}}"
        return (
            f"workflow_dispatch of {self.workflow} whose title names the commit (the server "
            f"returns no run id: the workflow needs `{run_name}`)"
        )

    def _ref(self) -> str:
        if self.ref is None:
            with port_failures(f"reading repository {self.repository}"):
                self.ref = str(self.gh.get_repo(self.repository).default_branch)
        return self.ref

    def start(self, sha: str) -> Started:
        since = _since()
        ref = self._ref()
        url = f"{self.base}/actions/workflows/{quote(self.workflow, safe='')}/dispatches"
        body: dict[str, Any] = {"ref": ref, "inputs": {self.input_name: sha}}
        doing = f"dispatching {self.workflow} on {ref} of {self.repository} for {sha[:12]}"
        if self.run_details:
            try:
                _, data = self.gh.requester.requestJsonAndCheck(
                    "POST", url, input={**body, "return_run_details": True}
                )
            except GithubException as exc:
                if exc.status != 422 or "return_run_details" not in str(exc.data):
                    raise failure(exc, doing) from exc
                self.run_details = False  # an older server: find runs by their title
            except GITHUB_FAILURES as exc:
                raise failure(exc, doing) from exc
            else:
                if isinstance(data, dict) and isinstance(data.get("workflow_run_id"), int):
                    return Started(sha, since, data["workflow_run_id"], data.get("html_url"))
                return Started(sha, since)  # 204: found by title
        with port_failures(doing):
            self.gh.requester.requestJsonAndCheck("POST", url, input=body)
        return Started(sha, since)

    def look(self, started: Started, taken: frozenset[int]) -> RunView | None:
        if started.run_id is not None:
            return self.view(started.run_id)
        listed = self._listed(run_query(started, tagged=False))
        run_id = started_run(listed, started, taken, tagged=False)
        return self.view(run_id) if run_id is not None else None

    def clean(self, started: Started) -> None:
        return None


class TagTrigger(_Runs):
    """A tag named by ``pattern`` (``{sha}`` replaced) at the commit starts the build."""

    def __init__(
        self, gh: Github, repository: str, workflow: str, runs: WorkflowRuns, *, pattern: str
    ) -> None:
        super().__init__(gh, repository, workflow, runs)
        self.pattern = pattern

    @property
    def how(self) -> str:
        return f"a tag {self.pattern} running {self.workflow}"

    def start(self, sha: str) -> Started:
        since = _since()
        tag = self.pattern.replace("{sha}", sha)
        with port_failures(f"creating tag {tag} at {sha[:12]} in {self.repository}"):
            try:
                self.gh.requester.requestJsonAndCheck(
                    "POST", f"{self.base}/git/refs", input={"ref": f"refs/tags/{tag}", "sha": sha}
                )
            except GithubException as exc:
                # left by a run that was cut off, or our own create whose answer was lost:
                # pushed again, so that a run starts now (any run of it since is as good)
                if exc.status != 422 or "already exists" not in str(exc.data):
                    raise
                self.clean(Started(sha, since, tag=tag))
                self.gh.requester.requestJsonAndCheck(
                    "POST", f"{self.base}/git/refs", input={"ref": f"refs/tags/{tag}", "sha": sha}
                )
        return Started(sha, since, tag=tag)

    def look(self, started: Started, taken: frozenset[int]) -> RunView | None:
        if started.run_id is not None:
            return self.view(started.run_id)
        listed = self._listed(run_query(started, tagged=True))
        run_id = started_run(listed, started, taken, tagged=True)
        return self.view(run_id) if run_id is not None else None

    def clean(self, started: Started) -> None:
        # the name follows from the commit: a create whose answer was lost is cleaned too
        tag = started.tag or self.pattern.replace("{sha}", started.sha)
        try:
            with port_failures(f"deleting tag {tag} in {self.repository}"):
                self.gh.requester.requestJsonAndCheck(
                    "DELETE", f"{self.base}/git/refs/tags/{quote(tag)}"
                )
        except WheelSizeError as exc:
            if getattr(exc, "status", 0) not in (404, 422):  # already gone
                raise

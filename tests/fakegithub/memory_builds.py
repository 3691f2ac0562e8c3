"""The build-evidence port (:class:`wheel_size.ports.builds.BuildPort`) in memory.

What :class:`wheel_size.github.checks.GitHubBuilds` returns over the HTTP fake, read from the
fake's model directly: runs by head SHA and by ``created`` range, artifacts of a run and by
name, check runs of a commit, jobs of a run, job logs (the API's log, or a log mirror at
``/_mirror/log/{job_id}``) and a commit's parent. Listings are paged as the adapter pages them
(100 a page, ``max_pages`` of them, GitHub's 1,000-result cap on filtered run listings), so
``requests`` and ``complete`` agree too; a missing repository, run, commit or log is the
adapter's :class:`BuildDataUnavailable` with its reason. Permissions, rate limits and faults
stay with the HTTP fake (``tests/fakegithub/test_memory_port.py`` checks the two alike).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any

from wheel_size.github.checks import _named_artifact, _run_of, fetch_log
from wheel_size.ports.builds import (
    DEFAULT_MAX_LOG_BYTES,
    ArtifactListing,
    BuildArtifact,
    BuildDataUnavailable,
    BuildJob,
    BuildRun,
    RunListing,
    log_text,
)

from .model import Job, Repo, Run
from .server import FakeGitHub, _filter_runs

__all__ = ["MemoryBuilds"]

_PAGE = 100
_JOB_IN_URL = re.compile(r"/actions/runs/(\d+)/job")
_MIRROR = re.compile(r"/_mirror/log/(\d+)$")


def _paged(
    items: Sequence[Any], total: int, max_pages: int, stop: Callable[[list[Any]], bool]
) -> tuple[list[Any], int, bool]:
    """The adapter's page loop (``github/checks.py`` ``_pages``) over a listing held whole."""
    got: list[Any] = []
    for page in range(1, max(1, max_pages) + 1):
        listed = list(items[(page - 1) * _PAGE : page * _PAGE])
        got += listed
        if len(listed) < _PAGE or len(got) >= min(total, 1000):
            return got, page, not total > len(got)
        if stop(listed):
            return got, page, True
    return got, max(1, max_pages), False


def _sized(log: bytes, stream: bool, max_bytes: int) -> bytes:
    """The download's limit as ``fetch_log`` applies it: by Content-Length when the server
    sends one, else while streaming."""
    if len(log) > max_bytes:
        if stream:
            raise BuildDataUnavailable(f"log too large (over the limit of {max_bytes:,})")
        raise BuildDataUnavailable(f"log too large ({len(log):,} bytes; limit {max_bytes:,})")
    return log


class MemoryBuilds:
    """:class:`~wheel_size.ports.builds.BuildPort` for one repository of the fake's model."""

    def __init__(
        self,
        fake: FakeGitHub,
        repo: str,
        *,
        log_url_template: str | None = None,
        max_log_bytes: int = DEFAULT_MAX_LOG_BYTES,
    ) -> None:
        self._fake = fake
        self._name = repo
        self._template = log_url_template
        self._max = max_log_bytes

    def _repo(self, api: str) -> Repo:
        repo = self._fake.repos.get(self._name.lower())
        if repo is None:
            raise BuildDataUnavailable(f"{api} not found (404)")
        return repo

    def _run(self, run: BuildRun, api: str) -> Run:
        repo = self._repo(api)
        found = self._fake.runs.get(run.id)
        if found is None or found.workflow.repo is not repo:
            raise BuildDataUnavailable(f"{api} not found (404)")
        return found

    def _runs(self, runs: list[Run], query: dict[str, str]) -> tuple[list[Any], int]:
        with self._fake.lock:
            selected = _filter_runs(runs, query)
            return [self._fake.payloads.run(r) for r in selected[:1000]], len(selected)

    def runs_for_sha(self, sha: str) -> Sequence[BuildRun]:
        repo = self._repo("workflow-runs")
        every = [r for wf in repo.workflows for r in wf.runs]
        listed, _ = self._runs(every, {"head_sha": sha})
        runs = (_run_of(data) for data in listed[:_PAGE])
        return [dataclasses.replace(r, head_sha=r.head_sha or sha) for r in runs if r is not None]

    def artifacts_of_run(self, run: BuildRun) -> Sequence[BuildArtifact]:
        found = self._run(run, "artifacts")
        with self._fake.lock:
            listed = sorted(found.artifacts, key=lambda a: (a.created_at, a.id), reverse=True)
            return [
                BuildArtifact(a.name, int(a.size_in_bytes), bool(a.expired)) for a in listed[:_PAGE]
            ]

    def check_runs_for_sha(self, sha: str, max_pages: int) -> Sequence[BuildJob]:
        repo = self._repo("check-runs")
        with self._fake.lock:
            commit = self._fake._resolve(repo, sha)
            head = commit.sha if commit is not None else sha
            jobs = [j for j in self._fake.jobs.values() if j.repo is repo and j.head_sha == head]
            if commit is None and not any(j.head_sha == head for j in self._fake.jobs.values()):
                raise BuildDataUnavailable("check-runs: GitHub does not know the commit (422)")
            newest: dict[str, Job] = {}  # filter=latest, GitHub's default
            for job in jobs:
                if job.name not in newest or job.id > newest[job.name].id:
                    newest[job.name] = job
            latest = sorted(newest.values(), key=lambda j: j.id, reverse=True)
            payloads = [self._fake.payloads.check_run(j) for j in latest]
        found = []
        for check in payloads[: _PAGE * max(1, max_pages)]:
            html = check.get("html_url") or check.get("details_url") or ""
            run = _JOB_IN_URL.search(html)
            found.append(
                BuildJob(
                    id=check["id"],
                    name=check.get("name") or "",
                    status=check.get("status"),
                    conclusion=check.get("conclusion"),
                    html_url=html,
                    run_id=int(run[1]) if run else None,
                )
            )
        return found

    def jobs_of_run(self, run: BuildRun) -> Sequence[BuildJob]:
        found = self._run(run, "jobs")
        with self._fake.lock:
            payloads = [self._fake.payloads.job(j) for j in found.jobs[:_PAGE]]
        return [
            BuildJob(
                id=job["id"],
                name=job.get("name") or "",
                status=job.get("status"),
                conclusion=job.get("conclusion"),
                html_url=job.get("html_url") or "",
                run_id=run.id,
                workflow=job.get("workflow_name") or run.name,
            )
            for job in payloads
        ]

    def job_log(self, job: BuildJob) -> str:
        if self._template:
            url = job.log_url(self._template, self._name)
            mirror = _MIRROR.search(url.split("?", 1)[0])
            if mirror is None:  # somewhere else: fetched as the adapter fetches it
                return log_text(fetch_log(url, self._max))
            stored = self._fake.jobs.get(int(mirror[1]))
            if stored is None or stored.log is None or not stored.mirrored:
                raise BuildDataUnavailable("log gone (404)")
            return log_text(_sized(stored.log, stored.stream, self._max))
        repo = self._fake.repos.get(self._name.lower())
        stored = self._fake.jobs.get(job.id)
        if repo is None or stored is None or stored.repo is not repo or stored.run is None:
            raise BuildDataUnavailable("log not found (404)")
        if stored.log_state == "gone":
            raise BuildDataUnavailable("log gone (410)")
        if stored.log is None or stored.log_state == "missing":
            raise BuildDataUnavailable("log not found (404)")
        return log_text(_sized(stored.log, stored.stream, self._max))

    def runs_created(
        self, workflow: str | None, created: str, branch: str | None, max_pages: int
    ) -> RunListing:
        repo = self._repo("workflow-runs")
        if workflow:
            wfs = [wf for wf in repo.workflows if workflow in (str(wf.id), wf.file_name)]
            if not wfs:
                raise BuildDataUnavailable("workflow-runs not found (404)")
            runs = wfs[0].runs
        else:
            runs = [r for wf in repo.workflows for r in wf.runs]
        listed, total = self._runs(
            runs, {"created": created, **({"branch": branch} if branch else {})}
        )
        items, pages, complete = _paged(listed, total, max_pages, lambda _: False)
        return RunListing(tuple(r for r in map(_run_of, items) if r is not None), pages, complete)

    def artifacts_named(self, name: str, since: str, max_pages: int) -> ArtifactListing:
        repo = self._repo("artifacts")
        with self._fake.lock:
            selected = [
                a for wf in repo.workflows for r in wf.runs for a in r.artifacts if a.name == name
            ]
            selected.sort(key=lambda a: (a.created_at, a.id), reverse=True)
            listed = [self._fake.payloads.artifact(a) for a in selected]

        def older(page: list[Any]) -> bool:  # newest first: past ``since``, stop
            last = page[-1] if page else None
            return isinstance(last, dict) and str(last.get("created_at") or "9") < since

        items, pages, complete = _paged(listed, len(listed), max_pages, older)
        found = tuple(a for a in map(_named_artifact, items) if a is not None)
        return ArtifactListing(found, pages, complete)

    def parent_of(self, sha: str) -> str | None:
        repo = self._repo("commits")
        with self._fake.lock:
            commit = self._fake._resolve(repo, sha)
        if commit is None:
            raise BuildDataUnavailable("commits: GitHub does not know the commit (422)")
        parents = list(commit.parents)
        return str(parents[0]) if parents else None

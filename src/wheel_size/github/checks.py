"""Builds at one commit, through PyGithub: runs by head SHA, their artifacts and jobs, check
runs, and job logs (the :class:`~wheel_size.regressions.builds.evidence.BuildPort`).

Every GitHub failure becomes :class:`BuildDataUnavailable` with a short reason ("check-runs
API forbidden (403); the token needs `checks: read`"): build evidence is best effort and
must never fail the nightly. Job logs: the API answers 302 with a short-lived signed URL
(410/404 once the logs are gone); that URL, like a mirror named by ``log_url_template``, is
fetched with plain ``requests`` and *no* Authorization header, streamed, and abandoned as
soon as it passes ``max_log_bytes``. Lists are read one page at a time and capped, so the
request count stays within the documented bound.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar
from urllib.parse import quote

import requests
from github import Github, GithubException
from github.GithubException import RateLimitExceededExceedsMaxWait
from github.WorkflowRun import WorkflowRun

from wheel_size.github.client import GITHUB_FAILURES, github_error, scrub
from wheel_size.ports.builds import (
    DEFAULT_MAX_LOG_BYTES,
    ArtifactListing,
    BuildArtifact,
    BuildDataUnavailable,
    BuildJob,
    BuildRun,
    NamedArtifact,
    RunListing,
    log_text,
)

__all__ = ["GitHubBuilds", "LogFetcher", "fetch_log"]

T = TypeVar("T")
LogFetcher = Callable[[str, int], bytes]
_PAGE = 100
_CHUNK = 1 << 16
_JOB_IN_URL = re.compile(r"/actions/runs/(\d+)/job")


def _reason(exc: BaseException, api: str, doing: str) -> BuildDataUnavailable:
    """A short reason for the issue; a refusal (403) stops asking that API for this run."""
    status = exc.status if isinstance(exc, GithubException) else None
    rate_limited = isinstance(exc, RateLimitExceededExceedsMaxWait) or (
        status in (403, 429) and "rate limit" in str(exc).lower()
    )
    if rate_limited:
        return BuildDataUnavailable(f"{api} API rate limited", whole_repo=True)
    if status == 403:
        text = github_error(exc, doing).args[0]
        need = text.split("; the token needs ", 1)
        hint = f"; the token needs {need[1]}" if len(need) == 2 else ""
        return BuildDataUnavailable(f"{api} API forbidden (403){hint}", whole_repo=True)
    if status in (404, 410):
        word = "gone" if status == 410 else "not found"
        return BuildDataUnavailable(f"{api} {word} ({status})")
    if status == 422:
        return BuildDataUnavailable(f"{api}: GitHub does not know the commit (422)")
    return BuildDataUnavailable(scrub(github_error(exc, doing).args[0]))


def fetch_log(url: str, max_bytes: int, *, timeout: float = 60.0) -> bytes:
    """GET ``url`` without credentials, at most ``max_bytes`` (stops reading past it)."""
    try:
        response = requests.get(url, stream=True, timeout=timeout, allow_redirects=True)
    except requests.RequestException as exc:
        raise BuildDataUnavailable(f"log unreadable ({type(exc).__name__})") from None
    with response:
        if response.status_code in (403, 404, 410):
            raise BuildDataUnavailable(f"log gone ({response.status_code})")
        if response.status_code != 200:
            raise BuildDataUnavailable(f"log unreadable (answer {response.status_code})")
        length = response.headers.get("Content-Length", "")
        if length.isdigit() and int(length) > max_bytes:
            raise BuildDataUnavailable(
                f"log too large ({int(length):,} bytes; limit {max_bytes:,})"
            )
        data = bytearray()
        try:
            for chunk in response.iter_content(_CHUNK):
                data += chunk
                if len(data) > max_bytes:
                    raise BuildDataUnavailable(f"log too large (over the limit of {max_bytes:,})")
        except requests.RequestException as exc:
            raise BuildDataUnavailable(f"log unreadable ({type(exc).__name__})") from None
    return bytes(data)


class GitHubBuilds:
    """:class:`BuildPort` for one repository. ``log_url_template`` (``{job_id}``,
    ``{run_id}``, ``{repo}``) reads logs from a mirror instead of the API; ``fetch``
    replaces the HTTP download (tests serve it locally)."""

    def __init__(
        self,
        gh: Github,
        repo: str,
        *,
        log_url_template: str | None = None,
        max_log_bytes: int = DEFAULT_MAX_LOG_BYTES,
        fetch: LogFetcher | None = None,
    ) -> None:
        self._gh = gh
        self._name = repo
        self._repo = gh.withLazy(True).get_repo(repo)
        self._template = log_url_template
        self._max = max_log_bytes
        self._fetch: LogFetcher = fetch or fetch_log
        self._runs: dict[int, WorkflowRun] = {}

    def _read(self, api: str, doing: str, make: Callable[[], Iterable[T]], limit: int) -> list[T]:
        try:
            return list(itertools.islice(make(), limit))
        except BuildDataUnavailable:
            raise
        except GITHUB_FAILURES as exc:
            raise _reason(exc, api, doing) from None

    def runs_for_sha(self, sha: str) -> Sequence[BuildRun]:
        runs = self._read(
            "workflow-runs",
            f"listing the runs of {sha[:12]}",
            lambda: self._repo.get_workflow_runs(head_sha=sha),
            _PAGE,
        )
        found = []
        for run in runs:  # properties, not raw_data: that would re-fetch each lazy object
            self._runs[run.id] = run
            found.append(
                BuildRun(
                    id=run.id,
                    name=run.name or "",
                    path=(run.path or "").split("@", 1)[0],
                    head_sha=run.head_sha or sha,
                    status=run.status,
                    conclusion=run.conclusion,
                    html_url=run.html_url or "",
                    event=run.event or "",
                )
            )
        return found

    def _run(self, run: BuildRun) -> WorkflowRun:
        return self._runs.get(run.id) or self._repo.get_workflow_run(run.id)

    def artifacts_of_run(self, run: BuildRun) -> Sequence[BuildArtifact]:
        artifacts = self._read(
            "artifacts",
            f"listing the artifacts of run {run.id}",
            lambda: self._run(run).get_artifacts(),
            _PAGE,
        )
        return [BuildArtifact(a.name, int(a.size_in_bytes), bool(a.expired)) for a in artifacts]

    def check_runs_for_sha(self, sha: str, max_pages: int) -> Sequence[BuildJob]:
        checks = self._read(
            "check-runs",
            f"listing the check runs of {sha[:12]}",
            lambda: self._repo.get_commit(sha).get_check_runs(),
            _PAGE * max(1, max_pages),
        )
        jobs = []
        for check in checks:
            html = check.html_url or check.details_url or ""
            run = _JOB_IN_URL.search(html)
            jobs.append(
                BuildJob(
                    id=check.id,
                    name=check.name or "",
                    status=check.status,
                    conclusion=check.conclusion,
                    html_url=html,
                    run_id=int(run[1]) if run else None,
                )
            )
        return jobs

    def jobs_of_run(self, run: BuildRun) -> Sequence[BuildJob]:
        jobs = self._read(
            "jobs", f"listing the jobs of run {run.id}", lambda: self._run(run).jobs(), _PAGE
        )
        return [
            BuildJob(
                id=job.id,
                name=job.name or "",
                status=job.status,
                conclusion=job.conclusion,
                html_url=job.html_url or "",
                run_id=run.id,
                workflow=job.workflow_name or run.name,
            )
            for job in jobs
        ]

    def job_log(self, job: BuildJob) -> str:
        if self._template:
            url = job.log_url(self._template, self._name)
            return log_text(self._fetch(url, self._max))
        api = f"{self._repo.url}/actions/jobs/{job.id}/logs"
        try:
            status, headers, _ = self._gh.requester.requestJson("GET", api)
        except GITHUB_FAILURES as exc:
            raise _reason(exc, "job logs", f"reading the log of job {job.id}") from None
        location = headers.get("location")
        if status in (403, 404, 410) or status not in (301, 302, 303, 307) or not location:
            word = {403: "forbidden", 404: "not found", 410: "gone"}.get(status, "unreadable")
            raise BuildDataUnavailable(f"log {word} ({status})", whole_repo=status == 403)
        return log_text(self._fetch(str(location), self._max))

    def runs_created(
        self, workflow: str | None, created: str, branch: str | None, max_pages: int
    ) -> RunListing:
        return _runs_created(self, workflow, created, branch, max_pages)

    def artifacts_named(self, name: str, since: str, max_pages: int) -> ArtifactListing:
        return _artifacts_named(self, name, since, max_pages)

    def parent_of(self, sha: str) -> str | None:
        try:
            parents = self._repo.get_commit(sha).parents
            return parents[0].sha if parents else None
        except GITHUB_FAILURES as exc:
            raise _reason(exc, "commits", f"reading commit {sha[:12]}") from None


def _run_of(data: Any) -> BuildRun | None:
    """A listed run (raw JSON) as a :class:`BuildRun`; None when it is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("id"), int):
        return None
    return BuildRun(
        id=data["id"],
        name=str(data.get("name") or ""),
        path=str(data.get("path") or "").split("@", 1)[0],
        head_sha=str(data.get("head_sha") or ""),
        status=data.get("status"),
        conclusion=data.get("conclusion"),
        html_url=str(data.get("html_url") or ""),
        event=str(data.get("event") or ""),
    )


def _named_artifact(data: Any) -> NamedArtifact | None:
    run = data.get("workflow_run") if isinstance(data, dict) else None
    if not isinstance(run, dict) or not isinstance(run.get("id"), int):
        return None
    size = data.get("size_in_bytes")
    return NamedArtifact(
        run_id=run["id"],
        head_sha=str(run.get("head_sha") or ""),
        artifact=BuildArtifact(
            str(data.get("name") or ""),
            int(size) if isinstance(size, int) else 0,
            bool(data.get("expired")),
        ),
        created_at=str(data.get("created_at") or ""),
    )


def _pages(
    builds: GitHubBuilds, api: str, doing: str, url: str, params: dict[str, Any], key: str,
    max_pages: int, stop: Callable[[list[Any]], bool] = lambda _: False,
) -> tuple[list[Any], int, bool]:  # fmt: skip
    """Read up to ``max_pages`` pages of a listing as JSON (a listed PyGithub object would
    fetch itself again if its raw data were asked for): (items, pages read, complete)."""
    items: list[Any] = []
    for page in range(1, max(1, max_pages) + 1):
        query = {**params, "per_page": _PAGE, **({"page": page} if page > 1 else {})}
        try:
            _, data = builds._gh.requester.requestJsonAndCheck("GET", url, parameters=query)
        except GITHUB_FAILURES as exc:
            raise _reason(exc, api, doing) from None
        listed = data.get(key) if isinstance(data, dict) else None
        total = data.get("total_count") if isinstance(data, dict) else None
        if not isinstance(listed, list):
            raise BuildDataUnavailable(f"{api}: the listing has no {key} list")
        items += listed
        reachable = min(total, 1000) if isinstance(total, int) else None
        if len(listed) < _PAGE or (reachable is not None and len(items) >= reachable):
            return items, page, not (isinstance(total, int) and total > len(items))
        if stop(listed):
            return items, page, True
    return items, max(1, max_pages), False


def _runs_created(
    self: GitHubBuilds, workflow: str | None, created: str, branch: str | None, max_pages: int
) -> RunListing:
    base = f"/repos/{self._name}/actions"
    url = f"{base}/workflows/{quote(workflow, safe='')}/runs" if workflow else f"{base}/runs"
    params: dict[str, Any] = {"created": created, **({"branch": branch} if branch else {})}
    doing = f"listing the runs of {workflow or 'every workflow'} created {created}"
    items, pages, complete = _pages(
        self, "workflow-runs", doing, url, params, "workflow_runs", max_pages
    )
    runs = tuple(r for r in map(_run_of, items) if r is not None)
    return RunListing(runs, pages, complete)


def _artifacts_named(self: GitHubBuilds, name: str, since: str, max_pages: int) -> ArtifactListing:
    url = f"/repos/{self._name}/actions/artifacts"

    def older(listed: list[Any]) -> bool:  # newest first: past ``since``, stop
        last = listed[-1] if listed else None
        return isinstance(last, dict) and str(last.get("created_at") or "9") < since

    items, pages, complete = _pages(
        self, "artifacts", f"listing the artifacts named {name}", url, {"name": name},
        "artifacts", max_pages, older,
    )  # fmt: skip
    found = tuple(a for a in map(_named_artifact, items) if a is not None)
    return ArtifactListing(found, pages, complete)

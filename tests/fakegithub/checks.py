"""Check runs, jobs and job logs of the fake: what per-commit build evidence reads.

``GET …/commits/{ref}/check-runs`` (``check_name``, ``status``, ``filter=latest|all``;
needs ``checks: read``), ``GET …/actions/runs/{id}/jobs`` and ``GET …/actions/jobs/{id}``
(``actions: read``), ``GET …/actions/jobs/{id}/logs`` → 302 to a signed, unauthenticated
``/_joblogs/…`` URL (410 once the log is gone, 404 when there is none), and a log mirror
``/_mirror/log/{job_id}`` standing in for a project's own log store (S3-like: 404
``NoSuchKey`` when it lacks the log).
"""

from __future__ import annotations

import secrets

from .model import Job
from .server import (
    _RAW_ROUTES,
    _REPO,
    ACTIONS_READ,
    DOCS,
    Answer,
    Context,
    FakeGitHub,
    HTTPError,
    _run,
    route,
)

CHECKS_READ = ("checks", "read")


def _check_runs_of(fake: FakeGitHub, ctx: Context) -> list[Job]:
    repo = fake._repo(ctx)
    ref = ctx.params["ref"]
    commit = fake._resolve(repo, ref)
    sha = commit.sha if commit is not None else ref
    if commit is None and not any(j.head_sha == sha for j in fake.jobs.values()):
        raise HTTPError(422, f"No commit found for SHA: {ref}", doc=f"{DOCS}/checks/runs")
    found = [j for j in fake.jobs.values() if j.repo is repo and j.head_sha == sha]
    if "check_name" in ctx.query:
        found = [j for j in found if j.name == ctx.query["check_name"]]
    if "status" in ctx.query:
        found = [j for j in found if j.status == ctx.query["status"]]
    if ctx.query.get("filter", "latest") == "latest":
        newest: dict[str, Job] = {}
        for job in found:
            if job.name not in newest or job.id > newest[job.name].id:
                newest[job.name] = job
        found = list(newest.values())
    found.sort(key=lambda j: j.id, reverse=True)
    return found


@route("GET", _REPO + r"/commits/(?P<ref>[^/]+)/check-runs", CHECKS_READ, first=True)
def _list_check_runs(fake: FakeGitHub, ctx: Context) -> Answer:
    found = _check_runs_of(fake, ctx)
    page, link = fake._page(ctx, found)
    return fake._ok(
        {"total_count": len(found), "check_runs": [fake.payloads.check_run(j) for j in page]},
        headers=link,
    )


@route("GET", _REPO + r"/actions/runs/(?P<run>\d+)/jobs", ACTIONS_READ)
def _list_jobs(fake: FakeGitHub, ctx: Context) -> Answer:
    run = _run(fake, fake._repo(ctx), ctx.params["run"])
    page, link = fake._page(ctx, run.jobs)
    return fake._ok(
        {"total_count": len(run.jobs), "jobs": [fake.payloads.job(j) for j in page]},
        headers=link,
    )


def _job(fake: FakeGitHub, ctx: Context) -> Job:
    repo = fake._repo(ctx)
    ident = ctx.params["job"]
    job = fake.jobs.get(int(ident)) if ident.isdigit() else None
    if job is None or job.repo is not repo or job.run is None:
        raise HTTPError(404, "Not Found", doc=f"{DOCS}/actions/workflow-jobs")
    return job


@route("GET", _REPO + r"/actions/jobs/(?P<job>\d+)", ACTIONS_READ)
def _get_job(fake: FakeGitHub, ctx: Context) -> Answer:
    return fake._ok(fake.payloads.job(_job(fake, ctx)))


@route("GET", _REPO + r"/actions/jobs/(?P<job>\d+)/logs", ACTIONS_READ)
def _job_logs(fake: FakeGitHub, ctx: Context) -> Answer:
    job = _job(fake, ctx)
    doc = f"{DOCS}/actions/workflow-jobs#download-job-logs-for-a-workflow-run"
    if job.log_state == "gone":
        raise HTTPError(410, "Gone", doc=doc)
    if job.log is None or job.log_state == "missing":
        raise HTTPError(404, "Not Found", doc=doc)
    location = (
        f"{fake.url}/_joblogs/{job.id}/signedlogcontent?urlExpires=2099-01-01"
        f"&urlSigningMethod=HMACV1&urlSignature={secrets.token_hex(8)}"
    )
    return Answer(302, b"", {"Location": location, "Content-Type": "text/html;charset=utf-8"})


def _serve_log(job: Job | None, *, mirror: bool) -> Answer:
    if job is None or job.log is None or (mirror and not job.mirrored):
        body = b"<Error><Code>NoSuchKey</Code><Message>No such key.</Message></Error>"
        return Answer(404, body, {"Content-Type": "application/xml"}, resource="none")
    headers = {"Content-Type": "text/plain; charset=utf-8"}
    if job.stream:
        headers["X-Fake-No-Length"] = "1"
    return Answer(200, job.log, headers, resource="none")


def _signed_log(fake: FakeGitHub, path: str) -> Answer:
    parts = path.split("/")
    job = fake.jobs.get(int(parts[2])) if len(parts) > 2 and parts[2].isdigit() else None
    return _serve_log(job, mirror=False)


def _mirror_log(fake: FakeGitHub, path: str) -> Answer:
    ident = path.rsplit("/", 1)[-1]
    return _serve_log(fake.jobs.get(int(ident)) if ident.isdigit() else None, mirror=True)


_RAW_ROUTES["/_joblogs/"] = _signed_log
_RAW_ROUTES["/_mirror/log/"] = _mirror_log

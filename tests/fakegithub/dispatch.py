"""Builds on demand in the fake, as github.com does them (docs/github-api.md §12).

``POST …/actions/workflows/{id}/dispatches``: ``ref`` must be a branch or a tag (a SHA: 422
``No ref found for``), inputs must be declared (422 ``Unexpected inputs provided``), 204
without a body or, with ``return_run_details``, 200 with the run (a "GHES" farm answers
422 ``"return_run_details" is not a permitted key.``). The run's ``head_sha`` is the ref's
tip, not the input; its ``display_title`` is the farm's ``run_name`` filled from the
inputs; it is listed only after ``list_after`` listings. ``POST/DELETE …/git/refs`` create
and delete tags; a tag matching ``tag_pattern`` starts a ``push`` run at its commit unless
the token is the workflow's ``GITHUB_TOKEN`` (the fake's default identity). A run moves
queued → in_progress → completed over ``steps`` reads of it; its artifact (name and size
from the scenario functions) is listed from the last in_progress read on, before it
completes, as upload-artifact v4 does. ``POST …/runs/{id}/cancel``: 202, 409 once completed.

    farm = add_farm(fake, wf, size=lambda sha: sizes[sha])
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .model import Repo, Run, Workflow
from .server import (
    _REPO,
    ACTIONS_READ,
    DOCS,
    Answer,
    Context,
    FakeGitHub,
    HTTPError,
    _run,
    _runs_answer,
    _workflow,
    route,
)

ACTIONS_WRITE = ("actions", "write")
CONTENTS_WRITE = ("contents", "write")
FAILED = "failure"
NEVER = "never"


@dataclass
class Farm:
    """How one workflow builds a commit. ``size(sha)``: the artifact's bytes, ``None`` for a
    failing build, ``NEVER`` for a run that never finishes; ``artifact(sha)``: its name.
    ``fail_first``: commits whose first build fails. ``tags_start_runs``: None follows
    the token (a PAT or an app's token starts runs, ``GITHUB_TOKEN`` none)."""

    workflow: Workflow
    size: Callable[[str], int | str | None]
    artifact: Callable[[str], str]
    inputs: tuple[str, ...] = ("sha",)
    required: tuple[str, ...] = ()
    run_name: str | None = "Build {sha}"
    return_run_details: bool = True  # False: 422 for the key, as older servers answer
    ignore_run_details: bool = False  # the key accepted, the answer still 204 without a body
    list_after: int = 1
    steps: int = 2
    tag_pattern: str | None = None
    tags_start_runs: bool | None = None
    fail_first: set[str] = field(default_factory=set)
    dispatched: list[dict[str, Any]] = field(default_factory=list)
    built: dict[int, str] = field(default_factory=dict)  # run id -> the commit it builds
    hidden: dict[int, int] = field(default_factory=dict)  # run id -> listings still unseen
    reads: dict[int, int] = field(default_factory=dict)  # run id -> reads so far


def _farms(fake: FakeGitHub) -> dict[int, Farm]:
    farms: dict[int, Farm] | None = getattr(fake, "farms", None)
    if farms is None:
        farms = {}
        fake.farms = farms  # type: ignore[attr-defined]
    return farms


def tags(fake: FakeGitHub, repo: Repo) -> dict[str, str]:
    """The tags created through the API: name -> sha."""
    store: dict[str, dict[str, str]] | None = getattr(fake, "tags", None)
    if store is None:
        store = {}
        fake.tags = store  # type: ignore[attr-defined]
    return store.setdefault(repo.full_name.lower(), {})


def add_farm(
    fake: FakeGitHub,
    workflow: Workflow,
    *,
    size: Callable[[str], int | str | None],
    artifact: str | Callable[[str], str] = "manywheel-py3_12-cuda12_8",
    **options: Any,
) -> Farm:
    """Let ``workflow`` build single commits on dispatch (and on tags, with tag_pattern)."""
    name = artifact
    farm = Farm(workflow, size, (lambda sha: name) if isinstance(name, str) else name, **options)
    _farms(fake)[workflow.id] = farm
    return farm


def _farm_of(fake: FakeGitHub, run: Run) -> Farm | None:
    return _farms(fake).get(run.workflow.id)


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def _start(
    fake: FakeGitHub, farm: Farm, sha: str, *, tip: str, branch: str, event: str, title: str
) -> Run:
    run = farm.workflow.add_run(
        created_at=_now(),
        head_sha=tip,
        head_branch=branch,
        message=title,
        status="queued",
        conclusion=None,
        event=event,
        display_title=title,
    )
    farm.built[run.id] = sha
    farm.hidden[run.id] = farm.list_after
    farm.reads[run.id] = 0
    return run


def _advance(fake: FakeGitHub, run: Run) -> None:
    """One read of a run moves it along: queued, in_progress for ``steps`` reads (its
    artifact uploaded at the last), completed."""
    farm = _farm_of(fake, run)
    if farm is None or run.id not in farm.built or run.status == "completed":
        return
    farm.reads[run.id] += 1
    seen = farm.reads[run.id]
    sha = farm.built[run.id]
    size = farm.size(sha)
    first = run.id == min(i for i, s in farm.built.items() if s == sha)
    failing = size is None or (sha in farm.fail_first and first)
    if seen == 1:
        run.status = "in_progress"
    elif size == NEVER:
        return
    elif seen == farm.steps and not failing:
        run.add_artifact(farm.artifact(sha), size_in_bytes=int(size))  # type: ignore[arg-type]
    elif seen > farm.steps:
        run.status = "completed"
        run.conclusion = FAILED if failing else "success"
        run.updated_at = _now()


def _ref_tip(fake: FakeGitHub, repo: Repo, ref: str) -> str | None:
    """The tip of a branch or tag named ``ref``; None for anything else (a SHA)."""
    name = ref.removeprefix("refs/heads/").removeprefix("refs/tags/")
    if name in tags(fake, repo):
        return tags(fake, repo)[name]
    if name in repo.refs:
        return repo.refs[name]
    git = fake._git.get(repo.full_name.lower())
    if git is not None and not re.fullmatch(r"[0-9a-f]{7,40}", name):
        return git.resolve(f"refs/heads/{name}") or git.resolve(f"refs/tags/{name}")
    return None


@route("POST", _REPO + r"/actions/workflows/(?P<wf>[^/]+)/dispatches", ACTIONS_WRITE)
def _dispatch(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    wf = _workflow(fake, repo, ctx.params["wf"])
    doc = f"{DOCS}/actions/workflows#create-a-workflow-dispatch-event"
    body = ctx.body if isinstance(ctx.body, dict) else {}
    farm = _farms(fake).get(wf.id)
    if farm is None:
        raise HTTPError(422, "Workflow does not have 'workflow_dispatch' trigger", doc=doc)
    allowed = {"ref", "inputs", "return_run_details"} - (
        set() if farm.return_run_details else {"return_run_details"}
    )
    for key in body:
        if key not in allowed:
            raise HTTPError(422, f'"{key}" is not a permitted key.', doc=doc)
    ref = body.get("ref")
    if not isinstance(ref, str) or not ref:
        raise HTTPError(422, 'Invalid request.\n\n"ref" wasn\'t supplied.', doc=doc)
    tip = _ref_tip(fake, repo, ref)
    if tip is None:
        raise HTTPError(422, f"No ref found for: {ref}", doc=doc)
    inputs = body.get("inputs") or {}
    unexpected = sorted(k for k in inputs if k not in farm.inputs)
    if unexpected:
        raise HTTPError(422, f"Unexpected inputs provided: {unexpected}", doc=doc)
    for name in farm.required:
        if name not in inputs:
            raise HTTPError(422, f"Required input '{name}' not provided", doc=doc)
    farm.dispatched.append(dict(body))
    title = (farm.run_name or wf.name).format(**{k: inputs.get(k, "") for k in farm.inputs})
    sha = str(inputs.get(farm.inputs[0], "")) if farm.inputs else tip
    run = _start(
        fake,
        farm,
        sha,
        tip=tip,
        branch=ref.rsplit("/", 1)[-1],
        event="workflow_dispatch",
        title=title,
    )
    if body.get("return_run_details") and not farm.ignore_run_details:
        payload = fake.payloads.run(run)
        return fake._ok(
            {"workflow_run_id": run.id, "run_url": payload["url"], "html_url": payload["html_url"]}
        )
    return Answer(204, b"", {})


@route("GET", _REPO + r"/actions/workflows/(?P<wf>[^/]+)/runs", ACTIONS_READ, first=True)
def _list_runs(fake: FakeGitHub, ctx: Context) -> Answer:
    """Runs of a workflow; a new run of a farm is listed only after ``list_after`` listings."""
    wf = _workflow(fake, fake._repo(ctx), ctx.params["wf"])
    farm = _farms(fake).get(wf.id)
    shown = []
    for run in wf.runs:
        left = farm.hidden.get(run.id, 0) if farm else 0
        if left > 0:
            farm.hidden[run.id] = left - 1  # type: ignore[union-attr]
            continue
        shown.append(run)
    return _runs_answer(fake, ctx, shown)


@route("GET", _REPO + r"/actions/runs/(?P<run>\d+)", ACTIONS_READ, first=True)
def _get_run(fake: FakeGitHub, ctx: Context) -> Answer:
    run = _run(fake, fake._repo(ctx), ctx.params["run"])
    _advance(fake, run)
    return fake._ok(fake.payloads.run(run))


@route("POST", _REPO + r"/actions/runs/(?P<run>\d+)/cancel", ACTIONS_WRITE)
def _cancel(fake: FakeGitHub, ctx: Context) -> Answer:
    run = _run(fake, fake._repo(ctx), ctx.params["run"])
    if run.status == "completed":
        raise HTTPError(
            409,
            "Cannot cancel a workflow run that is completed.",
            doc=f"{DOCS}/actions/workflow-runs#cancel-a-workflow-run",
        )
    run.status, run.conclusion, run.updated_at = "completed", "cancelled", _now()
    return fake._ok({}, status=202)


def _tags_start_runs(fake: FakeGitHub, farm: Farm) -> bool:
    if farm.tags_start_runs is not None:
        return farm.tags_start_runs
    return bool(fake.token_user or fake.token_app)  # GITHUB_TOKEN: no run


@route("POST", _REPO + r"/git/refs", CONTENTS_WRITE)
def _create_ref(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    doc = f"{DOCS}/git/refs#create-a-reference"
    body = ctx.body if isinstance(ctx.body, dict) else {}
    ref, sha = body.get("ref"), body.get("sha")
    if not isinstance(ref, str) or not isinstance(sha, str):
        raise HTTPError(422, "Invalid request.", doc=doc)
    if not ref.startswith("refs/") or ref.count("/") < 2:
        raise HTTPError(422, "Reference name is not valid", doc=doc)
    if not ref.startswith("refs/tags/"):
        raise HTTPError(422, "Only tags are supported by this fake", doc=doc)
    name = ref.removeprefix("refs/tags/")
    commit = fake._resolve(repo, sha)
    if commit is None or commit.sha != sha:
        raise HTTPError(422, "Object does not exist", doc=doc)
    if name in tags(fake, repo):
        raise HTTPError(422, "Reference already exists", doc=doc)
    tags(fake, repo)[name] = sha
    for farm in _farms(fake).values():
        pattern = farm.tag_pattern
        mine = farm.workflow.repo is repo and pattern and re.fullmatch(pattern, name)
        if mine and _tags_start_runs(fake, farm):
            _start(fake, farm, sha, tip=sha, branch=name, event="push", title=farm.workflow.name)
    return fake._ok(_ref_payload(fake, repo, name, sha), status=201)


def _ref_payload(fake: FakeGitHub, repo: Repo, name: str, sha: str) -> dict[str, Any]:
    base = f"{fake.url}/repos/{repo.full_name}"
    return {
        "ref": f"refs/tags/{name}",
        "node_id": "REF_" + sha[:16],
        "url": f"{base}/git/refs/tags/{name}",
        "object": {"type": "commit", "sha": sha, "url": f"{base}/git/commits/{sha}"},
    }


@route("GET", _REPO + r"/git/ref/tags/(?P<name>.+)", ("contents", "read"))
def _get_ref(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    name = ctx.params["name"]
    if name not in tags(fake, repo):
        raise HTTPError(404, "Not Found", doc=f"{DOCS}/git/refs#get-a-reference")
    return fake._ok(_ref_payload(fake, repo, name, tags(fake, repo)[name]))


@route("DELETE", _REPO + r"/git/refs/tags/(?P<name>.+)", CONTENTS_WRITE)
def _delete_ref(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    name = ctx.params["name"]
    if tags(fake, repo).pop(name, None) is None:
        raise HTTPError(422, "Reference does not exist", doc=f"{DOCS}/git/refs#delete-a-reference")
    return Answer(204, b"", {})

"""Turn listed runs and their artifacts into history records (one artifact listing per run)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from github import Github

from wheel_size.collect.runs import WorkflowSource, list_runs, raw
from wheel_size.history.model import ArtifactRecord, RunRecord, parse_base_sha

__all__ = ["PROGRESS_MIN_RUNS", "collect", "record_from_api", "utc_now"]

PROGRESS_MIN_RUNS = 50


def utc_now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _utc_date(stamp: str) -> dt.date:
    return (
        dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(dt.timezone.utc).date()
    )


def record_from_api(
    source: WorkflowSource,
    run: Mapping[str, Any],
    artifacts: Iterable[Mapping[str, Any]],
    collected_at: str,
) -> RunRecord:
    """A history record from a ``workflow-run`` object and its ``artifact`` objects."""
    head = run.get("head_commit") or {}
    message = head.get("message") if isinstance(head, dict) else None
    title = message.splitlines()[0] if message else run.get("display_title")
    created = str(run["created_at"])
    return RunRecord(
        repository=source.repository,
        date=_utc_date(created),
        run_id=int(run["id"]),
        workflow_id=run.get("workflow_id"),
        workflow_path=(run.get("path") or "").split("@")[0] or None,
        run_attempt=int(run.get("run_attempt") or 1),
        run_number=run.get("run_number"),
        event=run.get("event"),
        status=run.get("status"),
        conclusion=run.get("conclusion"),
        created_at=created,
        head_branch=run.get("head_branch"),
        head_sha=run.get("head_sha"),
        base_sha=parse_base_sha(message),
        title=title,
        artifacts=tuple(
            sorted(
                (
                    ArtifactRecord(
                        name=str(a["name"]),
                        size_in_bytes=int(a["size_in_bytes"]),
                        expired=bool(a.get("expired")),
                        created_at=a.get("created_at"),
                        digest=a.get("digest"),
                        id=a.get("id"),
                    )
                    for a in artifacts
                ),
                key=lambda a: a.name,
            )
        ),
        collected_at=collected_at,
    )


def collect(
    gh: Github,
    source: WorkflowSource,
    first: dt.date,
    last: dt.date,
    *,
    known: Mapping[int, RunRecord] | None = None,
    on_run: Callable[[RunRecord], None] | None = None,
) -> list[RunRecord]:
    """Records of every run from ``first`` to ``last``, with all their artifacts.

    A run already in ``known`` that was complete when stored, at the same attempt, is reused
    without a request: a nightly update lists one page of runs and the new nights' artifacts.
    Expired artifacts are kept: their size is still listed, which is what makes backfills
    past the 90-day retention possible.
    """
    from wheel_size.github.client import github_errors
    from wheel_size.progress import Progress

    known = known or {}
    collected_at = utc_now()
    out: list[RunRecord] = []
    listed = sorted(list_runs(gh, source, first, last), key=lambda r: (r["created_at"], r["id"]))
    # A backfill shows progress on stderr; a nightly update (a run or two) stays quiet. No
    # closing line on failure: the error itself is the one line a failed job prints.
    progress = (
        Progress(f"artifacts of {source.repository} {first}..{last}", len(listed), unit="runs")
        if len(listed) >= PROGRESS_MIN_RUNS
        else None
    )
    for run in listed:
        if progress is not None:
            progress.advance()
        stored = known.get(int(run["id"]))
        if (
            stored is not None
            and stored.completed
            and run.get("status") == "completed"
            and stored.run_attempt == int(run.get("run_attempt") or 1)
        ):
            out.append(stored)
            continue
        with github_errors(f"listing artifacts of run {run['id']} in {source.repository}"):
            artifacts = [raw(a) for a in _artifacts(gh, run)]
        record = record_from_api(source, run, artifacts, collected_at)
        out.append(record)
        if on_run is not None:
            on_run(record)
    if progress is not None:
        progress.finish()
    return out


def _artifacts(gh: Github, run: Mapping[str, Any]) -> Iterable[Any]:
    """The run's artifacts from its ``artifacts_url``, every page at 100 a page — what
    ``WorkflowRun.get_artifacts()`` does, without first building a run object."""
    from github.Artifact import Artifact
    from github.PaginatedList import PaginatedList

    url = run.get("artifacts_url")
    assert isinstance(url, str)
    return PaginatedList(Artifact, gh.requester, url, None, list_item="artifacts")

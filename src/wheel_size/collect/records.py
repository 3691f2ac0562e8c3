"""Turn listed runs and their artifacts into history records (one artifact listing per run)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from wheel_size.collect.jobs import JobPattern, jobs_from_api
from wheel_size.collect.runs import WorkflowSource, list_runs
from wheel_size.collect.trusted import SkippedRun, untrusted_run
from wheel_size.errors import GitHubError
from wheel_size.history.model import MAX_INT, ArtifactRecord, RunRecord, clean_text, parse_base_sha
from wheel_size.history.recordfile import shown
from wheel_size.ports import RunJobs, WorkflowRuns, worded

__all__ = ["PROGRESS_MIN_RUNS", "collect", "record_from_api", "utc_stamp"]

PROGRESS_MIN_RUNS = 50


def utc_stamp() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _utc_date(stamp: str) -> dt.date:
    return (
        dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(dt.timezone.utc).date()
    )


class _BadAnswer(Exception):
    pass


def _int(value: Any, field: str, *, required: bool = False) -> int | None:
    """An id or size from GitHub: an integer within 0..2^63-1 (what we can store)."""
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise _BadAnswer(f"{field} {shown(repr(value), 60)} is not an integer")
    try:
        number = int(value)
    except ValueError:
        raise _BadAnswer(f"{field} {shown(repr(value), 60)} is not an integer") from None
    if not 0 <= number <= MAX_INT:
        raise _BadAnswer(f"{field} is out of range")
    return number


def _text(value: Any) -> str | None:
    return None if value is None else clean_text(value)


def record_from_api(
    source: WorkflowSource,
    run: Mapping[str, Any],
    artifacts: Iterable[Mapping[str, Any]],
    collected_at: str,
) -> RunRecord:
    """A history record from a ``workflow-run`` object and its ``artifact`` objects.

    Text is stored as sent (lone surrogates replaced); ids and sizes must be 64-bit
    integers, or the answer is a one-line :class:`GitHubError` naming the run: what we store
    must read back.
    """
    try:
        return _record(source, run, artifacts, collected_at)
    except (_BadAnswer, KeyError, TypeError, ValueError, AttributeError) as exc:
        run_id = run.get("id") if isinstance(run, Mapping) else None
        detail = str(exc) if isinstance(exc, _BadAnswer) else f"{type(exc).__name__}: {exc}"
        raise GitHubError(
            f"run {shown(repr(run_id), 40)} of {source.repository}: GitHub's answer cannot be "
            f"stored: {shown(detail, 200)}"
        ) from None


def _record(
    source: WorkflowSource,
    run: Mapping[str, Any],
    artifacts: Iterable[Mapping[str, Any]],
    collected_at: str,
) -> RunRecord:
    head = run.get("head_commit") or {}
    message = head.get("message") if isinstance(head, dict) else None
    message = message if isinstance(message, str) else None
    title = message.splitlines()[0] if message else run.get("display_title")
    created = str(run["created_at"])
    run_id = _int(run["id"], "id", required=True)
    assert run_id is not None
    if run_id < 1:
        raise _BadAnswer("id must be positive")
    path = run.get("path")
    return RunRecord(
        repository=source.repository,
        date=_utc_date(created),
        run_id=run_id,
        workflow_id=_int(run.get("workflow_id"), "workflow_id"),
        workflow_path=_text((path if isinstance(path, str) else "").split("@")[0] or None),
        run_attempt=_int(run.get("run_attempt") or 1, "run_attempt") or 1,
        run_number=_int(run.get("run_number"), "run_number"),
        event=_text(run.get("event")),
        status=_text(run.get("status")),
        conclusion=_text(run.get("conclusion")),
        created_at=_text(created),
        head_branch=_text(run.get("head_branch")),
        head_sha=_text(run.get("head_sha")),
        base_sha=parse_base_sha(message),
        title=_text(title),
        artifacts=tuple(
            sorted(
                (
                    ArtifactRecord(
                        name=clean_text(a["name"]) or "",
                        size_in_bytes=_int(a["size_in_bytes"], "size_in_bytes", required=True) or 0,
                        expired=bool(a.get("expired")),
                        created_at=_text(a.get("created_at")),
                        digest=_text(a.get("digest")),
                        id=_int(a.get("id"), "artifact id"),
                    )
                    for a in artifacts
                ),
                key=lambda a: a.name,
            )
        ),
        collected_at=collected_at,
    )


def collect(
    github: WorkflowRuns,
    source: WorkflowSource,
    first: dt.date,
    last: dt.date,
    *,
    known: Mapping[int, RunRecord] | None = None,
    on_run: Callable[[RunRecord], None] | None = None,
    jobs: JobPattern | None = None,
    skipped: list[SkippedRun] | None = None,
) -> list[RunRecord]:
    """Records of every nightly run from ``first`` to ``last``, with all their artifacts.

    A listed run that is not a nightly (another event, built from a fork) is never read
    further nor stored: it goes to ``skipped`` (see :mod:`wheel_size.collect.trusted`).

    A run already in ``known`` that was complete when stored, at the same attempt, is reused
    without a request: a nightly update lists one page of runs and the new nights' artifacts.
    Expired artifacts are kept: their size is still listed, which is what makes backfills
    past the 90-day retention possible. With ``jobs`` (build time), each run also costs its
    jobs listing (:func:`with_jobs`); a stored run without jobs gains them once.
    """
    from wheel_size.progress import Progress

    known = known or {}
    collected_at = utc_stamp()
    out: list[RunRecord] = []
    listed = []
    for run in list_runs(github, source, first, last):
        why = untrusted_run(run, source.repository, source.events)
        if why is None:
            listed.append(run)
        elif skipped is not None:
            skipped.append(why)
    listed.sort(key=lambda r: (r["created_at"], r["id"]))
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
            and (jobs is None or stored.jobs is not None)
        ):
            out.append(stored)
            continue
        if jobs is not None and stored is not None and _artifacts_final(stored, run):
            out.append(with_jobs(github, source, run, stored, jobs))  # only the jobs are new
            continue
        url = run.get("artifacts_url")
        with worded(f"listing artifacts of run {run['id']} in {source.repository}"):
            if not isinstance(url, str):
                raise GitHubError(f"run {run['id']} has no artifacts_url")
            artifacts = github.run_artifacts_json(url)
        record = record_from_api(source, run, artifacts, collected_at)
        if jobs is not None:
            record = with_jobs(github, source, run, record, jobs)
        out.append(record)
        if on_run is not None:
            on_run(record)
    if progress is not None:
        progress.finish()
    return out


def _artifacts_final(stored: RunRecord, run: Mapping[str, Any]) -> bool:
    """The stored artifacts are what GitHub would list again: the run was complete at the
    same attempt (only its jobs are missing, from before build time was turned on)."""
    return (
        stored.completed
        and run.get("status") == "completed"
        and stored.run_attempt == int(run.get("run_attempt") or 1)
    )


def with_jobs(
    github: WorkflowRuns,
    source: WorkflowSource,
    run: Mapping[str, Any],
    record: RunRecord,
    pattern: JobPattern,
) -> RunRecord:
    """``record`` with the artifact-building jobs of the run's jobs listing (one listing,
    paged; ``filter=latest``). The port must also list jobs (:class:`RunJobs`)."""
    url = run.get("jobs_url")
    with worded(f"listing jobs of run {run['id']} in {source.repository}"):
        if not isinstance(url, str):
            raise GitHubError(f"run {run['id']} has no jobs_url")
        if not isinstance(github, RunJobs):
            raise GitHubError("this GitHub client cannot list a run's jobs")
        listed = github.run_jobs_json(url)
    return dataclasses.replace(record, jobs=jobs_from_api(listed, pattern))

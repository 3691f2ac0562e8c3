"""The records the history keeps: one nightly run and every artifact it uploaded.

A record holds what the Actions API said about the run, not what we concluded from it, so
that later analysis (renames, failed builds, base-SHA ranges) can be redone from the data.
Version 1 of the schema is documented in docs/history-format.md.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from wheel_size.errors import HistoryError
from wheel_size.history.document import ArtifactDocument, JobDocument, RunHeadDocument

__all__ = [
    "MAX_INT",
    "SCHEMA",
    "SCHEMA_VERSION",
    "ArtifactRecord",
    "JobRecord",
    "RunRecord",
    "clean_text",
    "parse_base_sha",
    "run_from_json",
    "run_to_json",
]

SCHEMA: Final = "wheel-size/run"
SCHEMA_VERSION: Final = 1

# "2025-10-11 nightly release (3a1b…)": PyTorch's nightly branch commit names the main-branch
# commit it was cut from; investigating a jump needs that base SHA.
_NIGHTLY_MESSAGE = re.compile(r"^\s*\d{4}-\d{2}-\d{2} nightly release \(([0-9a-fA-F]{7,40})\)")

# Conclusions that mean the run did not finish its job; a missing artifact then is a build
# failure, not a rename or a dropped variant.
FAILED_CONCLUSIONS = frozenset(
    {"failure", "cancelled", "timed_out", "startup_failure", "action_required", "stale"}
)


def parse_base_sha(message: str | None) -> str | None:
    """The base SHA of a nightly commit message, or None when the message has none."""
    if not message:
        return None
    m = _NIGHTLY_MESSAGE.match(message)
    return m.group(1).lower() if m else None


@dataclass(frozen=True)
class ArtifactRecord:
    """One artifact of a run as listed by the API (expired ones keep their size)."""

    name: str
    size_in_bytes: int
    expired: bool = False
    created_at: str | None = None
    digest: str | None = None
    id: int | None = None
    # The sum of the uncompressed sizes of every member of the wheel(s) in the artifact, from
    # their central directories (wheel_size.installed); None: not read (an older record, the
    # option off, or no wheel in the artifact).
    installed_bytes: int | None = None


@dataclass(frozen=True)
class JobRecord:
    """A job of the run that built an artifact, as the jobs listing gave it.

    Only jobs whose name follows the job pattern are kept (``artifact`` is the artifact
    name the pattern gives for it, uploaded or not); the build time is computed from these
    fields when read, so a record never holds a conclusion drawn from them.
    """

    name: str
    id: int | None = None
    run_attempt: int | None = None
    status: str | None = None
    conclusion: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    artifact: str | None = None


@dataclass(frozen=True)
class RunRecord:
    """One workflow run of the nightly branch and everything it uploaded."""

    repository: str
    date: dt.date
    run_id: int
    workflow_id: int | None = None
    workflow_path: str | None = None
    run_attempt: int = 1
    run_number: int | None = None
    event: str | None = None
    status: str | None = None
    conclusion: str | None = None
    created_at: str | None = None
    head_branch: str | None = None
    head_sha: str | None = None
    base_sha: str | None = None
    title: str | None = None
    artifacts: tuple[ArtifactRecord, ...] = field(default_factory=tuple)
    collected_at: str | None = None
    # The artifact-building jobs (build time); None: the jobs were not listed (build time
    # off, or a record older than the field), which is not the same as "no such job".
    jobs: tuple[JobRecord, ...] | None = None

    @property
    def completed(self) -> bool:
        return self.status == "completed"

    @property
    def failed(self) -> bool:
        return self.conclusion in FAILED_CONCLUSIONS

    def artifact(self, name: str) -> ArtifactRecord | None:
        for a in self.artifacts:
            if a.name == name:
                return a
        return None

    def relpath(self) -> str:
        """Where this run lives in a store: one file per run, grouped by month and day."""
        d = self.date
        return f"runs/{d:%Y}/{d:%m}/{d.isoformat()}/{self.run_id}.json"

    def merged_with(self, newer: RunRecord) -> RunRecord:
        """Combine a stored record with a new observation of the same run, losing nothing.

        The later attempt (or the completed state) wins for run fields; artifacts are the
        union by name, a re-uploaded artifact replacing the older upload.
        """
        if newer.run_id != self.run_id:
            raise ValueError("merging records of different runs")
        rank_old = (self.run_attempt, self.completed)
        rank_new = (newer.run_attempt, newer.completed)
        base, other = (newer, self) if rank_new >= rank_old else (self, newer)
        artifacts: dict[str, ArtifactRecord] = {a.name: a for a in other.artifacts}
        for a in base.artifacts:
            old = artifacts.get(a.name)
            if old is None or (a.created_at or "") >= (old.created_at or ""):
                artifacts[a.name] = _keep_installed(a, old)
        base_sha = base.base_sha or other.base_sha
        collected = self.collected_at or newer.collected_at
        return replace(
            base,
            base_sha=base_sha,
            artifacts=tuple(sorted(artifacts.values(), key=lambda a: a.name)),
            collected_at=collected,
            jobs=_merged_jobs(base.jobs, other.jobs),
        )

    def same_content(self, other: RunRecord) -> bool:
        """Equal apart from when it was collected: rewriting it would change nothing."""
        return replace(self, collected_at=None) == replace(other, collected_at=None)


def _keep_installed(new: ArtifactRecord, old: ArtifactRecord | None) -> ArtifactRecord:
    """``new`` with ``old``'s installed size when both are the same upload and only the old
    observation read it (a re-listing never loses a measured size)."""
    if (
        old is None
        or new.installed_bytes is not None
        or old.installed_bytes is None
        or (new.id, new.digest, new.size_in_bytes) != (old.id, old.digest, old.size_in_bytes)
    ):
        return new
    return replace(new, installed_bytes=old.installed_bytes)


def _job_key(job: JobRecord) -> tuple[str, int, int]:
    return (job.name, job.run_attempt or 0, job.id or 0)


def _merged_jobs(
    base: tuple[JobRecord, ...] | None, other: tuple[JobRecord, ...] | None
) -> tuple[JobRecord, ...] | None:
    """The union of two observations' jobs by id (the winning observation's copy first):
    a listing taken before build time was on, or of an earlier attempt, loses nothing."""
    if base is None or other is None:
        return base if other is None else other
    jobs = {(j.id, j.name): j for j in other}
    jobs.update({(j.id, j.name): j for j in base})
    return tuple(sorted(jobs.values(), key=_job_key))


def _job_json(job: JobRecord) -> JobDocument:
    return {
        "name": job.name,
        "id": job.id,
        "run_attempt": job.run_attempt,
        "status": job.status,
        "conclusion": job.conclusion,
        "started_at": job.started_at,
        "completed_at": job.completed_at,
        "artifact": job.artifact,
    }


def run_to_json(run: RunRecord) -> str:
    """The stored text of a record: indented, stable key order, one artifact per line."""
    head: RunHeadDocument = {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "repository": run.repository,
        "workflow_id": run.workflow_id,
        "workflow_path": run.workflow_path,
        "date": run.date.isoformat(),
        "run_id": run.run_id,
        "run_attempt": run.run_attempt,
        "run_number": run.run_number,
        "event": run.event,
        "status": run.status,
        "conclusion": run.conclusion,
        "created_at": run.created_at,
        "head_branch": run.head_branch,
        "head_sha": run.head_sha,
        "base_sha": run.base_sha,
        "title": run.title,
        "collected_at": run.collected_at,
    }
    lines = ["{"]
    for key, value in head.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},")
    lines.append('  "artifacts": [')
    items = []
    for a in sorted(run.artifacts, key=lambda a: a.name):
        item: ArtifactDocument = {
            "name": a.name,
            "size_in_bytes": a.size_in_bytes,
            "expired": a.expired,
            "created_at": a.created_at,
            "digest": a.digest,
            "id": a.id,
        }
        if a.installed_bytes is not None:  # absent, not null: older records read the same
            item["installed_bytes"] = a.installed_bytes
        items.append("    " + json.dumps(item, ensure_ascii=False))
    if items:
        lines.append(",\n".join(items))
    if run.jobs is None:  # a record without build time reads (and is written) as before
        lines.append("  ]")
    else:
        lines.append("  ],")
        lines.append('  "jobs": [')
        jobs = [
            "    " + json.dumps(_job_json(j), ensure_ascii=False)
            for j in sorted(run.jobs, key=_job_key)
        ]
        if jobs:
            lines.append(",\n".join(jobs))
        lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


# Run ids, workflow ids and sizes are 64-bit on GitHub's side; a 300-digit "run id" is a
# planted file, not a run (and would make paths and sorting misbehave).
MAX_INT = (1 << 63) - 1
_SURROGATE = re.compile("[\ud800-\udfff]")
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _get(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    """``data[key]`` if it is None or of ``kind``; integers within 0..2^63-1, strings
    without lone surrogates (json.loads accepts ``"\\ud800"``; writing it back would fail)."""
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise HistoryError(f"{where}: field {key!r} has the wrong type ({type(value).__name__})")
    if isinstance(value, int) and not 0 <= value <= MAX_INT:
        raise HistoryError(f"{where}: field {key!r} is out of range (0 to 2^63-1)")
    if isinstance(value, str) and _SURROGATE.search(value):
        raise HistoryError(f"{where}: field {key!r} holds a lone surrogate (not Unicode text)")
    return value


def clean_text(value: object) -> str | None:
    """A free-text field from GitHub as we can store it: None stays None, lone surrogates
    become U+FFFD (a commit message is not a reason to lose a night)."""
    if value is None:
        return None
    return _SURROGATE.sub("\ufffd", str(value))


def _shown(value: object) -> str:
    """A field's value for a message: short scalars as written, anything else by its type
    (the repr of a planted nested list could be huge or recurse too deeply)."""
    from wheel_size.history.recordfile import shown

    if (
        value is None
        or isinstance(value, (bool, int, float))
        or (isinstance(value, str) and len(value) <= 80)
    ):
        return shown(repr(value), 100)
    return f"<{type(value).__name__}>"


def _jobs_from_json(data: Mapping[str, Any], where: str) -> tuple[JobRecord, ...] | None:
    """The optional ``jobs`` list (absent in records written without build time)."""
    raw = data.get("jobs")
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise HistoryError(f"{where}: field 'jobs' is not a list")
    jobs = []
    for i, j in enumerate(raw):
        at = f"{where}: jobs[{i}]"
        if not isinstance(j, dict) or not isinstance(j.get("name"), str):
            raise HistoryError(f"{at}: not a job object with a name")
        jobs.append(
            JobRecord(
                name=_get(j, "name", str, at),
                id=_get(j, "id", int, at),
                run_attempt=_get(j, "run_attempt", int, at),
                status=_get(j, "status", str, at),
                conclusion=_get(j, "conclusion", str, at),
                started_at=_get(j, "started_at", str, at),
                completed_at=_get(j, "completed_at", str, at),
                artifact=_get(j, "artifact", str, at),
            )
        )
    return tuple(sorted(jobs, key=_job_key))


def run_from_json(data: object, where: str = "run record") -> RunRecord:
    """Validate and decode one stored run; ``where`` names the file in errors."""
    if not isinstance(data, dict):
        raise HistoryError(f"{where}: not a JSON object")
    if data.get("schema") != SCHEMA:
        raise HistoryError(
            f"{where}: not a wheel-size run record (schema {_shown(data.get('schema'))})"
        )
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise HistoryError(
            f"{where}: schema_version {_shown(version)} is not supported "
            f"(this tool reads {SCHEMA_VERSION})"
        )
    for key in ("repository", "date", "run_id"):
        if data.get(key) is None:
            raise HistoryError(f"{where}: required field {key!r} is missing")
    day = _get(data, "date", str, where)
    try:
        if not _ISO_DATE.fullmatch(day):
            raise ValueError(day)
        date = dt.date.fromisoformat(day)
    except ValueError:
        raise HistoryError(f"{where}: field 'date' is not YYYY-MM-DD") from None
    run_id = _get(data, "run_id", int, where)
    if run_id < 1:
        raise HistoryError(f"{where}: field 'run_id' must be a positive integer")
    raw_artifacts = data.get("artifacts", [])
    if not isinstance(raw_artifacts, list):
        raise HistoryError(f"{where}: field 'artifacts' is not a list")
    artifacts = []
    for i, a in enumerate(raw_artifacts):
        at = f"{where}: artifacts[{i}]"
        if not isinstance(a, dict) or not isinstance(a.get("name"), str):
            raise HistoryError(f"{at}: not an artifact object with a name")
        _get(a, "name", str, at)
        size = _get(a, "size_in_bytes", int, at)
        if size is None or size < 0:
            raise HistoryError(f"{at}: size_in_bytes must be a non-negative integer")
        if "installed_bytes" in a and a["installed_bytes"] is None:
            raise HistoryError(f"{at}: installed_bytes is null (absent when not read)")
        artifacts.append(
            ArtifactRecord(
                name=a["name"],
                size_in_bytes=size,
                expired=bool(_get(a, "expired", bool, at)),
                created_at=_get(a, "created_at", str, at),
                digest=_get(a, "digest", str, at),
                id=_get(a, "id", int, at),
                installed_bytes=_get(a, "installed_bytes", int, at),
            )
        )
    return RunRecord(
        jobs=_jobs_from_json(data, where),
        repository=_get(data, "repository", str, where),
        date=date,
        run_id=run_id,
        workflow_id=_get(data, "workflow_id", int, where),
        workflow_path=_get(data, "workflow_path", str, where),
        run_attempt=_get(data, "run_attempt", int, where) or 1,
        run_number=_get(data, "run_number", int, where),
        event=_get(data, "event", str, where),
        status=_get(data, "status", str, where),
        conclusion=_get(data, "conclusion", str, where),
        created_at=_get(data, "created_at", str, where),
        head_branch=_get(data, "head_branch", str, where),
        head_sha=_get(data, "head_sha", str, where),
        base_sha=_get(data, "base_sha", str, where),
        title=_get(data, "title", str, where),
        artifacts=tuple(sorted(artifacts, key=lambda a: a.name)),
        collected_at=_get(data, "collected_at", str, where),
    )

"""A stored run record and an investigation note as typed documents.

TypedDicts, not dataclasses: these are the JSON files on the data branch
(``docs/history-format.schema.json`` for a run record), so mypy checks every key where
:mod:`wheel_size.history.model` and :mod:`wheel_size.history.investigations` write it; a
test checks the record against its schema. Reading goes the other way, field by field,
because a data branch may hold anything.
"""

from __future__ import annotations

from typing import Literal, TypedDict

__all__ = [
    "ArtifactDocument",
    "CauseDocument",
    "JobDocument",
    "NoteDocument",
    "RunDocument",
    "RunHeadDocument",
]


class RunHeadDocument(TypedDict):
    """The record's scalar fields, written one per line before its artifacts."""

    schema: Literal["wheel-size/run"]
    schema_version: Literal[1]
    repository: str
    workflow_id: int | None
    workflow_path: str | None
    date: str
    run_id: int
    run_attempt: int
    run_number: int | None
    event: str | None
    status: str | None
    conclusion: str | None
    created_at: str | None
    head_branch: str | None
    head_sha: str | None
    base_sha: str | None
    title: str | None
    collected_at: str | None


class _Artifact(TypedDict):
    name: str
    size_in_bytes: int
    expired: bool
    created_at: str | None
    digest: str | None
    id: int | None


class ArtifactDocument(_Artifact, total=False):
    """One artifact; ``installed_bytes`` only once its installed size was read."""

    installed_bytes: int


class JobDocument(TypedDict):
    name: str
    id: int | None
    run_attempt: int | None
    status: str | None
    conclusion: str | None
    started_at: str | None
    completed_at: str | None
    artifact: str | None


class _Run(RunHeadDocument):
    artifacts: list[ArtifactDocument]


class RunDocument(_Run, total=False):
    """A whole record as read back (``jobs`` only once build time was collected)."""

    jobs: list[JobDocument]


class CauseDocument(TypedDict):
    sha: str
    title: str | None
    status: str | None
    url: str | None


class NoteDocument(TypedDict):
    """``investigations/<kind>/<variant>/<date>.json``: what an event's issue concluded."""

    schema: Literal["wheel-size/investigation"]
    schema_version: Literal[1]
    key: str
    issue: int | None
    issue_url: str | None
    cause: CauseDocument | None
    state: str

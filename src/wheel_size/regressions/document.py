"""The investigation document (``investigate --format json``, the notes, the issue's data)
as typed dictionaries: what crosses a module boundary is named key by key (issue 22).

Each producer returns its part: :meth:`ranking.rank.Reason.to_json`,
:meth:`builds.evidence.Measurement.to_json` / :meth:`builds.evidence.BuildVerdict.to_json`,
:meth:`investigation.Candidate.to_json` and :meth:`investigation.Investigation.to_json`.
The wheel diff (``evidence``) is the evidence package's own document and stays opaque here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypedDict

__all__ = [
    "BuildVerdictDocument",
    "CandidateDocument",
    "FingerprintDocument",
    "InvestigationDocument",
    "MeasurementDocument",
    "ReasonDocument",
    "RevertDocument",
    "WindowDocument",
]


class ReasonDocument(TypedDict):
    signal: str  # build, content, reach, text, prior, amount
    tier: str
    points: float
    text: str


class MeasurementDocument(TypedDict):
    sha: str
    size_bytes: int
    resolution_bytes: int
    kind: str  # "artifact" or "wheel"
    source: str
    url: str
    line: str | None


class BuildVerdictDocument(TypedDict):
    sha: str
    parent: str | None
    status: str  # CONFIRMED, NOT CONFIRMED, CLEARED or LIKELY
    reason: str
    delta_bytes: int | None
    suspect: MeasurementDocument | None
    parent_build: MeasurementDocument | None


class CandidateDocument(TypedDict):
    sha: str
    title: str
    pr: int | None
    pr_url: str | None
    url: str | None
    author: str | None
    categories: list[str]
    rank: int
    score: float
    why: str
    reasons: list[ReasonDocument]
    reach: str | None
    status: str | None
    evidence: str
    files_checked: bool
    files_changed: int | None
    reverts: str | None


class WindowDocument(TypedDict):
    mode: str
    compared: list[str] | None
    compare_url: str | None
    total_commits: int
    listed_commits: int
    files_checked: int


class UnrankedCommitDocument(TypedDict):
    sha: str
    title: str
    url: str | None


class RevertDocument(TypedDict):
    sha: str
    reverted_sha: str
    title: str
    reverted_title: str


class FingerprintDocument(TypedDict):
    direction: Literal["growth", "shrink", "none"]
    moved: list[str]
    flat: list[str]
    opposite: list[str]
    no_data: list[str]
    scope: str
    size_class: Literal["large", "small", "medium"]


class ChartPointDocument(TypedDict):
    date: str
    size_mb: float


class BracketDocument(TypedDict):
    """A step the builds located: commits ``first_sha`` .. ``last_sha`` of the window."""

    first_sha: str
    last_sha: str
    commits: int
    before_sha: str
    before_bytes: int | None
    after_sha: str
    after_bytes: int | None
    delta_bytes: int


class InvestigationDocument(TypedDict):
    repo: str
    kind: str
    key: str
    date: str
    date_before: str
    variant: str
    delta_mb: float
    delta_pct: float | None
    size_before_mb: float
    size_after_mb: float
    base_before: str | None
    base_after: str | None
    head_before: str | None
    head_after: str | None
    run_before: int | None
    run_after: int | None
    window: WindowDocument
    notes: list[str]
    candidates: list[CandidateDocument]
    reverts_removed: list[RevertDocument]
    cross_variant: dict[str, float | None]
    cross_variant_pattern: str
    cross_variant_reading: str
    fingerprint: FingerprintDocument | None
    no_jump: bool
    # a night without a jump: the window's commits, unranked (empty otherwise)
    unranked_commits: list[UnrankedCommitDocument]
    clear_culprit: bool
    leading_group: list[str]
    chart: list[ChartPointDocument]
    # The wheel content diff: the evidence package's document (``Evidence.to_json``).
    evidence: Mapping[str, object] | None  # evidence.document.EvidenceDocument
    build_evidence: list[BuildVerdictDocument] | None
    # Issue 28: where the window's builds put each step, and what reading them cost.
    build_brackets: list[BracketDocument] | None
    build_requests: int

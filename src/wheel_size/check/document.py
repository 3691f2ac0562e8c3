"""The pull-request check's result as a typed document (``docs/check-format.schema.json``).

TypedDicts, not dataclasses: the document *is* the JSON the adapters write (they add only
``warnings``), so mypy checks every key where :mod:`wheel_size.check.run` writes it. Sizes in
bytes, MB numbers (1,048,576 bytes) from :func:`wheel_size.units.to_mb`.
"""

from __future__ import annotations

from typing import TypedDict

from wheel_size.diff.document import ComparisonDocument
from wheel_size.quota.model import QuotaDocument

__all__ = [
    "BaseNightDocument",
    "BreachDocument",
    "CeilingBreachDocument",
    "CheckDocument",
    "CheckOutputDocument",
    "LimitDocument",
    "NightChoiceDocument",
    "StandingDocument",
    "WheelCheckDocument",
]


class NightChoiceDocument(TypedDict):
    """Which stored night a pull request was compared with, and why."""

    mode: str  # "merge-base" or "newest"
    date: str | None
    base_sha: str | None
    merge_base_sha: str | None
    commits_before_merge_base: int | None
    fallback: str | None
    newest: str | None
    requests: int
    text: str | None


class BaseNightDocument(TypedDict):
    date: str
    run_id: int
    head_sha: str | None
    artifact: str
    size_bytes: int | None
    basis: str | None  # "wheel" (downloaded) or "artifact" (stored size)


class BreachDocument(TypedDict):
    kind: str  # growth, growth-pct, ceiling or pypi
    limit_bytes: int | None
    limit_pct: float | None
    nightly_over: bool


class StandingDocument(TypedDict):
    limit_bytes: int
    nightly_bytes: int


class WheelCheckDocument(TypedDict):
    wheel: str
    variant: str | None
    python: str | None
    size_bytes: int
    size_mb: float
    base: BaseNightDocument | None
    delta_bytes: int | None
    delta_mb: float | None
    breaches: list[BreachDocument]
    ceilings_already_exceeded: list[StandingDocument]
    notes: list[str]
    diff: ComparisonDocument | None
    # the sum of the wheels' uncompressed member sizes (None: not known, e.g. a nightly
    # stored without --installed-size)
    installed_bytes: int | None
    base_installed_bytes: int | None


class CheckDocument(TypedDict):
    failed: bool
    conclusion: str  # the check run's: "success", "failure" or "neutral" (a wheel not checked)
    not_checked: list[str]  # wheels compared with no stored night
    acknowledgement: str | None
    ceiling_ack: str | None
    over_budget: list[str]
    failing: list[str]
    notes: list[str]
    compared_with: NightChoiceDocument | None
    wheels: list[WheelCheckDocument]
    # with --quota-project: the quota once the pull request's wheels are uploaded, or why it
    # is unknown (both None: not asked)
    quota: QuotaDocument | None
    quota_error: str | None


class CheckOutputDocument(CheckDocument):
    """What ``check --json`` and the check action write: the result and the warnings."""

    warnings: list[str]


class LimitDocument(TypedDict):
    kind: str
    limit_bytes: int | None


class CeilingBreachDocument(TypedDict):
    """A watched variant whose newest stored size is over a limit (the nightly's JSON)."""

    variant: str
    date: str
    size_bytes: int
    size_mb: float
    limits: list[LimitDocument]

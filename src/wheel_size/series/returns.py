"""When a size is back where it was before a change: the one rollback rule.

The report's "Rollback" observation and a regression issue's lifecycle ("rolled back" /
"back without a revert") both ask this, so the report cannot call a night a rollback while
the issue says the change is still in (issue 18). Back means within tolerance of the
pre-change size: the larger of an absolute margin and a share of the change itself, so a
10 MB growth of which 6 MB went again is still in, and one of which 9.5 MB went is back.
Whether a return is *attributable* (a revert of a listed candidate) is the issue's own
knowledge (``regressions/issues/lifecycle.py``); the size rule is shared.
"""

from __future__ import annotations

from dataclasses import dataclass

from wheel_size.units import MB

__all__ = ["ReturnTolerance", "is_back", "return_margin"]


@dataclass(frozen=True)
class ReturnTolerance:
    """How close to the pre-change size counts as "back"."""

    mb: float = 1.0
    fraction: float = 0.25  # of the change's own size


def return_margin(before_bytes: int, after_bytes: int, tolerance: ReturnTolerance) -> float:
    """The distance from ``before_bytes`` (bytes) within which a size is back."""
    return max(tolerance.mb * MB, tolerance.fraction * abs(after_bytes - before_bytes))


def is_back(
    before_bytes: int,
    after_bytes: int,
    now_bytes: int,
    tolerance: ReturnTolerance | None = None,
) -> bool:
    """Is ``now_bytes`` back at the size before the change ``before_bytes`` → ``after_bytes``?"""
    margin = return_margin(before_bytes, after_bytes, tolerance or ReturnTolerance())
    return abs(now_bytes - before_bytes) <= margin

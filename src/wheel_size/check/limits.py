"""Which budgets hold a pull request's wheel, and which breach its acknowledgements accept.

A pull request answers for its own growth, not for the nightly's state:

- growth budgets (MB, percent) compare the wheel with the nightly;
- a ceiling fails the pull request when the wheel is over it and either the nightly was
  not (the pull request crosses it) or the pull request grows the wheel by even a byte;
  a ceiling the nightly already exceeds and the pull request does not grow is a notice
  naming that nightly. Without a stored nightly, a wheel over a ceiling counts as crossing it;
- PyPI's file-size limit always fails: PyPI refuses the upload whatever anyone acknowledges.

The pull request's ``Wheel-Size:`` footer accepts growth and ceiling breaches; the
repository's ``ceiling-ack`` accepts ceiling breaches (a known, tolerated state), as it does
for the nightly.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from wheel_size.check.budget import Breach, Budget

__all__ = ["Standing", "acknowledged_by", "pr_breaches"]


@dataclass(frozen=True)
class Standing:
    """A ceiling the nightly already exceeds and the pull request leaves as it was."""

    limit_bytes: int
    base_bytes: int


def pr_breaches(
    budget: Budget, variant: str | None, size: int, base: int | None
) -> tuple[list[Breach], list[Standing]]:
    """The breaches that hold ``size`` (with the nightly's ``base`` size, when known) and the
    already-breached ceilings that are only a notice."""
    found: list[Breach] = []
    standing: list[Standing] = []
    for breach in budget.breaches(variant, size, base):
        if breach.kind != "ceiling" or base is None or breach.limit_bytes is None:
            found.append(breach)
        elif base <= breach.limit_bytes:
            found.append(breach)  # the pull request crosses it
        elif size > base:
            found.append(dataclasses.replace(breach, base_over=True))  # grows past it further
        else:
            standing.append(Standing(breach.limit_bytes, base))
    return found, standing


def acknowledged_by(breach: Breach, footer: str | None, ceiling_ack: str | None) -> str | None:
    """The reason that accepts ``breach``, or None: PyPI's limit is never accepted."""
    if breach.kind == "pypi":
        return None
    if breach.kind == "ceiling":
        return footer or ceiling_ack
    return footer

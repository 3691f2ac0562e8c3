"""The one crossing rule: when a day-over-day change is a jump, and when growth is creep.

Every consumer (the report, the regression issues, the dashboard, the Action's outputs)
asks this module, so a change of exactly the threshold can never be a jump to one of them
and not to another. The comparison is exact: sizes are integers (bytes), MB = 1,048,576
bytes, and a threshold is the decimal number as written (``--threshold-pct 0.1`` is 1/10,
not the binary float nearest to it), so a change of exactly 0.1 % crosses 0.1 %.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from wheel_size.errors import InputError

__all__ = ["MB", "CreepSettings", "Thresholds"]

MB = 1_048_576  # the seed's MB; never 10**6 here


def _exact(value: float) -> Fraction | None:
    """The decimal a threshold was written as (``repr`` gives back the shortest decimal that
    reads as the same float); None for +inf, a rule no change can cross."""
    return None if math.isinf(value) else Fraction(repr(float(value)))


@dataclass(frozen=True)
class Thresholds:
    """A day-over-day change is a jump when it crosses any threshold that is set.

    ``mb``: at least this many MB either way; ``pct``: at least this percent of the night
    it is measured against. None turns a rule off; with both off nothing is a jump.
    """

    mb: float | None = 1.0
    pct: float | None = None

    def __post_init__(self) -> None:
        for name, value in (("MB", self.mb), ("percent", self.pct)):
            if value is None:
                continue
            if math.isnan(value):
                raise InputError(f"threshold: the {name} threshold must be a number, not nan")
            if value < 0:
                raise InputError(
                    f"threshold: the {name} threshold must not be negative ({value:g})"
                )

    def crossed(self, delta_bytes: int, base_bytes: int) -> bool:
        """Whether a change of ``delta_bytes`` from ``base_bytes`` is a jump.

        A change of zero is never a jump, whatever the thresholds (a threshold of 0 would
        otherwise flag every quiet night).
        """
        change = abs(delta_bytes)
        if change == 0:
            return False
        if self.mb is not None:
            limit = _exact(self.mb)
            if limit is not None and Fraction(change, MB) >= limit:
                return True
        if self.pct is not None and base_bytes > 0:
            limit = _exact(self.pct)
            if limit is not None and Fraction(100 * change, base_bytes) >= limit:
                return True
        return False

    def describe(self) -> str:
        parts = []
        if self.mb is not None:
            parts.append(f"±{self.mb:g} MB")
        if self.pct is not None:
            parts.append(f"±{self.pct:g}%")
        return " or ".join(parts) if parts else "none"


@dataclass(frozen=True)
class CreepSettings:
    """Growth of at least ``mb`` over ``days`` days that no single night crossed."""

    mb: float = 5.0
    days: int = 14

    def __post_init__(self) -> None:
        # `not (mb > 0)` also refuses nan, which would otherwise make every night creep.
        if not (self.mb > 0) or self.days < 2:
            raise InputError(
                f"creep: need a positive MB amount and a window of 2 days or more "
                f"(got {self.mb:g} MB over {self.days} days)"
            )

    def reached(self, growth_bytes: int) -> bool:
        """Whether ``growth_bytes`` is at least the creep amount (exact, like jumps)."""
        limit = _exact(self.mb)
        return limit is not None and Fraction(growth_bytes, MB) >= limit

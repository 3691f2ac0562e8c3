"""The one crossing rule: when a day-over-day change is a jump, and when growth is creep.

Every consumer (the report, the regression issues, the dashboard, the Action's outputs)
asks this module, so a change of exactly the threshold can never be a jump to one of them
and not to another. The comparison is exact: sizes are integers (bytes), MB = 1,048,576
bytes, and a threshold is the decimal number as written (``--threshold-pct 0.1`` is 1/10,
not the binary float nearest to it), so a change of exactly 0.1 % crosses 0.1 %.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from wheel_size.errors import InputError
from wheel_size.units import MB

__all__ = ["BASELINE_DAYS", "MB", "Baseline", "CreepSettings", "Thresholds"]

# The nights a baseline is computed from lie at most this many days before the night
# measured: every consumer loads that far back, so they all see the same baseline.
BASELINE_DAYS = 28
# The most nights a baseline may name (a window compares 2N nights, all within BASELINE_DAYS).
MAX_BASELINE_NIGHTS = BASELINE_DAYS // 2


@dataclass(frozen=True)
class Baseline:
    """What a night is measured against (``--baseline``; docs/report-format.md).

    ``previous``: the previous night with a size (the seed's day-over-day rule, the
    default). ``median:N``: the median of the N nights with a size before it.
    ``window:N``: the mean of the last N nights (the night included) against the mean of
    the N nights before those. With a median or a window, consecutive nights that cross
    the same way are one event, reported on its first night.
    """

    kind: str = "previous"
    nights: int = 1

    KINDS = ("previous", "median", "window")

    def __post_init__(self) -> None:
        if self.kind not in self.KINDS:
            raise InputError(f"baseline: {self.kind!r} is not one of previous, median:N, window:N")
        if self.kind != "previous" and not 2 <= self.nights <= MAX_BASELINE_NIGHTS:
            raise InputError(
                f"baseline: {self.kind}:N needs N from 2 to {MAX_BASELINE_NIGHTS} "
                f"(got {self.nights})"
            )

    @classmethod
    def parse(cls, text: str | None) -> Baseline:
        """``previous``, ``median:7``, ``window:5`` (case and spaces ignored; empty = previous)."""
        raw = (text or "").strip().lower()
        if raw in ("", "previous"):
            return cls()
        kind, sep, count = raw.partition(":")
        kind = kind.strip()
        if kind not in ("median", "window") or not sep:
            raise InputError(
                f"baseline: {text!r} is not previous, median:N or window:N (e.g. median:7)"
            )
        try:
            nights = int(count.strip())
        except ValueError:
            raise InputError(
                f"baseline: {text!r} needs a whole number of nights after the colon"
            ) from None
        return cls(kind, nights)

    @property
    def is_previous(self) -> bool:
        return self.kind == "previous"

    @property
    def spec(self) -> str:
        return "previous" if self.is_previous else f"{self.kind}:{self.nights}"

    @property
    def lookback_days(self) -> int:
        """Extra days of history a consumer loads for it (0 for the day-over-day rule): the
        baseline of a night, and those of the nights its event started on."""
        return 0 if self.is_previous else 2 * BASELINE_DAYS

    @property
    def nights_before(self) -> int:
        """Nights with a size a night needs before it to be measured in full (a window
        reads its last N, the night included, and the N before those)."""
        return {"previous": 1, "median": self.nights}.get(self.kind, 2 * self.nights - 1)

    def describe(self) -> str:
        if self.kind == "median":
            return f"the median of the previous {self.nights} nights"
        if self.kind == "window":
            return f"the mean of the last {self.nights} nights against the {self.nights} before"
        return "the previous night"


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
    baseline: Baseline = field(default_factory=Baseline)

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

    @property
    def beyond_band(self) -> bool:
        """Sizes are measured from the baseline's middle (its median or mean)."""
        return False

    def crossed(self, delta_bytes: int | Fraction, base_bytes: int | Fraction) -> bool:
        """Whether a change of ``delta_bytes`` from ``base_bytes`` is a jump.

        A change of zero is never a jump, whatever the thresholds (a threshold of 0 would
        otherwise flag every quiet night).
        """
        change = abs(Fraction(delta_bytes))
        if change == 0:
            return False
        if self.mb is not None:
            limit = _exact(self.mb)
            if limit is not None and change / MB >= limit:
                return True
        if self.pct is not None and base_bytes > 0:
            limit = _exact(self.pct)
            if limit is not None and 100 * change / Fraction(base_bytes) >= limit:
                return True
        return False

    def describe(self) -> str:
        parts = []
        if self.mb is not None:
            parts.append(f"±{self.mb:g} MB")
        if self.pct is not None:
            parts.append(f"±{self.pct:g}%")
        text = " or ".join(parts) if parts else "none"
        if self.baseline.is_previous:
            return text
        return f"{text} against {self.baseline.describe()}"


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

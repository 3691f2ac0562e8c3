"""How a jump found against a several-night baseline was measured (shown with the jump).

Its own module so that :mod:`wheel_size.series.points` (the :class:`Step` that carries it)
and :mod:`wheel_size.series.baseline` (the rule that fills it) import it without importing
each other.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TypedDict

from wheel_size.units import MB

__all__ = ["BaselineDocument", "BaselineInfo"]


class _BaselineKeys(TypedDict):
    """A jump's baseline in the report's JSON (``docs/report-format.schema.json``)."""

    spec: str
    nights: int
    size_mb: float
    size_bytes: int
    band_low_mb: float
    band_high_mb: float
    current_mb: float
    delta_mb: float
    delta_bytes: int
    start_date: str
    end_date: str
    end_mb: float
    end_bytes: int


class BaselineDocument(_BaselineKeys, total=False):
    """With the keys written only sometimes."""

    measured: str  # "short": fewer nights before it than the baseline (`nights` says how many)
    grew_after: str  # the event this night grew again (its first night)


@dataclass(frozen=True)
class BaselineInfo:
    """How a jump measured against a baseline was measured (shown with the jump)."""

    spec: str  # "median:7", "window:5"
    nights: int  # baseline nights (N; fewer when ``short``, 1: day over day)
    value_bytes: int  # the median or mean of the baseline nights (rounded to a byte)
    low_bytes: int  # the noise band: lowest and highest baseline night
    high_bytes: int
    current_bytes: int  # the night's size (median) or the mean of the last window
    first_date: dt.date  # the night the jump was found on
    start_date: dt.date  # the first night that moved: the change is from the night before
    end_date: dt.date  # the last night that still crossed the same way (in the data read)
    end_bytes: int  # that night's size: the level the event reached
    # Too few nights before this one for the baseline (a history shorter than it, or
    # after a gap): measured against the median of the ``nights`` there were instead
    # (1: day over day), never left unmeasured.
    short: bool = False
    # The first night of an earlier event that this night grew again (the step runs from
    # before that event, so its commit window covers both nights); None otherwise.
    grew_after: dt.date | None = None

    @property
    def delta_bytes(self) -> int:
        return self.current_bytes - self.value_bytes

    def to_dict(self) -> BaselineDocument:
        out: BaselineDocument = {
            "spec": self.spec,
            "nights": self.nights,
            "size_mb": round(self.value_bytes / MB, 3),
            "size_bytes": self.value_bytes,
            "band_low_mb": round(self.low_bytes / MB, 3),
            "band_high_mb": round(self.high_bytes / MB, 3),
            "current_mb": round(self.current_bytes / MB, 3),
            "delta_mb": round(self.delta_bytes / MB, 3),
            "delta_bytes": self.delta_bytes,
            "start_date": self.start_date.isoformat(),
            "end_date": self.end_date.isoformat(),
            "end_mb": round(self.end_bytes / MB, 3),
            "end_bytes": self.end_bytes,
        }
        if self.short:
            out["measured"] = "short"
        if self.grew_after is not None:
            out["grew_after"] = self.grew_after.isoformat()
        return out

"""Run records with exact byte sizes, for the series tests (history_factory rounds MB)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from history_factory import MB, run
from wheel_size.history import History, RunRecord

D0 = dt.date(2025, 10, 1)


def night(day: dt.date, sizes: Mapping[str, int], **kw: object) -> RunRecord:
    """One run on ``day`` whose artifacts are exactly ``sizes`` bytes (bytes/MB is exact)."""
    return run(day, {v: b / MB for v, b in sizes.items()}, **kw)  # type: ignore[arg-type]


def history_of(sizes: Sequence[int | None], variant: str = "cpu") -> History:
    """Night i of D0.. has ``sizes[i]`` bytes of ``variant``; None = no run that night."""
    return History.of(
        night(D0 + dt.timedelta(days=i), {variant: s}) for i, s in enumerate(sizes) if s is not None
    )

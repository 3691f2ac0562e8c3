"""Why a night has (or lacks) a size: the states the report, the JSON and the dashboard show."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from wheel_size.history.model import RunRecord
from wheel_size.series.points import SizePoint
from wheel_size.variants import variant_key

__all__ = ["Night", "NightState", "variant_family"]


class NightState:
    """The values are part of the JSON format (a report day's ``status``)."""

    OK = "ok"
    NO_RUN = "no_run"  # no run of the workflow that day
    MISSING = "missing"  # runs finished without this artifact
    FAILED = "failed"  # runs failed (or were cancelled) without producing it
    PENDING = "pending"  # a run is still going and has not uploaded it yet
    RENAMED = "renamed"  # absent while a new name of the same family appeared

    ALL = (OK, NO_RUN, MISSING, FAILED, PENDING, RENAMED)


@dataclass(frozen=True)
class Night:
    """One calendar night of one variant: its point, or the explicit reason it has none."""

    date: dt.date
    state: str
    point: SizePoint | None = None
    run: RunRecord | None = None  # the run the point comes from (state OK)
    runs: tuple[RunRecord, ...] = ()  # every run of the workflow that night, oldest first
    renamed_to: tuple[str, ...] = ()  # state RENAMED: the new artifact names
    renamed_size_bytes: int | None = None

    @property
    def latest(self) -> RunRecord | None:
        return self.runs[-1] if self.runs else None

    @property
    def last_failed(self) -> RunRecord | None:
        failed = [r for r in self.runs if r.failed]
        return failed[-1] if failed else None


def variant_family(variant: str) -> str:
    """``cuda12_8`` → ``cuda``: variants a rename can move between (the one reading of
    variant names, :func:`wheel_size.variants.variant_key`)."""
    return variant_key(variant).family

"""The per-variant series the regression logic reads, from a History or the run's series."""

from __future__ import annotations

from wheel_size.history.history import History
from wheel_size.series import SizeSeries
from wheel_size.variants import ArtifactNaming

__all__ = ["series_from_history"]


def series_from_history(history: History | SizeSeries, naming: ArtifactNaming) -> SizeSeries:
    """Every variant the naming pattern recognises, one point per night.

    Given the run's :class:`SizeSeries` (built once by ``track``), that object is returned
    as is: the issues then read exactly the nights the report and the dashboard read.
    """
    if isinstance(history, SizeSeries):
        return history
    return SizeSeries(history, naming)

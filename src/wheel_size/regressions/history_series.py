"""Turn the stored history into the per-variant series the regression logic reads."""

from __future__ import annotations

from wheel_size.history.history import History
from wheel_size.regressions.series import SizePoint
from wheel_size.variants import ArtifactNaming

__all__ = ["series_from_history"]


def series_from_history(history: History, naming: ArtifactNaming) -> dict[str, list[SizePoint]]:
    """Every variant the naming pattern recognises, one point per night.

    Per night the latest run that has the artifact wins (``History.pick``); its run id,
    nightly head SHA and base SHA travel with the point, so a jump knows its window.
    """
    series: dict[str, list[SizePoint]] = {}
    for name in history.artifact_names():
        variant = naming.variant_of(name)
        if variant is None:
            continue
        points = [
            SizePoint(
                date=day,
                variant=variant,
                size_bytes=sighting.artifact.size_in_bytes,
                run_id=sighting.run.run_id,
                head_sha=sighting.run.head_sha,
                base_sha=sighting.run.base_sha,
                artifact=name,
            )
            for day, sighting in sorted(history.pick(name).items())
        ]
        if points:
            series[variant] = points
    return series

"""The size series of a stretch of history, built once per run and shared by every consumer.

:class:`SizeSeries` maps each variant the artifact naming recognises to its
:class:`VariantSeries` (a date-sorted sequence of :class:`SizePoint`) and answers, for any
night, why a variant has no size (:class:`Night`). The report, the regression issues and
the dashboard all read the same object, so they cannot disagree about a night.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import overload

from wheel_size.history.history import History, Sighting, load_history
from wheel_size.history.model import RunRecord
from wheel_size.history.store import HistoryStore
from wheel_size.series.detect import creep_on, jump_on, jumps_between
from wheel_size.series.nights import Night, NightState, variant_family
from wheel_size.series.points import SizePoint, Step, point_on, previous_point, step_on
from wheel_size.series.thresholds import CreepSettings, Thresholds
from wheel_size.variants import ArtifactNaming

__all__ = ["SizeSeries", "VariantSeries", "load_series"]


class VariantSeries(Sequence[SizePoint]):
    """One variant's nights with a size, oldest first, at most one per night.

    Per night the latest run that has the artifact wins (``History.pick``); its run id,
    head SHA and base SHA travel with the point, so a jump knows its commit window.
    """

    def __init__(self, variant: str, artifact: str, sightings: Mapping[dt.date, Sighting]):
        self.variant = variant
        self.artifact = artifact
        self._sightings = dict(sorted(sightings.items()))
        self._points = tuple(
            SizePoint(
                date=day,
                variant=variant,
                size_bytes=s.artifact.size_in_bytes,
                run_id=s.run.run_id,
                head_sha=s.run.head_sha,
                base_sha=s.run.base_sha,
                artifact=artifact,
            )
            for day, s in self._sightings.items()
        )

    @overload
    def __getitem__(self, index: int) -> SizePoint: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[SizePoint]: ...
    def __getitem__(self, index: int | slice) -> SizePoint | Sequence[SizePoint]:
        return self._points[index]

    def __len__(self) -> int:
        return len(self._points)

    def __repr__(self) -> str:
        return f"VariantSeries({self.variant!r}, {len(self)} nights)"

    def sighting(self, day: dt.date) -> Sighting | None:
        """The artifact and run behind ``day``'s point."""
        return self._sightings.get(day)

    def point_on(self, day: dt.date) -> SizePoint | None:
        return point_on(self._points, day)

    def previous(self, day: dt.date) -> SizePoint | None:
        return previous_point(self._points, day)

    def following(self, day: dt.date) -> SizePoint | None:
        return next((p for p in self._points if p.date > day), None)

    def step_on(self, day: dt.date) -> Step | None:
        return step_on(self._points, day)

    def jump_on(
        self, day: dt.date, thresholds: Thresholds, *, include_drops: bool = True
    ) -> Step | None:
        return jump_on(self._points, day, thresholds, include_drops=include_drops)

    def jumps(
        self,
        start: dt.date,
        end: dt.date,
        thresholds: Thresholds,
        *,
        include_drops: bool = True,
    ) -> list[Step]:
        return jumps_between(self._points, start, end, thresholds, include_drops=include_drops)

    def creep_on(self, day: dt.date, thresholds: Thresholds, creep: CreepSettings) -> Step | None:
        return creep_on(self._points, day, thresholds, creep)


class SizeSeries(Mapping[str, VariantSeries]):
    """Every variant of a loaded history; ``since``/``until`` say which nights it covers."""

    def __init__(
        self,
        history: History,
        naming: ArtifactNaming | None = None,
        *,
        since: dt.date | None = None,
        until: dt.date | None = None,
    ) -> None:
        self.history = history
        self.naming = naming or ArtifactNaming()
        self.since = since
        self.until = until
        self._by_date = history.by_date()
        sightings: dict[str, dict[dt.date, Sighting]] = {}
        names: dict[str, str] = {}
        for run in history.runs:  # oldest first: a later run of the night overwrites
            for name in dict.fromkeys(a.name for a in run.artifacts):
                variant = self.naming.variant_of(name)
                artifact = run.artifact(name)
                if variant is None or artifact is None:
                    continue
                names[variant] = name
                sightings.setdefault(variant, {})[run.date] = Sighting(run.date, artifact, run)
        self._variants = {v: VariantSeries(v, names[v], sightings[v]) for v in sorted(sightings)}

    def __getitem__(self, variant: str) -> VariantSeries:
        return self._variants[variant]

    def __iter__(self) -> Iterator[str]:
        return iter(self._variants)

    def __len__(self) -> int:
        return len(self._variants)

    def variant(self, variant: str) -> VariantSeries:
        """``variant``'s series; empty (not an error) when the history never saw it."""
        found = self._variants.get(variant)
        if found is not None:
            return found
        return VariantSeries(variant, self.naming.artifact(variant), {})

    def covers(self, since: dt.date, until: dt.date) -> bool:
        """Whether the loaded history spans ``since``..``until`` (for reuse by a later step)."""
        return (self.since is None or self.since <= since) and (
            self.until is None or until <= self.until
        )

    def runs_on(self, day: dt.date) -> tuple[RunRecord, ...]:
        return tuple(self._by_date.get(day, ()))

    def runs_between(self, since: dt.date, until: dt.date) -> list[RunRecord]:
        return [r for r in self.history.runs if since <= r.date <= until]

    def artifact_names(
        self, since: dt.date | None = None, until: dt.date | None = None
    ) -> list[str]:
        """Artifact names seen from ``since`` to ``until`` (what a variant is resolved against)."""
        lo, hi = since or dt.date.min, until or dt.date.max
        return sorted(
            {a.name for r in self.history.runs if lo <= r.date <= hi for a in r.artifacts}
        )

    def night(self, variant: str, day: dt.date) -> Night:
        """``day`` for ``variant``: its point, or no run / missing / failed / pending / renamed."""
        series = self.variant(variant)
        runs = self.runs_on(day)
        seen = series.sighting(day)
        if seen is not None:
            return Night(day, NightState.OK, series.point_on(day), seen.run, runs)
        if not runs:
            return Night(day, NightState.NO_RUN)
        reference = series.previous(day) or series.following(day)
        ref = series.sighting(reference.date) if reference is not None else None
        renamed = self._renamed_to(runs, variant, ref.run if ref is not None else None)
        if renamed:
            sizes = [a.size_in_bytes for r in runs for a in r.artifacts if a.name == renamed[0]]
            return Night(
                day,
                NightState.RENAMED,
                runs=runs,
                renamed_to=renamed,
                renamed_size_bytes=sizes[-1] if sizes else None,
            )
        if any(r.failed for r in runs):
            return Night(day, NightState.FAILED, runs=runs)
        if any(not r.completed and r.status is not None for r in runs):
            return Night(day, NightState.PENDING, runs=runs)
        return Night(day, NightState.MISSING, runs=runs)

    def nights(self, variant: str, days: Iterable[dt.date]) -> list[Night]:
        return [self.night(variant, day) for day in days]

    def _renamed_to(
        self, runs: Sequence[RunRecord], variant: str, reference: RunRecord | None
    ) -> tuple[str, ...]:
        """Names of the same family that night which the last night with our artifact lacked."""
        if reference is None:
            return ()
        before = {a.name for a in reference.artifacts}
        before |= {j.artifact for j in reference.jobs or () if j.artifact}
        family = variant_family(variant)
        out = set()
        for run in runs:
            # The artifacts, and the jobs listing (build time on): a job that built a new
            # name of the family names the rename even when its upload is not there.
            built = [j.artifact for j in run.jobs or () if j.artifact and j.conclusion == "success"]
            for name in [*(a.name for a in run.artifacts), *built]:
                other = self.naming.variant_of(name)
                same = other and other != variant and variant_family(other) == family
                if same and name not in before:
                    out.add(name)
        return tuple(sorted(out))


def load_series(
    store: HistoryStore,
    since: dt.date,
    until: dt.date,
    *,
    naming: ArtifactNaming | None = None,
    repository: str | None = None,
    workflow: str | int | None = None,
) -> SizeSeries:
    """Read ``since``..``until`` from ``store`` once and build every variant's series."""
    history = load_history(store, since, until, repository=repository, workflow=workflow)
    return SizeSeries(history, naming, since=since, until=until)

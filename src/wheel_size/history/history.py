"""A loaded stretch of history and the questions analysis asks of it."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wheel_size.history.model import ArtifactRecord, RunRecord
from wheel_size.history.store import HistoryStore

__all__ = ["History", "Sighting", "load_history"]


@dataclass(frozen=True)
class Sighting:
    """An artifact as seen on one night, with the run it came from."""

    date: dt.date
    artifact: ArtifactRecord
    run: RunRecord


@dataclass(frozen=True)
class History:
    """Runs sorted by (date, created_at, run_id); read-only, cheap to query."""

    runs: tuple[RunRecord, ...]

    @classmethod
    def of(cls, runs: Iterable[RunRecord]) -> History:
        return cls(tuple(sorted(runs, key=lambda r: (r.date, r.created_at or "", r.run_id))))

    def by_date(self) -> dict[dt.date, list[RunRecord]]:
        out: dict[dt.date, list[RunRecord]] = defaultdict(list)
        for run in self.runs:
            out[run.date].append(run)
        return dict(out)

    def runs_on(self, day: dt.date) -> list[RunRecord]:
        return [r for r in self.runs if r.date == day]

    def artifact_names(self) -> list[str]:
        return sorted({a.name for r in self.runs for a in r.artifacts})

    def first_date(self) -> dt.date | None:
        return self.runs[0].date if self.runs else None

    def last_date(self) -> dt.date | None:
        return self.runs[-1].date if self.runs else None

    def pick(self, artifact: str) -> dict[dt.date, Sighting]:
        """Per night, the artifact from the latest run that has it (several runs a night).

        "Latest" is the newest created run, then the highest attempt: a re-run after a
        failed build is the one people shipped.
        """
        out: dict[dt.date, Sighting] = {}
        for run in self.runs:  # sorted oldest first, so later runs overwrite
            a = run.artifact(artifact)
            if a is not None:
                out[run.date] = Sighting(run.date, a, run)
        return out

    def filtered(
        self, repository: str | None = None, workflows: Sequence[int | str] | None = None
    ) -> History:
        """Only the runs of one repository / workflow (a data branch may hold several)."""
        keep = []
        wanted = {str(w) for w in workflows} if workflows else None
        for r in self.runs:
            if repository and r.repository.lower() != repository.lower():
                continue
            if wanted is not None and not (
                str(r.workflow_id) in wanted
                or (r.workflow_path or "").split("@")[0].rsplit("/", 1)[-1] in wanted
                or (r.workflow_path or "").split("@")[0] in wanted
            ):
                continue
            keep.append(r)
        return History(tuple(keep))


def load_history(
    store: HistoryStore,
    since: dt.date | None = None,
    until: dt.date | None = None,
    *,
    repository: str | None = None,
    workflow: int | str | None = None,
) -> History:
    """Read the runs between ``since`` and ``until`` (inclusive) from ``store``."""
    history = History.of(store.read_runs(since, until))
    if repository or workflow is not None:
        history = history.filtered(repository, [workflow] if workflow is not None else None)
    return history

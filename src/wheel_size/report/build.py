"""Load the history a report needs and build one report per requested variant."""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Sequence

from wheel_size.dates import DateRange
from wheel_size.errors import InputError
from wheel_size.history.history import load_history
from wheel_size.history.store import HistoryStore
from wheel_size.report.analyze import LOOKBACK_DAYS, build_report
from wheel_size.report.model import Report, Thresholds
from wheel_size.variants import ArtifactNaming

__all__ = ["reports_for", "reports_from_store"]


def reports_for(
    store: HistoryStore,
    variants: Sequence[str],
    periods: Sequence[DateRange],
    *,
    naming: ArtifactNaming | None = None,
    thresholds: Thresholds | None = None,
    rollback_days: int = 10,
    repository: str | None = None,
    workflow: str | int | None = None,
) -> list[Report]:
    """Reports for ``variants`` (as users type them) over ``periods``.

    Unknown variants fail with the list of variants the history does have.
    """
    naming = naming or ArtifactNaming()
    since = min(p.start for p in periods) - dt.timedelta(days=LOOKBACK_DAYS)
    until = max(p.end for p in periods)
    history = load_history(store, since, until, repository=repository, workflow=workflow)
    in_range = [r for r in history.runs if any(r.date in p for p in periods)]
    if not in_range:
        span = ", ".join(str(p) for p in periods)
        raise InputError(f"{store.description} has no runs in {span}")
    seen = history.artifact_names()
    resolved: list[str] = []
    for text in variants:
        v = naming.resolve(text, seen)
        if v not in resolved:
            resolved.append(v)
    return [
        build_report(
            history,
            v,
            periods,
            naming=naming,
            thresholds=thresholds,
            rollback_days=rollback_days,
            repository=repository or in_range[0].repository,
        )
        for v in resolved
    ]


def reports_from_store(
    store: HistoryStore, args: argparse.Namespace, periods: Sequence[DateRange]
) -> list[Report]:
    """:func:`reports_for` with the shared command-line options."""
    from wheel_size.cli.options import naming_from_args, thresholds_from_args, variants_from_args

    return reports_for(
        store,
        variants_from_args(args),
        periods,
        naming=naming_from_args(args),
        thresholds=thresholds_from_args(args),
        rollback_days=args.rollback_days,
        repository=getattr(args, "repo", None),
        workflow=getattr(args, "workflow", None),
    )

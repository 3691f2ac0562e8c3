"""A generated history in a real store, reported by the real report builder.

Nightly runs (tests/history_factory.py) go into a DirectoryStore; ``reports_for`` turns them
into the report objects ``track`` and ``report --format json`` produce, so the dashboard is
tested on the shapes it will really get.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

from history_factory import run
from wheel_size.dates import DateRange
from wheel_size.history.store import DirectoryStore
from wheel_size.report.build import reports_for
from wheel_size.report.document import ReportDocument
from wheel_size.report.model import Thresholds

START = dt.date(2025, 9, 1)
DAYS = 75
JUMP = START + dt.timedelta(days=24)
ROLLBACK = JUMP + dt.timedelta(days=4)
RENAMED = [START + dt.timedelta(days=d) for d in (50, 51, 52)]
NO_RUN = [START + dt.timedelta(days=d) for d in (12, 13)]
WITHOUT_ARTIFACT = START + dt.timedelta(days=40)


def generated_store(root: Path, seed: int = 11) -> DirectoryStore:
    rng = random.Random(seed)
    sizes = {"cpu": 190.0, "cuda12_8": 880.0, "xpu": 420.0}
    runs = []
    for offset in range(DAYS):
        day = START + dt.timedelta(days=offset)
        for variant in sizes:
            sizes[variant] += rng.uniform(-0.03, 0.09)
        if day == JUMP:
            sizes["cuda12_8"] += 82
        if day == ROLLBACK:
            sizes["cuda12_8"] -= 80
        if day in NO_RUN:
            continue
        night = dict(sizes)
        if day in RENAMED:
            night["cuda12_9"] = night.pop("cuda12_8") + 350
        if day == WITHOUT_ARTIFACT:
            night.pop("xpu")
        runs.append(run(day, night))
    store = DirectoryStore(root)
    store.write_runs(runs)
    return store


def generated_reports(root: Path) -> list[ReportDocument]:
    store = generated_store(root)
    reports = reports_for(
        store,
        ["CUDA 12.8", "cpu", "xpu"],
        [DateRange(START, START + dt.timedelta(days=DAYS - 1))],
        thresholds=Thresholds(mb=1.0, pct=None),
    )
    return [report.to_dict() for report in reports]

"""The dashboard says when it was generated — the true time, from the run's clock — and
which night it shows; it used to say "generated" with the newest night's date. A re-run that
changes nothing but the time rewrites nothing (no empty commit on the data branch)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from history_factory import run
from wheel_size.collect import WorkflowSource
from wheel_size.history import DirectoryStore
from wheel_size.track import TrackOptions, track

NIGHTS = [dt.date(2025, 10, 9), dt.date(2025, 10, 10), dt.date(2025, 10, 11)]
NOW = dt.datetime(2026, 11, 27, 10, 42, tzinfo=dt.timezone.utc)


def _track(root: Path, clock: dt.datetime, sizes: tuple[float, ...]) -> list[str]:
    options = TrackOptions(
        WorkflowSource("pytorch/pytorch", "21257348", "nightly"),
        variants=["cpu"],
        records=[run(day, {"cpu": mb}) for day, mb in zip(NIGHTS, sizes, strict=False)],
        collect=False,
        dashboard=True,
        clock=lambda: clock,
    )
    return list(track(DirectoryStore(root), options, today=NIGHTS[len(sizes) - 1]).write.changed)


def test_generated_is_the_clock_and_the_night_is_named(tmp_path: Path) -> None:
    assert "index.html" in _track(tmp_path, NOW, (180.0, 180.5))
    page = (tmp_path / "index.html").read_text()
    assert 'generated <span class="generated">2026-11-27 10:42 UTC</span>' in page
    assert "nights up to 2025-10-10" in page
    assert "generated 2025-10-10" not in page


def test_a_rerun_changes_nothing_but_a_new_night_restamps(tmp_path: Path) -> None:
    _track(tmp_path, NOW, (180.0, 180.5))
    later = NOW + dt.timedelta(hours=3)
    assert "index.html" not in _track(tmp_path, later, (180.0, 180.5))
    assert "2026-11-27 10:42 UTC" in (tmp_path / "index.html").read_text()
    assert "index.html" in _track(tmp_path, later, (180.0, 180.5, 181.0))
    page = (tmp_path / "index.html").read_text()
    assert "2026-11-27 13:42 UTC" in page and "nights up to 2025-10-11" in page

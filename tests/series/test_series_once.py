"""``track``: the history is read once per run, and the issue step reads the same series.

The nightly job runs in-process against the fake GitHub (real HTTP) and a real history
directory; a spy on ``DirectoryStore.read_runs`` (the real read still happens) records
which stretches of history were read.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakegithub import FakeGitHub
from regression_world import make_nightly_repo
from wheel_size.cli.main import main
from wheel_size.history import DirectoryStore
from wheel_size.history.model import RunRecord

Reads = list[tuple[dt.date | None, dt.date | None]]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[Reads]:
    seen: Reads = []
    real = DirectoryStore.read_runs

    def spy(
        self: DirectoryStore, since: dt.date | None = None, until: dt.date | None = None
    ) -> list[RunRecord]:
        seen.append((since, until))
        return real(self, since, until)

    monkeypatch.setattr(DirectoryStore, "read_runs", spy)
    yield seen


def track(fake: FakeGitHub, history: Path, day: str, *extra: str) -> int:
    argv = ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--branch", "nightly"]
    argv += ["--history", str(history), "--date", day, "--variant", "cuda12_8", *extra]
    return main(argv)


@pytest.fixture
def world(
    tmp_path: Path, fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    make_nightly_repo(tmp_path, fake_github)
    for name, value in fake_github.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    history = tmp_path / "history"
    for day in ("2025-10-09", "2025-10-10"):
        assert track(fake_github, history, day) == 0
    yield history


def analysis_reads(seen: Reads, night: dt.date) -> Reads:
    """Reads other than the collector's "which runs do we have that night" check."""
    return [r for r in seen if r != (night, night)]


def test_issue_night_reads_the_history_once(
    world: Path, fake_github: FakeGitHub, reads: Reads
) -> None:
    night = dt.date(2025, 10, 11)
    assert track(fake_github, world, night.isoformat(), "--create-issues", "--no-evidence") == 0
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    assert issue.title == "Wheel size: cuda12_8 +4.3 MB on 2025-10-11"
    # One read serves the report and the issues; it reaches back as far as the issues need.
    ahead = night + dt.timedelta(days=31)  # the report looks ahead: has the history ended?
    assert analysis_reads(reads, night) == [(night - dt.timedelta(days=45), ahead)]


def test_dashboard_report_and_issues_share_one_read(
    world: Path, fake_github: FakeGitHub, reads: Reads
) -> None:
    night = dt.date(2025, 10, 10)
    extra = ("--create-issues", "--no-evidence", "--dashboard", "--dashboard-days", "90")
    assert track(fake_github, world, night.isoformat(), *extra) == 0
    assert (world / "index.html").exists()
    # the chart's window (90 days and the previous-night lookback) is the widest need
    ahead = night + dt.timedelta(days=31)
    assert analysis_reads(reads, night) == [(night - dt.timedelta(days=89 + 31), ahead)]

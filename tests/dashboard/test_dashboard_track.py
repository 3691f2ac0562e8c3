"""``track --dashboard``: the charts show ``dashboard_days`` of history, not just the few
days of the nightly report."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from history_factory import run
from wheel_size.collect import WorkflowSource
from wheel_size.history import DirectoryStore
from wheel_size.track import TrackOptions, track

START = dt.date(2025, 6, 1)


def test_dashboard_reaches_further_back_than_the_report(tmp_path: Path) -> None:
    records = [
        run(START + dt.timedelta(days=i), {"cpu": 180 + i * 0.01, "cuda12_8": 870 + i * 0.02})
        for i in range(120)
    ]
    store = DirectoryStore(tmp_path / "history")
    options = TrackOptions(
        WorkflowSource("pytorch/pytorch", "21257348", "nightly"),
        variants=["cpu", "cuda12_8"],
        records=records,
        collect=False,
        report_days=7,
        dashboard=True,
        dashboard_days=90,
    )
    result = track(store, options, today=START + dt.timedelta(days=119))
    assert [len(r.days) for r in result.reports] == [7, 7]
    html = (tmp_path / "history" / "index.html").read_text()
    first_shown = (START + dt.timedelta(days=30)).isoformat()
    for svg in re.findall(r'<svg class="chart".*?</svg>', html, re.S):
        assert svg.count('<circle class="day ok"') == 90
        assert f"<title>{first_shown}:" in svg
    assert "index.html" in result.write.changed


def test_a_run_without_issues_keeps_the_links_the_history_has(tmp_path: Path) -> None:
    """Issue 29: a run without --create-issues (no issue listing, no links of its own)
    used to redraw the page with 0 issue links; the history's notes keep them."""
    from wheel_size.history.investigations import InvestigationNote, write_notes

    records = [
        run(START + dt.timedelta(days=i), {"cpu": 180 + (3 if i >= 5 else 0)}) for i in range(8)
    ]
    store = DirectoryStore(tmp_path / "history")
    url = "https://github.com/pytorch/pytorch/issues/41"
    jump_day = (START + dt.timedelta(days=5)).isoformat()
    write_notes(store, [InvestigationNote(f"jump/cpu/{jump_day}", 41, url)], "notes")
    options = TrackOptions(
        WorkflowSource("pytorch/pytorch", "21257348", "nightly"),
        variants=["cpu"],
        records=records,
        collect=False,
        report_days=7,
        dashboard=True,
        dashboard_days=30,
    )
    track(store, options, today=START + dt.timedelta(days=7))
    html = (tmp_path / "history" / "index.html").read_text()
    assert f'href="{url}"' in html

"""The dashboard drawn from a generated history through the real store and report builder."""

from __future__ import annotations

import re
from pathlib import Path

from dashboard_store import JUMP, NO_RUN, RENAMED, ROLLBACK, WITHOUT_ARTIFACT, generated_reports

from wheel_size.dashboard import render_dashboard
from wheel_size.dashboard.chart import build_chart


def test_report_objects_draw_the_events_of_the_history(tmp_path: Path) -> None:
    reports = {r["variant"]: r for r in generated_reports(tmp_path / "history")}
    assert set(reports) == {"cuda12_8", "cpu", "xpu"}

    cuda = build_chart(reports["cuda12_8"])
    assert [j.date for j in cuda.jumps] == [JUMP.isoformat(), ROLLBACK.isoformat()]
    bands = {b.date: b.status for b in cuda.bands}
    assert all(bands[d.isoformat()] == "no_run" for d in NO_RUN)
    assert all(bands[d.isoformat()] == "renamed" for d in RENAMED)
    renamed = [b for b in cuda.bands if b.status == "renamed"]
    assert len(renamed) == 3 and all("cuda12_9" in (b.artifact or "") for b in renamed)

    xpu = build_chart(reports["xpu"])
    assert {b.date: b.status for b in xpu.bands}[WITHOUT_ARTIFACT.isoformat()] == "missing"
    assert build_chart(reports["cpu"]).jumps == []


def test_page_from_the_real_report_links_jumps_and_runs(tmp_path: Path) -> None:
    reports = generated_reports(tmp_path / "history")
    links = {("cuda12_8", JUMP.isoformat()): "https://github.com/pytorch/pytorch/issues/1501"}
    html = render_dashboard(reports, links, repository="pytorch/pytorch")
    assert html.count('<svg class="chart"') == 3
    assert html.count('href="https://github.com/pytorch/pytorch/issues/1501"') == 2
    assert re.search(r'href="https://github.com/pytorch/pytorch/actions/runs/\d+"', html)
    assert "Rollback: +" in html and "an artifact rename" in html

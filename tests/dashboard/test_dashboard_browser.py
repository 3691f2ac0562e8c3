"""Open the dashboard in headless Chromium: it must draw, and the console must stay quiet.

The page has no script and a Content-Security-Policy of ``default-src 'none'``, so any
attempt to load something from outside (a CDN) shows up as a console message, which fails
the test; a control page proves that such a message is really seen.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from dashboard_history import generated_report
from dashboard_store import JUMP, generated_reports
from png_pixels import count_pixels

from wheel_size.dashboard import render_dashboard, write_dashboard
from wheel_size.report.document import ReportDocument

WIDTH, HEIGHT = 1000, 1000


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("chromium not installed (Debian package 'chromium'; .ci/run installs it)")


def _run(page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            _chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            *extra,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _console(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The real pipeline (store -> report builder -> page) plus a hand-made report whose
    # artifact name and observation text are hostile HTML.
    reports: list[Any] = [*generated_reports(tmp_path_factory.mktemp("history"))]
    reports.append(generated_report("rocm6_4", base_mb=3000, seed=3, hostile=True))
    links = {("cuda12_8", JUMP.isoformat()): "https://github.com/pytorch/pytorch/issues/150647"}
    html = render_dashboard(reports, links, repository="pytorch/pytorch")
    path = tmp_path_factory.mktemp("site") / "index.html"
    write_dashboard(path, html)
    return path


@pytest.mark.slow
def test_dashboard_draws_in_chromium(page: Path, tmp_path: Path) -> None:
    shot = Path(os.environ.get("WHEEL_SIZE_DASHBOARD_SHOT", tmp_path / "dashboard.png"))
    result = _run(
        page, tmp_path / "profile", f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}"
    )
    assert shot.is_file(), result.stderr[-2000:]
    assert _console(result.stderr) == []
    data = shot.read_bytes()
    not_white = count_pixels(data, lambda r, g, b: r < 240 or g < 240 or b < 240)
    assert not_white > 0.02 * WIDTH * HEIGHT
    # The history line (#0969da) and the red jump markers (#cf222e) are really painted.
    blue = count_pixels(data, lambda r, g, b: b > 180 and r < 60 and 80 < g < 140)
    red = count_pixels(data, lambda r, g, b: r > 180 and g < 70 and b < 80)
    assert blue > 1500
    assert red > 100


def test_charts_are_in_the_dom_and_console_is_clean(page: Path, tmp_path: Path) -> None:
    result = _run(page, tmp_path / "profile", "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    assert len(re.findall(r'<svg class="chart"', dom)) == 4
    assert len(re.findall(r"<path class=\"history\"", dom)) >= 2
    assert 'href="https://github.com/pytorch/pytorch/issues/150647"' in dom
    assert "<script" not in dom and "<img" not in dom
    assert _console(result.stderr) == []


def test_a_page_that_loads_from_a_cdn_is_caught(page: Path, tmp_path: Path) -> None:
    # Control: the same page with an external stylesheet must produce a console message,
    # or the clean-console assertions above prove nothing.
    bad = tmp_path / "bad.html"
    bad.write_text(
        page.read_text().replace(
            "</head>", '<link rel="stylesheet" href="https://cdn.example.invalid/c.css"></head>'
        )
    )
    result = _run(bad, tmp_path / "profile", "--dump-dom")
    assert any("Content Security Policy" in line for line in _console(result.stderr))


def _history(root: Path, nights: int, seed: int) -> list[ReportDocument]:
    """``nights`` stored nights of three variants, charted over a 365-day window ending at
    the newest night, as ``track --dashboard`` does with its default --dashboard-days."""
    import datetime as dt
    import random

    from history_factory import run
    from wheel_size.dates import DateRange
    from wheel_size.history.store import DirectoryStore
    from wheel_size.report.build import reports_for
    from wheel_size.report.model import Thresholds

    rng = random.Random(seed)
    last = dt.date(2026, 3, 10)
    first = last - dt.timedelta(days=nights - 1)
    sizes = {"cpu": 190.0, "cuda12_8": 880.0, "rocm7_0": 4300.0}
    runs = []
    for offset in range(nights):
        for variant in sizes:
            sizes[variant] += rng.uniform(-0.05, 0.1)
            if rng.random() < 0.04:
                sizes[variant] += rng.choice([-1, 1]) * rng.uniform(1.5, 30)
        runs.append(run(first + dt.timedelta(days=offset), dict(sizes)))
    store = DirectoryStore(root)
    store.write_runs(runs)
    window = DateRange(last - dt.timedelta(days=364), last)
    reports = reports_for(store, list(sizes), [window], thresholds=Thresholds(mb=1.0))
    return [r.to_dict() for r in reports]


@pytest.mark.slow
@pytest.mark.parametrize(("nights", "seed"), [(20, 1), (365, 2)], ids=["20 nights", "365 nights"])
def test_dashboard_fits_the_history_that_exists(nights: int, seed: int, tmp_path: Path) -> None:
    reports = _history(tmp_path / "history", nights, seed)
    for report in reports:
        days = report["days"]
        assert len(days) == nights  # not 365 days with the ones before tracking as gaps
        assert not any(o["kind"] == "holiday_gap" for o in report["observations"])
    page = tmp_path / "index.html"
    write_dashboard(page, render_dashboard(reports, repository="pytorch/pytorch"))
    folder = os.environ.get("WHEEL_SIZE_DASHBOARD_SHOT_DIR")
    shot = Path(folder) / f"dashboard-{nights}.png" if folder else tmp_path / "shot.png"
    result = _run(
        page, tmp_path / "profile", f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}"
    )
    assert shot.is_file(), result.stderr[-2000:]
    assert _console(result.stderr) == []
    data = shot.read_bytes()
    blue = count_pixels(data, lambda r, g, b: b > 180 and r < 60 and 80 < g < 140)
    assert blue > 800  # the history lines are painted
    html = page.read_text()
    assert "size (MB)" in html
    assert ">holiday_gap<" not in html and ">stair_step<" not in html  # kinds in words

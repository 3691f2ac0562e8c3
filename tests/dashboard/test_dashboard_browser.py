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

import pytest
from dashboard_history import generated_report
from dashboard_store import JUMP, generated_reports
from png_pixels import count_pixels

from wheel_size.dashboard import render_dashboard, write_dashboard

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
    reports = generated_reports(tmp_path_factory.mktemp("history"))
    reports.append(generated_report("rocm6_4", base_mb=3000, seed=3, hostile=True))
    links = {("cuda12_8", JUMP.isoformat()): "https://github.com/pytorch/pytorch/issues/150647"}
    html = render_dashboard(reports, links, repository="pytorch/pytorch")
    path = tmp_path_factory.mktemp("site") / "index.html"
    write_dashboard(path, html)
    return path


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

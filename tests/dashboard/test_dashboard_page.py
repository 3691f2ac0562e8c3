from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from dashboard_history import generated_report

from cli_runner import run_main
from wheel_size.dashboard import (
    issue_links_from_json,
    render_dashboard,
    reports_from_json,
    write_dashboard,
)
from wheel_size.errors import InputError
from wheel_size.render import render

FIXED = dt.datetime(2025, 12, 1, 6, 0, tzinfo=dt.timezone.utc)


def test_every_text_from_the_api_is_escaped() -> None:
    html = render_dashboard([generated_report("cpu", hostile=True)], generated_at=FIXED)
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_html_templates_are_autoescaped_by_name() -> None:
    # dashboard.html.j2 ends in .j2: escaping must not depend on someone remembering |e.
    html = render_dashboard(
        [{"variant": "<b>v</b>", "artifact": "a", "days": [], "jumps": []}], generated_at=FIXED
    )
    assert "<b>v</b>" not in html and "&lt;b&gt;v&lt;/b&gt;" in html


def test_page_is_self_contained() -> None:
    html = render_dashboard([generated_report()], generated_at=FIXED)
    assert "default-src 'none'" in html
    for needle in ("<script", 'src="http', 'href="//', "@import", "<link"):
        assert needle not in html


def test_one_chart_per_variant_with_jumps_linked_to_issues() -> None:
    cuda, cpu = generated_report(), generated_report("cpu", base_mb=180, seed=3)
    date = cuda["jumps"][0]["date"]
    links = {("cuda12_8", date): "https://github.com/o/r/issues/42"}
    html = render_dashboard([cuda, cpu], links, repository="o/r", generated_at=FIXED)
    assert html.count('<svg class="chart"') == 2
    assert html.count('href="https://github.com/o/r/issues/42"') == 2  # chart marker + table
    assert 'href="https://github.com/o/r/actions/runs/' in html
    assert html.count('class="jump up"') + html.count('class="jump down"') == len(
        cuda["jumps"]
    ) + len(cpu["jumps"])
    assert "artifact renamed" in html and "no nightly run" in html
    assert "2025-12-01 06:00 UTC" in html


def test_links_are_looked_up_by_artifact_name_too() -> None:
    report = generated_report()
    date = report["jumps"][1]["date"]
    links = {(report["artifact"], date): "https://github.com/o/r/issues/9"}
    html = render_dashboard([report], links, generated_at=FIXED)
    assert 'href="https://github.com/o/r/issues/9"' in html


def test_unsafe_links_are_dropped() -> None:
    report = generated_report()
    date = report["jumps"][0]["date"]
    html = render_dashboard(
        [report], {("cuda12_8", date): "javascript:alert(1)"}, generated_at=FIXED
    )
    assert "javascript:" not in html


def test_issue_links_from_numbers_and_urls() -> None:
    links = issue_links_from_json(
        {
            "issues": [
                {"variant": "cpu", "date": "2025-10-11", "number": 12},
                {"variant": "xpu", "date": "2025-10-12", "url": "https://ghe.example/o/r/issues/3"},
            ]
        },
        repository="o/r",
        server_url="https://github.com/",
    )
    assert links == {
        ("cpu", "2025-10-11"): "https://github.com/o/r/issues/12",
        ("xpu", "2025-10-12"): "https://ghe.example/o/r/issues/3",
    }


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([{"variant": "cpu", "date": "11 Oct", "number": 1}], "YYYY-MM-DD"),
        ([{"variant": "cpu", "date": "2025-10-11", "url": "ftp://x/y"}], "no http(s) 'url'"),
        ([{"variant": "cpu", "date": "2025-10-11", "number": 3}], "no http(s) 'url'"),
        ("nope", "expected a list"),
    ],
)
def test_bad_issue_links_are_named(data: object, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        issue_links_from_json(data, source="issues.json")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "non-empty list"),
        ([1], "report 1 is not a JSON object"),
        ({"variant": "cpu"}, "report 1 has no 'days' list"),
        ({"days": []}, "neither a variant nor an artifact"),
    ],
)
def test_bad_reports_are_named(data: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        reports_from_json(data, source="r.json")


def test_reports_from_json_accepts_the_three_shapes() -> None:
    one = generated_report()
    assert reports_from_json(one) == [one]
    assert reports_from_json([one, one]) == [one, one]
    assert reports_from_json({"reports": [one]}) == [one]


def test_write_is_atomic_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "site" / "index.html"
    write_dashboard(target, "<p>one</p>")
    write_dashboard(target, "<p>two</p>")
    assert target.read_text() == "<p>two</p>"
    assert [p.name for p in target.parent.iterdir()] == ["index.html"]


def test_cli_writes_the_page(tmp_path: Path) -> None:
    report = generated_report()
    (tmp_path / "r.json").write_text(json.dumps([report, generated_report("xpu", seed=5)]))
    (tmp_path / "issues.json").write_text(
        json.dumps([{"variant": "cuda12_8", "date": report["jumps"][0]["date"], "number": 5}])
    )
    out = tmp_path / "pages" / "index.html"
    result = run_main(
        [
            "dashboard",
            str(tmp_path / "r.json"),
            "--issues",
            str(tmp_path / "issues.json"),
            "--repo",
            "pytorch/pytorch",
            "--out",
            str(out),
        ]
    )
    assert result.returncode == 0, result.stderr
    html = out.read_text()
    assert html.count('<svg class="chart"') == 2
    assert 'href="https://github.com/pytorch/pytorch/issues/5"' in html


def test_cli_bad_json_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text("{not json")
    out = tmp_path / "index.html"
    result = run_main(["dashboard", str(tmp_path / "r.json"), "--out", str(out)])
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("wheel-size: error: ")
    assert "r.json: not valid JSON" in lines[0]
    assert not out.exists()


def test_an_empty_history_renders_a_placeholder() -> None:
    html = render(
        "dashboard.html.j2",
        title="t",
        repository=None,
        repository_url=None,
        generated="now",
        views=[],
    )
    assert "No history yet" in html


def test_a_variant_without_any_size_still_renders() -> None:
    days = [
        {"date": "2025-10-01", "size_mb": None, "delta_mb": None, "status": "no_run"},
        {"date": "2025-10-02", "size_mb": None, "delta_mb": None, "status": "failed", "run_id": 5},
    ]
    report = {"variant": "xpu", "artifact": "a", "start": None, "end": None, "change_mb": None,
              "change_pct": None, "jumps": [], "observations": [], "days": days}  # fmt: skip
    html = render_dashboard([report], repository="o/r", generated_at=FIXED)
    assert "no size recorded in this range" in html
    assert html.count('<rect class="band ') == 2
    assert "run failed" in html


def test_a_multi_month_page_gives_per_month_subtotals() -> None:
    """Issue 29: the seed's October +11.7, November +1.2, December +1.8 MB, not one total."""
    from conftest import REPO_ROOT
    from wheel_size.dates import parse_month
    from wheel_size.history import DirectoryStore
    from wheel_size.report.build import reports_for

    months = [parse_month(m) for m in ("2025-10", "2025-11", "2025-12")]
    (report,) = reports_for(
        DirectoryStore(REPO_ROOT / "examples" / "history"), ["cuda12_8"], months
    )
    html = render_dashboard([report.to_dict()], generated_at=FIXED)
    assert "2025-10 <strong>+11.7 MB</strong>" in html
    assert "2025-11 <strong>+1.2 MB</strong>" in html
    assert "2025-12 <strong>+1.8 MB</strong>" in html

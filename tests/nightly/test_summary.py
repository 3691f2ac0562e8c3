"""The step summary answers "did last night grow?" first (issue 14, item 2), rendered from
fixtures: records ingested without GitHub, through the real nightly job into a real store."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

from conftest import REPO_ROOT
from history_factory import run
from wheel_size.collect import WorkflowSource
from wheel_size.history import DirectoryStore
from wheel_size.history.model import RunRecord
from wheel_size.nightly import NightlyOptions, nightly_outputs, nightly_summary, run_nightly
from wheel_size.regressions.issues.sync import SyncResult
from wheel_size.track import TrackOptions, TrackResult

START = dt.date(2025, 7, 1)
SOURCE = WorkflowSource("pytorch/pytorch", "21257348", "nightly")


def _nights(count: int, *, grow_on: int, grow_mb: float, last_jump: float) -> list[RunRecord]:
    """``count`` nights of cpu, cuda12_8 and rocm6_4: cuda12_8 grows ``grow_mb`` on night
    ``grow_on`` and ``last_jump`` on the last night, when rocm6_4 has no artifact."""
    out = []
    for i in range(count):
        cuda = 860.0 + (grow_mb if i >= grow_on else 0.0) + (last_jump if i == count - 1 else 0)
        sizes = {"cpu": 175.0 + i * 0.001, "cuda12_8": cuda}
        if i != count - 1:
            sizes["rocm6_4"] = 4214.0
        out.append(run(START + dt.timedelta(days=i), sizes))
    return out


def _result(tmp_path: Path, records: list[RunRecord], **track: object) -> TrackResult:
    options = TrackOptions(
        SOURCE,
        variants=("cuda12_8", "cpu", "rocm6_4"),
        records=tuple(records),
        collect=False,
        **track,  # type: ignore[arg-type]
    )
    return run_nightly(DirectoryStore(tmp_path / "h"), NightlyOptions(options), None)


def test_headline_first_then_issues_nights_and_collapsed_details(tmp_path: Path) -> None:
    result = _result(tmp_path, _nights(90, grow_on=20, grow_mb=4.9, last_jump=4.0))
    last = START + dt.timedelta(days=89)
    early = START + dt.timedelta(days=20)
    # A catch-up: the +4.9 MB of night 20 is far outside the 30-day report, flagged anyway.
    assert [(j.variant, str(j.date), j.delta_mb) for j in result.jumps] == [
        ("cuda12_8", str(early), 4.9),
        ("cuda12_8", str(last), 4.0),
    ]
    assert result.regression
    result.issues = SyncResult(created=[123], updated=[99], events={f"jump/cuda12_8/{last}": 123})
    text = nightly_summary(result, repository="pytorch/pytorch", report_name="r.md")
    lines = text.splitlines()
    assert lines[0] == "## Wheel sizes: pytorch/pytorch"
    assert lines[2] == f"### Last night, {last}"
    run_url = "https://github.com/pytorch/pytorch/actions/runs/"
    assert lines[4] == (
        "- `cuda12_8` grew by 4.0 MB (864.9 → 868.9 MB), "
        "[issue #123](https://github.com/pytorch/pytorch/issues/123), "
        f"run [{result.jumps[1].run_id}]({run_url}{result.jumps[1].run_id})"
    )
    assert "- 1 other variant flat (within ±1 MB): `cpu`" in lines
    assert "- No size that night: `rocm6_4`" in lines
    earlier = text.index("### Earlier nights this run collected")
    assert f"- {early}: `cuda12_8` grew by 4.9 MB (860.0 → 864.9 MB)" in text[earlier:]
    issues = text.index("### Regression issues")
    assert (
        f"- Opened [#123](https://github.com/pytorch/pytorch/issues/123): cuda12_8, jump of {last}"
        in text
    )
    assert "- Updated [#99](https://github.com/pytorch/pytorch/issues/99)" in text
    nights = text.index("### Nights collected")
    assert (
        f"90 nights ({START} to {last}) from 90 runs; 60 of them before the report's window" in text
    )
    details = text.index("<details><summary>Full report (r.md)</summary>")
    assert text.index("### Significant jumps") > details > nights > issues > earlier
    # It renders as Markdown with the report inside the collapsed block.
    html = MarkdownIt("commonmark").render(text)
    assert html.index("<details>") < html.index("<h3>Significant jumps</h3>")


def test_nothing_moved_and_a_shrink(tmp_path: Path) -> None:
    flat = _result(tmp_path / "a", _nights(5, grow_on=99, grow_mb=0, last_jump=0.2))
    text = nightly_summary(flat, repository="pytorch/pytorch")
    assert "- 2 variants flat (within ±1 MB): `cuda12_8`, `cpu`" in text
    assert "Earlier nights" not in text and "Regression issues" not in text
    shrink = _result(tmp_path / "b", _nights(5, grow_on=99, grow_mb=0, last_jump=-29.7))
    text = nightly_summary(shrink, repository="pytorch/pytorch")
    assert "- `cuda12_8` shrank by 29.7 MB (860.0 → 830.3 MB), run [" in text
    assert not shrink.regression  # a drop is reported, not alarmed


def test_outputs_are_the_names_action_yml_declares(tmp_path: Path) -> None:
    result = _result(tmp_path, _nights(40, grow_on=5, grow_mb=4.9, last_jump=0))
    result.issues = SyncResult(created=[7], updated=[3, 3])
    outputs = nightly_outputs(result)
    declared = yaml.safe_load((REPO_ROOT / "action.yml").read_text())["outputs"]
    assert set(outputs) <= set(declared)
    assert outputs["regression"] == "true" and outputs["jump-count"] == "1"
    assert outputs["issues-created"] == "7" and outputs["issues-updated"] == "3"
    assert json.loads(outputs["jumps"])[0]["date"] == str(START + dt.timedelta(days=5))


def test_a_variant_without_a_wheel_is_a_warning_and_a_summary_line(tmp_path: Path) -> None:
    """Issue 29: rocm6_4 has no artifact on the last night: the run warns (one line, the
    ``::warning::`` of the Action) and the summary says so; not an exit-0 silence."""
    result = _result(tmp_path, _nights(10, grow_on=3, grow_mb=0.0, last_jump=0.0))
    last = (START + dt.timedelta(days=9)).isoformat()
    line = f"no rocm6_4 wheel on {last} (the run finished without manywheel-py3_12-rocm6_4)"
    assert line in result.warnings
    text = nightly_summary(result, repository="pytorch/pytorch")
    assert f"- :warning: {line}" in text

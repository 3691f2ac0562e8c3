"""``wheel-size track --create-issues`` over nights without ``cuda12_8`` (issue 29 item 3):
each silent night is a warning in the run and a line of the step summary; three nightly
runs open one issue, not three, and not zero."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from cli_runner import run_main
from fakegithub import FakeGitHub
from nightly_world import VARIANTS, add_night, add_world

D0 = dt.date(2025, 10, 1)


def track(fake: FakeGitHub, history: Path, day: dt.date, *extra: str):  # type: ignore[no-untyped-def]
    args = ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--branch", "nightly"]
    args += ["--history", str(history), "--date", day.isoformat(), "--variant", "cuda12_8"]
    args += ["--variant", "cpu", "--no-evidence", *extra]
    return run_main(args, env=fake.env())


@pytest.mark.slow
def test_three_nights_without_a_variant_open_one_issue(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    wf = add_world(fake_github)
    without = {k: v for k, v in VARIANTS.items() if k != "cuda12_8"}
    for i in range(8):
        add_night(wf, D0 + dt.timedelta(days=i), variants=VARIANTS if i < 5 else without)
    history = tmp_path / "history"
    for i in range(5):
        assert track(fake_github, history, D0 + dt.timedelta(days=i)).returncode == 0
    # the first silent night: a warning, no issue (a run without --create-issues warns too)
    first = track(
        fake_github, history, D0 + dt.timedelta(days=5), "--output", str(tmp_path / "s.md")
    )
    assert first.returncode == 0, first.stderr
    assert "warning: no cuda12_8 wheel on 2025-10-06" in first.stderr
    for i in (6, 7):
        res = track(fake_github, history, D0 + dt.timedelta(days=i), "--create-issues")
        assert res.returncode == 0, res.stderr
        assert f"no cuda12_8 wheel on 2025-10-0{i + 1}" in res.stderr
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    assert issue.title == "No `cuda12_8` wheel since 2025-10-06"
    assert len(issue.comments) == 1  # the third night: one follow-up

"""The follow-up "the same files or sections moving back" (issue 18, point 5): the files and
sections an event moved are kept in the issue, and a later night that moves them back by a
comparable amount is told on that issue once (hysteresis), while other changes keep the
size from coming back. Pure rules first, then end to end against the fake GitHub."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from test_lifecycle_github import REPO, night, repo_for

from fakegithub import FakeGitHub
from regression_world import Change, World, build_world, points
from wheel_size.regressions.events import Event, Thresholds
from wheel_size.regressions.investigation import Investigation
from wheel_size.regressions.issues.alerts import AlertSettings
from wheel_size.regressions.issues.parts import (
    back_step,
    moved_back,
    moved_parts,
    parts_from_body,
    parts_marker,
    rearmed,
)
from wheel_size.regressions.issues.sync import IssueSettings
from wheel_size.series import SizePoint
from wheel_size.units import MB

CUDA = "torch/lib/libtorch_cuda.so"
FOO = "torch/lib/libfoo.so"


def _file(path: str, delta_mb: float, sections: Mapping[str, float] = {}) -> dict[str, Any]:
    old = 500 * MB
    return {
        "path": path,
        "status": "changed",
        "old_installed": old,
        "new_installed": old + round(delta_mb * MB),
        "sections": [
            {"name": name, "old_size": 400 * MB, "new_size": 400 * MB + round(mb * MB)}
            for name, mb in sections.items()
        ],
    }


def diff(*files: dict[str, Any]) -> dict[str, Any]:
    """A wheel diff's JSON, as the evidence worker writes it (one comparison)."""
    return {"old": "a.whl", "new": "b.whl", "files": list(files)}


EVENT_DIFF = diff(
    _file(CUDA, 10.0, {".nv_fatbin": 9.9}),
    _file("torch/lib/libsmall.so", 0.1),
)


def test_the_parts_are_the_files_and_sections_that_carried_the_change() -> None:
    parts = moved_parts(EVENT_DIFF)
    assert parts == {CUDA: 10 * MB, f"{CUDA}#.nv_fatbin": round(9.9 * MB)}
    marker = parts_marker("jump/cuda12_8/2025-10-11", parts)
    assert marker is not None
    assert parts_from_body([marker]) == {"jump/cuda12_8/2025-10-11": parts}


def test_a_path_a_marker_cannot_hold_is_left_out() -> None:
    hostile = diff(_file("torch/lib/x --> <b>.so", 8.0), _file(CUDA, 8.0))
    assert set(moved_parts(hostile)) == {CUDA}
    assert parts_marker("k", {"a b": 1}) is None


def test_moving_back_needs_the_same_parts_by_a_comparable_amount() -> None:
    parts = moved_parts(EVENT_DIFF)
    assert moved_back(parts, diff(_file(CUDA, -9.8, {".nv_fatbin": -9.7}), _file(FOO, 3.9)))
    # Another library leaving is another change; a tenth of the parts back is not theirs.
    assert moved_back(parts, diff(_file(FOO, -5.1))) is None
    assert moved_back(parts, diff(_file(CUDA, -1.0, {".nv_fatbin": -1.0}))) is None
    assert moved_back(parts, None) is None


def pt(day: int, mb: float) -> SizePoint:
    return SizePoint(dt.date(2025, 10, day), "cuda12_8", round(mb * MB))


EV = Event("jump", "cuda12_8", dt.date(2025, 10, 11), pt(10, 855.0), pt(11, 865.0))


def test_only_a_step_against_the_event_of_half_its_change_is_looked_at() -> None:
    assert back_step(EV, pt(14, 865.0), pt(15, 859.0))
    assert not back_step(EV, pt(14, 865.0), pt(15, 861.0))  # -4 MB: less than half of 10
    assert not back_step(EV, pt(14, 859.0), pt(15, 865.0))  # forward


def test_after_a_move_back_only_a_move_forward_rearms() -> None:
    series = [pt(15, 859.0), pt(16, 859.2), pt(17, 852.0), pt(18, 858.5), pt(19, 852.0)]
    told = dt.date(2025, 10, 15)
    assert rearmed(EV, series, None, series[2])
    assert not rearmed(EV, series, told, series[2])  # +0.2 since: a wobble
    assert rearmed(EV, series, told, series[4])  # +6.5 on Oct 18: half the change again


# End to end: threshold 8 MB; +10 MB on Oct 11 (libtorch_cuda.so); Oct 13 another library
# leaves (-5.1 MB) and comes back; Oct 15 the event's files move back (-9.9 MB) while
# another grows (+3.9): the size is not back (4 MB above), the files are; Oct 17 the diff
# says so again without a move forward in between; Oct 18 +6.5, Oct 19 back again.
SIZES = {
    "2025-10-10": 855.0,
    "2025-10-11": 865.0,
    "2025-10-12": 865.1,
    "2025-10-13": 860.0,
    "2025-10-14": 865.0,
    "2025-10-15": 859.0,
    "2025-10-16": 859.2,
    "2025-10-17": 852.0,
    "2025-10-18": 858.5,
    "2025-10-19": 852.0,
}
BACK = diff(_file(CUDA, -9.9, {".nv_fatbin": -9.8}), _file(FOO, 3.9))
NIGHT_DIFFS = {
    "2025-10-13": diff(_file(FOO, -5.1)),
    "2025-10-15": BACK,
    "2025-10-17": BACK,
    "2025-10-19": BACK,
}


def make_world(tmp_path: Path) -> World:
    changes = [Change(f"base {i}", {"README.md": f"{i}\n"}) for i in range(3)]
    changes += [Change("Add Half reduce kernels (#101)", {"aten/src/ATen/native/cuda/R.cu": "k"})]
    changes += [Change(f"Other change {i} (#{200 + i})", {f"o{i}.py": "x"}) for i in range(8)]
    nights = [(day, min(2 + i, len(changes) - 1), None) for i, day in enumerate(SIZES)]
    return build_world(tmp_path / "git", changes, nights)


def test_the_files_moving_back_are_told_once_on_their_own_issue(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    c = AlertSettings(thresholds=Thresholds(mb=8.0), creep=None, issues=IssueSettings())
    s = {"cuda12_8": points("cuda12_8", SIZES, w)}
    looked: list[str] = []

    def contents(before: SizePoint, after: SizePoint) -> Mapping[str, Any] | None:
        looked.append(after.date.isoformat())
        return NIGHT_DIFFS.get(after.date.isoformat())

    def enrich(inv: Investigation) -> Investigation:
        inv.evidence_json = {"diff": EVENT_DIFF}
        return inv

    number = night(repo, s, "2025-10-11", c, enrich=enrich).created[0]
    stored = fake_github.repo(REPO).issue(number)
    assert stored is not None
    assert f"parts=jump/cuda12_8/2025-10-11 {CUDA}=+{10 * MB}" in (stored.body or "")
    told = {}
    for day in list(SIZES)[2:]:
        result = night(repo, s, day, c, contents=contents)
        assert result.created == []
        told[day] = result.updated
    # Oct 13 (another library) is looked at and says nothing; Oct 17 is not looked at:
    # nothing moved forward since the move back of Oct 15.
    assert looked == ["2025-10-13", "2025-10-15", "2025-10-19"]
    assert [day for day, updated in told.items() if updated] == ["2025-10-15", "2025-10-19"]
    assert len(stored.comments) == 2
    text = stored.comments[0].body or ""
    assert "**Moved back** on 2025-10-15" in text and CUDA in text
    assert "state=moved-back" in text and stored.state == "open"
    # A re-run of a night that told a move back neither diffs nor comments again.
    for day in ("2025-10-15", "2025-10-19"):
        assert night(repo, s, day, c, contents=contents).updated == []
    assert looked == ["2025-10-13", "2025-10-15", "2025-10-19"] and len(stored.comments) == 2


def test_files_moving_back_are_told_only_on_the_issue_that_moved_them(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """Two open issues of one variant: +10 MB in libtorch_cuda.so (Oct 11), +9 MB in
    libbar.so (Oct 13). On Oct 15 libbar.so moves back: the second issue hears it, the
    first (whose files did not move) hears nothing, and the night is diffed once."""
    bar = "torch/lib/libbar.so"
    sizes = {
        "2025-10-10": 855.0,
        "2025-10-11": 865.0,
        "2025-10-12": 865.1,
        "2025-10-13": 874.1,
        "2025-10-14": 874.0,
        "2025-10-15": 868.0,
    }
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    c = AlertSettings(thresholds=Thresholds(mb=8.0), creep=None, issues=IssueSettings())
    s = {"cuda12_8": points("cuda12_8", sizes, w)}
    event_diffs = {"2025-10-11": EVENT_DIFF, "2025-10-13": diff(_file(bar, 9.0))}
    looked: list[str] = []

    def enrich(inv: Investigation) -> Investigation:
        inv.evidence_json = {"diff": event_diffs[inv.event.date.isoformat()]}
        return inv

    def contents(before: SizePoint, after: SizePoint) -> Mapping[str, Any] | None:
        looked.append(after.date.isoformat())
        return diff(_file(bar, -8.9), _file(FOO, 2.9))

    first = night(repo, s, "2025-10-11", c, enrich=enrich).created[0]
    second = night(repo, s, "2025-10-13", c, enrich=enrich).created[0]
    assert first != second
    result = night(repo, s, "2025-10-15", c, contents=contents)
    assert result.updated == [second] and looked == ["2025-10-15"]
    older, newer = (fake_github.repo(REPO).issue(n) for n in (first, second))
    assert older is not None and newer is not None
    assert older.comments == []
    assert len(newer.comments) == 1 and bar in (newer.comments[0].body or "")

"""Entry-count work is bounded in count and in CPU time (issue 17, point 6): a wheel at the
old 250,000-entry cap ran ``audit`` and ``diff`` past 120 s on a loaded runner; the cap is
now 100,000, and however much work each entry costs, one archive's reading stops at a CPU
limit (an injected clock here: no test waits on the machine)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from hostile_wheels import baseline, generator
from wheel_size.errors import InvalidWheel
from wheel_size.wheel.archive import ArchiveLimits, DirectorySource, ZipSource

make_hostile_wheels = generator()


class StepClock:
    """A CPU clock that advances one second each time it is read."""

    def __init__(self) -> None:
        self.ticks = itertools.count()

    def __call__(self) -> float:
        return float(next(self.ticks))


def test_the_cap_refuses_the_red_teams_wheel_before_reading_it(tmp_path: Path) -> None:
    wheel = make_hostile_wheels.make_huge_entry_count(tmp_path, entries=249_994)
    with pytest.raises(InvalidWheel, match=r"249998 entries, more than the limit of 100000"):
        ZipSource(wheel)


def test_cpu_time_stops_reading_members(tmp_path: Path) -> None:
    wheel = baseline(tmp_path)
    limits = ArchiveLimits(max_cpu_seconds=3, cpu_seconds_per_gib=0, clock=StepClock())
    with ZipSource(wheel, limits) as source:
        names = [m.name for m in source.members]
        with pytest.raises(InvalidWheel) as caught:
            for name in names:
                source.read(name)
    message = str(caught.value)
    assert message.startswith(f"{wheel}: ") and "\n" not in message
    assert f"{len(names)} entries took more than 3 s of CPU time" in message


def test_cpu_time_stops_checking_entries(tmp_path: Path) -> None:
    wheel = make_hostile_wheels.make_huge_entry_count(tmp_path, entries=2_000)
    limits = ArchiveLimits(max_cpu_seconds=2, cpu_seconds_per_gib=0, clock=StepClock())
    with pytest.raises(InvalidWheel, match=r"2,004 entries took more than 2 s of CPU time"):
        ZipSource(wheel, limits)


def test_the_limit_grows_with_the_archive_and_can_be_off(tmp_path: Path) -> None:
    limits = ArchiveLimits(max_cpu_seconds=60, cpu_seconds_per_gib=120)
    assert limits.cpu_limit(0) == 60
    assert limits.cpu_limit(4 << 30) == 60 + 480
    assert ArchiveLimits(max_cpu_seconds=None).cpu_limit(1 << 40) is None
    wheel = baseline(tmp_path)
    unbounded = ArchiveLimits(max_cpu_seconds=None, clock=StepClock())
    with ZipSource(wheel, unbounded) as source:
        for member in source.members:
            source.read(member.name)


def test_an_unpacked_wheel_is_bounded_too(tmp_path: Path) -> None:
    root = tmp_path / "unpacked"
    for i in range(5):
        (root / "pkg").mkdir(parents=True, exist_ok=True)
        (root / "pkg" / f"m{i}.py").write_text("x = 1\n")
    limits = ArchiveLimits(max_cpu_seconds=2, cpu_seconds_per_gib=0, clock=StepClock())
    with DirectorySource(root, limits) as source, pytest.raises(InvalidWheel, match="CPU time"):
        for member in source.members:
            source.read(member.name)

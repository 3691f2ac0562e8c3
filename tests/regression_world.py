"""Build real git repositories for regression tests quickly (git fast-import), with a main
branch of ordinary commits and a nightly branch of "YYYY-MM-DD nightly release (BASE)"
commits, like PyTorch's."""

from __future__ import annotations

import datetime as dt
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fakegithub import FakeGitHub
from wheel_size.series import SizePoint
from wheel_size.units import MB

EPOCH = 1_760_000_000  # 2025-10-09; commit times only need to increase


@dataclass
class Change:
    """One commit of the main branch: its message, files written, removed, gitlinks."""

    message: str
    files: dict[str, str] = field(default_factory=dict)
    removed: tuple[str, ...] = ()
    gitlinks: dict[str, str] = field(default_factory=dict)  # path -> submodule commit sha


def _data(text: str) -> bytes:
    raw = text.encode()
    return b"data %d\n" % len(raw) + raw + b"\n"


@dataclass
class World:
    path: Path
    main: list[str] = field(default_factory=list)  # shas of main, oldest first
    nightly: dict[str, str] = field(default_factory=dict)  # date -> nightly head sha
    bases: dict[str, str] = field(default_factory=dict)  # date -> base sha


def _import(path: Path, stream: bytes, marks_file: Path) -> None:
    args = ["git", "-C", str(path), "fast-import", "--quiet", f"--export-marks={marks_file}"]
    if marks_file.exists():
        args.append(f"--import-marks={marks_file}")
    subprocess.run(args, input=stream, check=True)


def _marks(marks_file: Path) -> dict[int, str]:
    pairs = (line.split() for line in marks_file.read_text().splitlines())
    return {int(mark[1:]): sha for mark, sha in pairs}


def build_world(
    path: Path,
    changes: list[Change],
    nightlies: Sequence[tuple[str, int, str | None]],
) -> World:
    """``nightlies``: (date, index into ``changes`` of the base commit, message or None for
    the standard "DATE nightly release (BASE)")."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    stream = bytearray()
    when = EPOCH
    for index, change in enumerate(changes):
        mark = index + 1
        when += 60
        stream += b"commit refs/heads/main\nmark :%d\n" % mark
        stream += b"author Dev <dev@example.com> %d +0000\n" % when
        stream += b"committer Dev <dev@example.com> %d +0000\n" % when
        stream += _data(change.message)
        if index:
            stream += b"from :%d\n" % (mark - 1)
        for name, content in change.files.items():
            stream += b"M 100644 inline " + name.encode() + b"\n" + _data(content)
        for name in change.removed:
            stream += b"D " + name.encode() + b"\n"
        for name, sha in change.gitlinks.items():
            stream += b"M 160000 " + sha.encode() + b" " + name.encode() + b"\n"
    marks_file = path / ".git" / "marks"
    _import(path, bytes(stream), marks_file)
    marks = _marks(marks_file)
    world = World(path, [marks[i + 1] for i in range(len(changes))])
    # Second pass: nightly commits name the base SHAs the first pass produced.
    stream = bytearray()
    for n, (date, base_index, message) in enumerate(nightlies):
        mark = len(changes) + 1 + n
        base = world.main[base_index]
        when += 60
        stream += b"commit refs/heads/nightly\nmark :%d\n" % mark
        stream += b"author Bot <bot@example.com> %d +0000\n" % when
        stream += b"committer Bot <bot@example.com> %d +0000\n" % when
        stream += _data(message if message is not None else f"{date} nightly release ({base})")
        if n:
            stream += b"from :%d\n" % (mark - 1)
        stream += b"M 100644 inline NIGHTLY\n" + _data(f"{date} {base}\n")
    if nightlies:
        _import(path, bytes(stream), marks_file)
        marks = _marks(marks_file)
    for n, (date, base_index, _) in enumerate(nightlies):
        world.bases[date] = world.main[base_index]
        world.nightly[date] = marks[len(changes) + 1 + n]
    return world


def points(
    variant: str,
    sizes: dict[str, float],
    world: World | None = None,
    *,
    with_base: bool = True,
) -> list[SizePoint]:
    """Size points of one variant; SHAs from ``world`` when given."""
    out = []
    for n, (date, size) in enumerate(sorted(sizes.items())):
        out.append(
            SizePoint(
                dt.date.fromisoformat(date),
                variant,
                int(size * MB),
                run_id=1000 + n,
                head_sha=world.nightly.get(date) if world else None,
                base_sha=(world.bases.get(date) if world and with_base else None),
                artifact=f"manywheel-py3_12-{variant}",
            )
        )
    return out


SIZES = {
    "2025-10-09": {"cpu": 175.0, "cuda12_8": 855.2},
    "2025-10-10": {"cpu": 175.0, "cuda12_8": 855.3},
    "2025-10-11": {"cpu": 175.0, "cuda12_8": 859.6},
    "2025-10-12": {"cpu": 175.0, "cuda12_8": 855.4},
}


def make_nightly_repo(tmp_path: Path, fake: FakeGitHub, *, has_issues: bool = True) -> World:
    """pytorch/pytorch on the fake: a git repository, and nightly runs of workflow 21257348
    whose cuda12_8 artifact grows 4.3 MB on 2025-10-11 and rolls back on 2025-10-12 (the
    kernel commit of the growth is reverted in that night's window)."""
    changes = [Change(f"base {i}", {"README.md": f"{i}\n"}) for i in range(3)]
    changes += [
        Change("Add Half reduce kernels (#101)", {"aten/src/ATen/native/cuda/R.cuh": "k\n"}),
        Change("Docs (#102)", {"docs/a.md": "a\n"}),
        # The rollback of Oct 12 is attributable: a revert of the listed candidate (#101).
        Change(
            'Revert "Add Half reduce kernels (#101)"', removed=("aten/src/ATen/native/cuda/R.cuh",)
        ),
    ]
    nights = [("2025-10-09", 1, None), ("2025-10-10", 2, None), ("2025-10-11", 4, None),
              ("2025-10-12", 5, None)]  # fmt: skip
    world = build_world(tmp_path / "git", changes, nights)
    repo = fake.add_repo("pytorch/pytorch", git_dir=world.path, has_issues=has_issues)
    wf = repo.add_workflow(21257348, "linux-binary-manywheel")
    for day, sizes in SIZES.items():
        run = wf.add_run(
            created_at=f"{day}T07:30:00Z",
            head_sha=world.nightly[day],
            message=f"{day} nightly release ({world.bases[day]})",
        )
        for variant, mb in sizes.items():
            run.add_artifact(f"manywheel-py3_12-{variant}", size_in_bytes=round(mb * MB))
    return world


def from_records(records: Iterable[Mapping[str, Any]]) -> dict[str, list[SizePoint]]:
    """Plain records (as tests write them) grouped by variant as the series' points.

    Several records for one variant and date (re-runs): the highest run id wins, as the
    history store's "latest run that has the artifact" rule says.
    """
    best: dict[tuple[str, dt.date], SizePoint] = {}
    for record in records:
        date = record["date"]
        point = SizePoint(
            date=dt.date.fromisoformat(date) if isinstance(date, str) else date,
            variant=str(record["variant"]),
            size_bytes=int(record["size_bytes"]),
            run_id=record.get("run_id"),
            head_sha=record.get("head_sha"),
            base_sha=record.get("base_sha"),
            artifact=record.get("artifact"),
        )
        key = (point.variant, point.date)
        if key not in best or (point.run_id or 0) >= (best[key].run_id or 0):
            best[key] = point
    series: dict[str, list[SizePoint]] = {}
    for point in sorted(best.values(), key=lambda p: (p.variant, p.date)):
        series.setdefault(point.variant, []).append(point)
    return series

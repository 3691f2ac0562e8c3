"""Outputs the file system refuses: one error line naming the path, exit 2, nothing lost.

Issue 10 item 7. Every command that writes (store, track's history and report, split's wheels
and reports, diff/audit/report ``-o``, dashboard ``--out``) is run against each way a place
can refuse a write:

* ``full``: a small tmpfs filled to the last block (real ENOSPC). Needs ``mount`` (root);
  skipped with the reason when refused.
* ``readonly``: the same tmpfs remounted read-only (real EROFS; ``chmod`` does not stop root).
* ``parent-is-file``: the output's parent directory is a regular file (ENOTDIR/EEXIST).
* ``is-a-directory``: a directory sits where the output file goes (file outputs only).
* ``file-size-limit``: ``RLIMIT_FSIZE`` of 0 for the command (real EFBIG on every write), which
  stands in for a full disk wherever mounting a tmpfs is refused.

Old files in the refused place must be byte-for-byte intact, and no temporary file is left.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from cli_runner import run_main
from conftest import checkout_env, unmeasured
from fakegithub import FakeGitHub
from fatwheel import DIST_INFO, HIP_DIR, metadata, write_wheel
from history_factory import run
from nightly_world import WORKFLOW_ID, add_night, add_world
from wheel_factory import make_wheel
from wheel_size.errors import OutputError
from wheel_size.history import DirectoryStore, write_bundle
from wheel_size.wheel.zipwrite import ZipEntryWriter

KINDS = ["full", "readonly", "parent-is-file", "file-size-limit"]
# What the one error line must say for each kind.
REASON = {
    "full": "No space left on device",
    "readonly": "Read-only file system",
    "parent-is-file": "is not a directory",
    "is-a-directory": "is a directory",
    "file-size-limit": "File too large",
}


@dataclass
class Place:
    """Where a command writes, and how that place refuses."""

    kind: str
    root: Path  # the directory outputs go under
    limited: bool = False  # run the command with RLIMIT_FSIZE 0
    old: dict[Path, bytes] = field(default_factory=dict)  # files that must survive

    def check_intact(self) -> None:
        for path, data in self.old.items():
            assert path.read_bytes() == data, path
        if self.root.is_dir():
            leftovers = [p for p in self.root.rglob("*") if p.name.endswith(".tmp")]
            leftovers += [p for p in self.root.rglob(".*") if p.name != "lost+found"]
            assert not leftovers, leftovers


def _mount(where: Path, size: str) -> None:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("tmpfs needs root and mount(8); the file-size-limit case covers this path")
    where.mkdir(parents=True)
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        reason = proc.stderr.strip() or "mount refused"
        pytest.skip(f"cannot mount a tmpfs here ({reason}); file-size-limit covers this path")


def _fill(where: Path) -> None:
    """Write until the file system is full (ENOSPC), so every later write fails."""
    with (where / "filler").open("wb", buffering=0) as out:
        block = b"\0" * 4096
        while True:
            try:
                out.write(block)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
                break
        while True:  # the last partial block
            try:
                if not out.write(b"\0"):
                    break
            except OSError:
                break


# ``python -c`` bootstrap: no file past 64 bytes can be written (Python ignores SIGXFSZ, so
# the write fails with EFBIG; 64 bytes lets ``tempfile`` probe its directory, every output is
# larger), then the CLI runs as ``python -m wheel_size`` would.
_LIMITED = (
    "import resource, runpy; resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64)); "
    "runpy.run_module('wheel_size', run_name='__main__', alter_sys=True)"
)


@pytest.fixture
def place_factory(tmp_path: Path) -> Iterator[Callable[[str, Callable[[Path], None]], Place]]:
    """``make(kind, seed)``: a place of that kind, with ``seed(root)`` run while it still
    accepts writes (the old files that must survive)."""
    mounts: list[Path] = []

    def make(kind: str, seed: Callable[[Path], None]) -> Place:
        if kind in ("full", "readonly"):
            root = tmp_path / f"mnt{len(mounts)}"
            _mount(root, "512k")
            mounts.append(root)
        elif kind == "parent-is-file":
            blocker = tmp_path / "blocker"
            blocker.write_bytes(b"a regular file where a directory should be\n")
            place = Place(kind, blocker / "sub")
            place.old[blocker] = blocker.read_bytes()
            return place
        else:
            root = tmp_path / "place"
            root.mkdir()
        seed(root)
        place = Place(kind, root)
        place.old = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        if kind == "full":
            _fill(root)
        elif kind == "readonly":
            subprocess.run(["mount", "-o", "remount,ro", str(root)], check=True)
        elif kind == "file-size-limit":
            place.limited = True
        return place

    yield make
    for root in reversed(mounts):
        subprocess.run(["umount", "-l", str(root)], check=False)


def cli(
    args: list[str], place: Place | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``wheel-size ARGS``: in a subprocess under the place's file-size limit if it has one,
    else in this process (:func:`cli_runner.run_main`)."""
    if place is None or not place.limited:
        return run_main(args, env=env)
    return subprocess.run(
        [sys.executable, "-c", _LIMITED, *args],
        env=unmeasured(checkout_env(env)),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def assert_one_line(
    result: subprocess.CompletedProcess[str], place: Place, *needles: str, kind: str = ""
) -> str:
    stderr = result.stderr
    errors = [line for line in stderr.splitlines() if line.startswith("wheel-size: error:")]
    assert result.returncode == 2, stderr
    assert "Traceback" not in stderr, stderr
    assert len(errors) == 1, stderr
    for needle in (*needles, REASON[kind or place.kind]):
        assert needle in errors[0], errors[0]
    place.check_intact()
    return errors[0]


def _no_seed(root: Path) -> None:
    del root


# -- store ---------------------------------------------------------------------------------


def _seed_history(root: Path) -> None:
    DirectoryStore(root / "h").write_runs([run("2025-10-01", {"cpu": 175.0})])


@pytest.mark.parametrize("kind", KINDS)
def test_store(tmp_path: Path, place_factory: Callable[..., Place], kind: str) -> None:
    records = tmp_path / "records.json"
    write_bundle(records, [run("2025-10-02", {"cpu": 176.0}), run("2025-10-03", {"cpu": 1.0})])
    place = place_factory(kind, _seed_history)
    history = place.root / "h"
    result = cli(["store", str(records), "--history", str(history)], place)
    assert_one_line(result, place, str(history))


# -- track: the history and the report -----------------------------------------------------

NIGHTS = [dt.date(2025, 10, d) for d in range(1, 5)]


def _track(fake: FakeGitHub, history: Path, last: dt.date, *extra: str) -> list[str]:
    return [
        "track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
        "--from", NIGHTS[0].isoformat(), "--to", last.isoformat(),
        "--history", str(history), *extra,
    ]  # fmt: skip


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        wf = add_world(fake)
        for day in NIGHTS:
            add_night(wf, day)
        yield fake


@pytest.mark.parametrize("kind", KINDS)
def test_track_history(github: FakeGitHub, place_factory: Callable[..., Place], kind: str) -> None:
    def seed(root: Path) -> None:  # the first two nights are stored already
        done = cli(_track(github, root / "h", NIGHTS[1]), env=github.env())
        assert done.returncode == 0, done.stderr

    place = place_factory(kind, seed)
    history = place.root / "h"
    result = cli(_track(github, history, NIGHTS[-1]), place, github.env())
    assert_one_line(result, place, str(history))


@pytest.mark.parametrize("kind", [*KINDS, "is-a-directory"])
def test_track_report(
    tmp_path: Path, github: FakeGitHub, place_factory: Callable[..., Place], kind: str
) -> None:
    """The history is complete already, so the report is the one thing left to write."""
    history = tmp_path / "h"
    done = cli(_track(github, history, NIGHTS[-1]), env=github.env())
    assert done.returncode == 0, done.stderr
    stored = {p: p.read_bytes() for p in history.rglob("*") if p.is_file()}
    place, report = _file_place(place_factory, "report.md", kind)
    result = cli(_track(github, history, NIGHTS[-1], "-o", str(report)), place, github.env())
    assert_one_line(result, place, str(report), kind=kind)
    assert {p: p.read_bytes() for p in history.rglob("*") if p.is_file()} == stored


# -- split ---------------------------------------------------------------------------------

TAG = "cp311-cp311-linux_x86_64"


def _fat_wheel(directory: Path) -> Path:
    files = [
        ("torch/lib/libmulti19.so", (HIP_DIR / "libmulti19.so").read_bytes(), 0o755),
        (f"{DIST_INFO}/METADATA", metadata(), 0o644),
        (
            f"{DIST_INFO}/WHEEL",
            f"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: {TAG}\n".encode(),
            0o644,
        ),
    ]
    directory.mkdir(parents=True, exist_ok=True)
    return write_wheel(directory / f"torch-2.10.0+rocm7.1-{TAG}.whl", files)


def _split(wheel: Path, out: Path, *extra: str) -> list[str]:
    return [
        "split", "--input", str(wheel), "--output-dir", str(out),
        "--device-package-prefix", "amd-torch-device", "--overlay-root", "torch/", *extra,
    ]  # fmt: skip


def _seed_split(root: Path) -> None:
    (root / "out").mkdir()
    (root / "out" / f"other-1.0-{TAG}.whl").write_bytes(b"an earlier split's wheel")
    (root / "split.md").write_text("old split report\n")


@pytest.mark.parametrize("fmt", ["wheel", "directory"])
@pytest.mark.parametrize("kind", KINDS)
def test_split_outputs(
    tmp_path: Path, place_factory: Callable[..., Place], kind: str, fmt: str
) -> None:
    wheel = _fat_wheel(tmp_path / "in")
    place = place_factory(kind, _seed_split)
    out = place.root / "out"
    result = cli(_split(wheel, out, "--output-format", fmt), place)
    assert_one_line(result, place, str(out))
    if out.is_dir():
        assert sorted(p.name for p in out.iterdir()) == [f"other-1.0-{TAG}.whl"]


@pytest.mark.parametrize("kind", ["full", "readonly", "parent-is-file"])
def test_split_tmp_dir(tmp_path: Path, place_factory: Callable[..., Place], kind: str) -> None:
    """``--tmp-dir`` (where libraries and kernels are staged) refusing writes: the error names
    it, and neither the output directory nor the temporary one is left behind."""
    wheel = _fat_wheel(tmp_path / "in")
    place = place_factory(kind, _no_seed)
    work = place.root / "work"
    out = tmp_path / "wheels"
    result = cli(_split(wheel, out, "--tmp-dir", str(work)), place)
    assert_one_line(result, place, str(work))
    assert not out.exists()
    assert not work.exists()  # made by this run, removed again


@pytest.mark.parametrize("kind", [*KINDS, "is-a-directory"])
def test_split_reports(tmp_path: Path, place_factory: Callable[..., Place], kind: str) -> None:
    """Reports that cannot be written: refused before the split (a directory or a file in
    the way, a read-only file system), or, on a full disk, the wheels are removed again once
    the report fails: no output of the run is left."""
    if kind == "file-size-limit":
        pytest.skip("the wheels are written first under the same limit (test_split_outputs)")
    wheel = _fat_wheel(tmp_path / "in")
    place, report = _file_place(place_factory, "split.md", kind)
    out = tmp_path / "wheels"
    result = cli(_split(wheel, out, "--report-md", str(report)), place)
    assert_one_line(result, place, str(report), kind=kind)
    assert not out.exists()


# -- diff, audit, report, dashboard: one output file each ---------------------------------


def _two_wheels(directory: Path) -> tuple[Path, Path]:
    old = make_wheel(directory / "old", "demo", "1.0", files={"demo/a.py": b"a" * 1000})
    new = make_wheel(directory / "new", "demo", "1.1", files={"demo/a.py": b"b" * 3000})
    return old, new


def _seed_file(name: str, kind: str) -> Callable[[Path], None]:
    def seed(root: Path) -> None:
        (root / name).write_text("old output\n")
        if kind == "is-a-directory":
            (root / f"new-{name}").mkdir()

    return seed


def _target(place: Place, name: str, kind: str) -> Path:
    return place.root / (f"new-{name}" if kind == "is-a-directory" else name)


def _file_place(place_factory: Callable[..., Place], name: str, kind: str) -> tuple[Place, Path]:
    place = place_factory(
        "file-size-limit" if kind == "is-a-directory" else kind, _seed_file(name, kind)
    )
    if kind == "is-a-directory":
        place.limited = False
    return place, _target(place, name, kind)


FILE_KINDS = [*KINDS, "is-a-directory"]


@pytest.mark.parametrize("kind", FILE_KINDS)
def test_diff_output(tmp_path: Path, place_factory: Callable[..., Place], kind: str) -> None:
    old, new = _two_wheels(tmp_path)
    place, target = _file_place(place_factory, "diff.md", kind)
    result = cli(["diff", str(old), str(new), "-o", str(target)], place)
    assert_one_line(result, place, str(target), kind=kind)


@pytest.mark.parametrize("kind", FILE_KINDS)
def test_audit_output(tmp_path: Path, place_factory: Callable[..., Place], kind: str) -> None:
    old, _ = _two_wheels(tmp_path)
    place, target = _file_place(place_factory, "audit.json", kind)
    result = cli(["audit", str(old), "--format", "json", "-o", str(target)], place)
    assert_one_line(result, place, str(target), kind=kind)


def _report_json(tmp_path: Path) -> Path:
    history = tmp_path / "h"
    days = [dt.date(2025, 10, 1) + dt.timedelta(days=i) for i in range(5)]
    DirectoryStore(history).write_runs([run(d, {"cpu": 175.0 + i}) for i, d in enumerate(days)])
    out = tmp_path / "r.json"
    done = cli(["report", "--history", str(history), "--variant", "cpu", "--format", "json",
                "--from", "2025-10-01", "--to", "2025-10-05", "-o", str(out)])  # fmt: skip
    assert done.returncode == 0, done.stderr
    return history


@pytest.mark.parametrize("kind", FILE_KINDS)
def test_report_output(tmp_path: Path, place_factory: Callable[..., Place], kind: str) -> None:
    history = _report_json(tmp_path)
    place, target = _file_place(place_factory, "report.json", kind)
    args = ["report", "--history", str(history), "--variant", "cpu", "--format", "json",
            "--from", "2025-10-01", "--to", "2025-10-05"]  # fmt: skip
    result = cli([*args, "-o", str(target)], place)
    assert_one_line(result, place, str(target), kind=kind)


@pytest.mark.parametrize("kind", FILE_KINDS)
def test_dashboard_output(tmp_path: Path, place_factory: Callable[..., Place], kind: str) -> None:
    _report_json(tmp_path)
    place, target = _file_place(place_factory, "index.html", kind)
    result = cli(["dashboard", str(tmp_path / "r.json"), "--out", str(target)], place)
    assert_one_line(result, place, str(target), kind=kind)


# -- without root: /dev/full refuses every write with a real ENOSPC ------------------------


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_zip_writer_on_a_full_device() -> None:
    """The wheel writer's one write path turns ENOSPC into an OutputError naming the wheel."""
    with Path("/dev/full").open("wb", buffering=0) as full:
        writer = ZipEntryWriter(full, label="out/demo-1.0-py3-none-any.whl")
        with pytest.raises(OutputError) as caught:
            writer.add_chunks("demo/a.py", [b"x" * 1000], size_hint=1000)
    assert str(caught.value) == (
        "out/demo-1.0-py3-none-any.whl: cannot write: No space left on device"
    )

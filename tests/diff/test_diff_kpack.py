"""Two device wheels diff per GPU target, by file and by kernel, and ``bloat`` reads them: the
code objects inside their ``.kpack`` archives (real clang-19 code objects from the HIP
fixtures, archives written by our writer)."""

from __future__ import annotations

from pathlib import Path

from fatwheel import write_wheel
from hipfx import HIP_DATA
from wheel_size.diff.by_run import diff_inputs_by
from wheel_size.diff.run import diff_inputs
from wheel_size.kernels.bloat import find_bloat
from wheel_size.kernels.functions import elf_functions
from wheel_size.rocm.fatbin_library import open_fat_library
from wheel_size.rocm.kpack import KpackWriter

MEMBER = "torch/.kpack/torch_gfx942.kpack"
ALIASES = ["gfx942:sramecc+:xnack-", "gfx942"]


def _code_objects() -> list[bytes]:
    with open_fat_library(HIP_DATA / "libplain19.so") as lib:
        return [co.data for co in lib.iter_code_objects()]


def _device_wheel(out: Path, version: str, kernels: list[bytes]) -> Path:
    out.mkdir(parents=True)
    archive = out / "torch_gfx942.kpack"
    with KpackWriter(archive, arch="gfx942", arches=ALIASES) as writer:
        for number, data in enumerate(kernels):
            writer.add(key=f"lib/libtorch_hip.so#{number}", data=data, arches=ALIASES)
    name = f"amd_torch_device_gfx942-{version}-py3-none-linux_x86_64.whl"
    return write_wheel(out / name, [(MEMBER, archive.read_bytes(), 0o644)])


def test_kpack_code_objects_diff_per_target(tmp_path: Path) -> None:
    objects = _code_objects()
    old = _device_wheel(tmp_path / "a", "1.0", objects[:2])
    new = _device_wheel(tmp_path / "b", "2.0", objects[:3])
    [comparison] = diff_inputs(old, new).comparisons
    [kpack] = [f for f in comparison.files if f.path == MEMBER]
    [row] = kpack.gpu
    key = (row.kind, row.section, row.arch, row.image)
    assert key == ("hip", ".kpack", "gfx942", "code_object")
    # Two aliases per kernel, one stored copy: entries count kernels, not aliases.
    assert (row.old_entries, row.new_entries) == (2, 3)
    assert row.new_uncompressed - row.old_uncompressed == len(objects[2])
    assert not kpack.problems


def test_a_broken_kpack_is_one_problem(tmp_path: Path) -> None:
    objects = _code_objects()
    old = _device_wheel(tmp_path / "a", "1.0", objects[:2])
    (tmp_path / "b").mkdir()
    broken = b"KPAK" + b"\x01\x00\x00\x00" + (10**9).to_bytes(8, "little") + bytes(64)
    new = write_wheel(
        tmp_path / "b" / "amd_torch_device_gfx942-2.0-py3-none-linux_x86_64.whl",
        [(MEMBER, broken, 0o644)],
    )
    [comparison] = diff_inputs(old, new).comparisons
    [kpack] = [f for f in comparison.files if f.path == MEMBER]
    assert not kpack.gpu
    [problem] = kpack.problems
    assert problem.startswith(f"{new}:{MEMBER}: kpack TOC offset"), problem


def test_device_wheels_diff_by_kernel_and_bloat(tmp_path: Path) -> None:
    """``diff --by kernel`` and ``bloat`` read the kernels inside the archives: the third
    code object's functions appear, counted once though two aliases list it."""
    objects = _code_objects()
    old = _device_wheel(tmp_path / "a", "1.0", objects[:2])
    new = _device_wheel(tmp_path / "b", "2.0", objects[:3])
    want = elf_functions(objects[2], "third", digests=False)
    for jobs in (1, 2):
        report = diff_inputs_by(old, new, by="kernel", top=100, jobs=jobs)
        [comparison] = report.comparisons
        assert not comparison.problems and not report.problems
        [table] = comparison.archs
        assert table.arch == "gfx942"
        assert table.new_total - table.old_total == want.size
        assert (table.old_total, table.new_total) != (0, 0)
    bloat = find_bloat(new)
    assert bloat.code_bytes == sum(
        elf_functions(data, "k", digests=False).size for data in objects[:3]
    )
    assert not bloat.problems


def test_symbols_skip_the_archives(tmp_path: Path) -> None:
    objects = _code_objects()
    old = _device_wheel(tmp_path / "a", "1.0", objects[:2])
    new = _device_wheel(tmp_path / "b", "2.0", objects[:3])
    [comparison] = diff_inputs_by(old, new, by="symbol", top=10).comparisons
    assert not comparison.problems and not comparison.archs

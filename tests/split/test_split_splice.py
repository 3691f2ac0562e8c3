"""Issue 30, item 2: a rewritten host library's member is spliced from its input member's
own deflate blocks (``split.reuse``) instead of paying for zlib 6 over every host byte, where
the index pays for itself; the member is never larger than its input member, inflates to
exactly today's rewrite, and a full zlib pass still runs where the probe says the input's
stream is 1 % and 64 KiB worse (an input deflated at level 1).

The library is built by clang++-19: a kernel for two targets and 3 MiB of host data (a
host-heavy library, like jax-rocm7-pjrt's plugin)."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from cli_runner import run_main
from deflate_data import code
from fatwheel import DIST_INFO, metadata
from library_jobs import member_job
from wheel_size.rocm.limits import CHUNK
from wheel_size.split import reuse
from wheel_size.split.work import LibraryResult, library_job
from wheel_size.wheel.archive import RawData
from wheel_size.wheel.deflate_index import libz_available

PY_TAG = "cp311-cp311-manylinux_2_28_x86_64"
NAME = f"torch-2.10.0+rocm7.1-{PY_TAG}.whl"
MEMBER = "torch/lib/libhostheavy.so"
WHEEL = f"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: {PY_TAG}\n".encode()
KERNEL = """\
#define __global__ __attribute__((global))
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
#ifndef __HIP_DEVICE_COMPILE__
extern "C" __attribute__((used, visibility("default"))) const unsigned char host_table[] = {
#embed "host.bin"
};
#endif
__global__ void k(int *p) { unsigned i = __builtin_amdgcn_workitem_id_x(); p[i] = (int)i; }
extern "C" int launch(int *p) {
  void *args[] = {&p};
  return hipLaunchKernel((const void*)k, dim3{1,1,1}, dim3{64,1,1}, args, 0, nullptr);
}
"""


@pytest.fixture(scope="module")
def host_heavy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("clang++-19") is None:
        pytest.skip("clang++-19 not installed")
    if not libz_available():
        pytest.skip("libz cannot be loaded through ctypes")
    work = tmp_path_factory.mktemp("hostheavy")
    (work / "host.bin").write_bytes(code(3 << 20, 21))
    (work / "k.hip").write_text(KERNEL)
    lib = work / "libhostheavy.so"
    subprocess.run(
        ["clang++-19", "-Wno-c23-extensions", "-x", "hip", "-nogpulib", "-nogpuinc", "-fPIC",
         "-shared", "-no-hip-rt", "--offload-arch=gfx942", "--offload-arch=gfx1100",
         "-o", str(lib), "k.hip"],
        cwd=work, check=True,
    )  # fmt: skip
    return lib


def wheel_of(lib: Path, path: Path, level: int) -> Path:
    files = {
        "torch/__init__.py": b"# torch\n",
        MEMBER: lib.read_bytes(),
        f"{DIST_INFO}/METADATA": metadata(),
        f"{DIST_INFO}/WHEEL": WHEEL,
    }
    path.mkdir(parents=True, exist_ok=True)
    wheel = path / NAME
    with zipfile.ZipFile(wheel, "w") as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
            info.external_attr = 0o100755 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data, compresslevel=level)
        zf.writestr(f"{DIST_INFO}/RECORD", "")
    return wheel


def apply(wheel: Path, work: Path) -> LibraryResult:
    job = member_job(wheel, MEMBER, "lib/libhostheavy.so", work)
    _, result = library_job(job)
    assert result is not None and result.stripped is not None
    return result


def split(wheel: Path, out: Path, *extra: str) -> None:
    result = run_main(
        ["split", "--input", str(wheel), "--output-dir", str(out),
         "--device-package-prefix", "amd-torch-device", "--overlay-root", "torch/", *extra]
    )  # fmt: skip
    assert result.returncode == 0, result.stderr


def test_host_heavy_member_is_spliced(host_heavy: Path, tmp_path: Path) -> None:
    wheel = wheel_of(host_heavy, tmp_path / "in", level=6)
    result = apply(wheel, tmp_path / "work")
    assert result.deflate_backend == "spliced"
    assert result.stripped_raw is not None
    with zipfile.ZipFile(wheel) as zf:
        assert result.stripped_raw.compressed_size <= zf.getinfo(MEMBER).compress_size


def test_spliced_host_wheel_is_todays_rewrite_and_no_larger(
    host_heavy: Path, tmp_path: Path
) -> None:
    wheel = wheel_of(host_heavy, tmp_path / "in", level=6)
    split(wheel, tmp_path / "out", "-j", "1")
    split(wheel, tmp_path / "tree", "--output-format", "directory")  # not deflated at all
    host = tmp_path / "out" / NAME
    with zipfile.ZipFile(host) as out, zipfile.ZipFile(wheel) as before:
        assert out.testzip() is None
        rewritten = out.read(MEMBER)
        assert rewritten == (tmp_path / "tree" / NAME.removesuffix(".whl") / MEMBER).read_bytes()
        assert out.getinfo(MEMBER).compress_size <= before.getinfo(MEMBER).compress_size
    if shutil.which("unzip"):
        checked = subprocess.run(["unzip", "-t", str(host)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout


def test_jobs_do_not_change_the_spliced_wheel(host_heavy: Path, tmp_path: Path) -> None:
    wheel = wheel_of(host_heavy, tmp_path / "in", level=6)
    split(wheel, tmp_path / "one", "-j", "1")
    split(wheel, tmp_path / "two", "-j", "2")
    assert (tmp_path / "one" / NAME).read_bytes() == (tmp_path / "two" / NAME).read_bytes()


def test_input_deflated_at_level_1_is_recompressed(host_heavy: Path, tmp_path: Path) -> None:
    # the probe's baseline is what the splice keeps (the input's own bits over each sample):
    # level 1's stream is well over 1 % and 64 KiB worse than zlib 6, so zlib's pass runs
    wheel = wheel_of(host_heavy, tmp_path / "in", level=1)
    result = apply(wheel, tmp_path / "work")
    assert result.deflate_backend == "zlib"
    assert result.stripped_raw is not None
    with zipfile.ZipFile(wheel) as zf:
        assert result.stripped_raw.compressed_size < zf.getinfo(MEMBER).compress_size


def raw(compressed: int, method: int = 8) -> RawData:
    return RawData(Path("member"), 0, compressed, 10 * compressed, 0, method)


def test_the_index_pays_on_both_sides_of_the_line() -> None:
    # spliced when the rewrite's zlib 6 beyond the probe's bytes (DEFLATE_NS per byte) costs
    # at least the index over the member (INDEX_NS per compressed byte) and the check of the
    # spliced stream (VERIFY_NS per rewritten byte); never up to the probe's bytes, never stored
    after = 64 << 20
    saved = (after - reuse.PROBE_BYTES) * reuse.DEFLATE_NS - after * reuse.VERIFY_NS
    line = saved // reuse.INDEX_NS  # compressed bytes where they meet
    assert reuse.pays(after, raw(line))
    assert not reuse.pays(after, raw(line + 1))
    assert not reuse.pays(after, raw(line // 2, method=0))
    assert not reuse.pays(reuse.PROBE_BYTES, raw(1))
    assert not reuse.pays(after, None)


def test_a_rewrite_the_probe_nearly_covers_is_not_spliced() -> None:
    # held out (session 12): jax-rocm7-plugin 0.10.0's _solver.so, 434,801 bytes in its
    # wheel, 1.2 MiB after the cut, spliced at 42 ms where the full pass takes 31 ms: the
    # probe deflates 1 MiB of it to judge the splice, and the check inflates it again
    assert not reuse.pays(int(1.2 * CHUNK), raw(434_801))
    # amd-mori 1.2.4's libmori_pybinds.so: 2,093,969 bytes in, 7.5 MiB after the cut
    assert reuse.pays(int(7.5 * CHUNK), raw(2_093_969))
    # pyg-lib-rocm 0.8.0.post2's libpyg.so: 9,063,988 bytes in, 11.2 MiB after the cut
    assert reuse.pays(int(11.2 * CHUNK), raw(9_063_988))


def test_device_heavy_library_keeps_the_full_recompression() -> None:
    # onnxruntime-rocm 1.22.2's provider library: 38,444,678 bytes in its wheel, 22.2 MiB
    # left after the cut (docs/benchmarks.md, "Split, seventh pass")
    assert not reuse.pays(int(22.2 * CHUNK), raw(38_444_678))
    # jax-rocm7-pjrt 0.12.0's plugin: 133,409,691 bytes in, 409.6 MiB after the cut
    assert reuse.pays(int(409.6 * CHUNK), raw(133_409_691))


def test_the_index_starts_while_the_library_is_inflated(host_heavy: Path, tmp_path: Path) -> None:
    """Its 3 MiB of host data come before the fatbin: once the capture meets the first
    bundle, those bytes alone make the splice pay, so the index is already running when
    the plan is made (the code objects, taken on the way, leave nothing to run beside it
    later), and the library is spliced from it."""
    from wheel_size.split.work import ApplyJob, apply_library, read_and_plan_library

    wheel = wheel_of(host_heavy, tmp_path / "in", level=6)
    job = member_job(wheel, MEMBER, "lib/libhostheavy.so", tmp_path / "work")
    plan = read_and_plan_library(job)
    assert plan.section_offset > 3 << 20 and plan.captured
    assert plan.index is not None
    result = apply_library(ApplyJob(job, plan))
    assert result.deflate_backend == "spliced"
    again = apply(wheel, tmp_path / "again").stripped
    assert result.stripped is not None and again is not None
    assert result.stripped.read_bytes() == again.read_bytes()

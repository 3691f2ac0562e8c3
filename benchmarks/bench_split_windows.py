"""Benchmark ``wheel-size split`` on a generated fat *Windows* wheel (``win_amd64``) of about 2 GB.

The twin of ``bench_split.py`` with DLLs: one real HIP DLL compiled by clang++-19 for
``x86_64-pc-windows-msvc`` with 8 GPU targets whose code objects each embed a 16 MiB table
(``#embed``) and linked by lld-link-19, copied under several names; a large host-only DLL; and
the same database files.  Reported the same way: input throughput and peak memory of the
process tree, next to ``cp`` of the same file.

    python benchmarks/bench_split_windows.py [--jobs 2] [--libraries 12] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from bench_split import TARGETS, VERSION, measure, semi_random, shared_entries  # noqa: E402

from wheel_size.wheel.writer import WheelEntry, compress_file, write_wheel  # noqa: E402

KERNEL = """\
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
struct dim3 { unsigned x, y, z; };
extern "C" int hipConfigureCall(dim3, dim3, unsigned long long, void*);
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long long, void*);
__device__ const unsigned char table[] = {
#embed "table.bin"
};
__global__ void k(int *p) { unsigned i = __builtin_amdgcn_workitem_id_x(); p[i] = table[i * 4099]; }
"""
PLATFORM = "win_amd64"


def build_dll(work: Path, table_mib: int) -> Path:
    dll = work / f"big{table_mib}.dll"
    if dll.exists():
        return dll
    (work / "table.bin").write_bytes(semi_random(table_mib << 20, 1))
    (work / "k.hip").write_text(KERNEL)
    compile_ = [
        "clang++-19", "--target=x86_64-pc-windows-msvc", "-Wno-c23-extensions",
        "-Wno-c++11-narrowing", "-x", "hip", "-nogpulib", "-nogpuinc",
        *(f"--offload-arch={t}" for t in TARGETS), "-c", "k.hip", "-o", "k.obj",
    ]  # fmt: skip
    subprocess.run(compile_, cwd=work, check=True)
    link = ["lld-link-19", "/dll", "/noentry", "/nodefaultlib", "/force:unresolved"]
    subprocess.run([*link, f"/out:{dll}", "k.obj"], cwd=work, check=True, capture_output=True)
    return dll


def build_wheel(work: Path, libraries: int, table_mib: int) -> Path:
    path = work / f"torch-{VERSION}-cp311-cp311-{PLATFORM}.whl"
    if path.exists():
        return path
    dll = build_dll(work, table_mib)
    raw_dir = work / "raw"
    raw_dir.mkdir(exist_ok=True)
    entries: list[WheelEntry] = []
    dll_raw, dll_hash = compress_file(dll, raw_dir / "dll.deflate", level=1, bounded=False)
    for i in range(libraries):
        entries.append(
            WheelEntry(f"torch/lib/hipfat{i:02}.dll", raw=dll_raw, record_hash=dll_hash, mode=0o755)
        )
    host = ROOT / "tests" / "data" / "hip_pe" / "host_only.dll"
    big_host = work / "torch_cpu.dll"  # a host-only DLL with 400 MB of overlay
    big_host.write_bytes(host.read_bytes() + semi_random(400 << 20, 2, alphabet=64))
    host_raw, host_hash = compress_file(big_host, raw_dir / "host.deflate", level=1, bounded=False)
    entries.append(
        WheelEntry("torch/lib/torch_cpu.dll", raw=host_raw, record_hash=host_hash, mode=0o755)
    )
    entries += shared_entries(work, raw_dir, f"cp311-cp311-{PLATFORM}")
    dist = f"torch-{VERSION}.dist-info"
    write_wheel(path, entries, dist_info=dist)
    shutil.rmtree(raw_dir)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "wheel-size-bench-split-win"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--libraries", type=int, default=12)
    parser.add_argument("--table-mib", type=int, default=16)
    parser.add_argument("--keep", action="store_true", help="keep the generated wheel")
    args = parser.parse_args()
    for tool in ("clang++-19", "lld-link-19"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} not installed")
    args.work.mkdir(parents=True, exist_ok=True)
    wheel = build_wheel(args.work, args.libraries, args.table_mib)
    size = wheel.stat().st_size
    print(f"input: {wheel.name}: {size / 1e6:,.0f} MB")
    subprocess.run(["sync"], check=False)
    copy = args.work / "copy.whl"
    cp_time, cp_cpu, cp_rss = measure(["cp", str(wheel), str(copy)])
    copy.unlink()
    out = args.work / "out"
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    command = [
        *(sys.executable, "-m", "wheel_size", "split", "--input", str(wheel)),
        *("--output-dir", str(out), "--device-package-prefix", "amd-torch-device"),
        *("--overlay-root", "torch/", "--wheel-type", "torch-fat", "--jobs", str(args.jobs)),
        *("--report-json", str(args.work / "report.json")),
    ]
    split_time, split_cpu, split_rss = measure(command, env)
    outputs = sorted(out.iterdir())
    out_size = sum(p.stat().st_size for p in outputs)
    print(f"load average during the runs: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for label, wall, cpu, rss in [
        ("cp", cp_time, cp_cpu, cp_rss),
        (f"split -j{args.jobs}", split_time, split_cpu, split_rss),
    ]:
        print(
            f"{label:9} {wall:6.1f} s wall  {size / 1e6 / wall:5.0f} MB/s  "
            f"CPU {cpu:6.1f} s ({size / 1e6 / max(cpu, 0.01):5.0f} MB per CPU-second)  "
            f"peak RSS {rss / 2**20:5.0f} MiB"
        )
    host = next(p for p in outputs if p.name.startswith("torch-"))
    print(
        f"outputs: {len(outputs)} wheels, {out_size / 1e6:,.0f} MB "
        f"(host {host.stat().st_size / 1e6:,.0f} MB)"
    )
    shutil.rmtree(out)
    if not args.keep:
        wheel.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())

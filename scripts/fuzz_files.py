#!/usr/bin/env python3
"""Fuzz split, diff and audit through the same file-backed path the CLI uses.

The in-memory harnesses (``fuzz_rocm.py``, ``fuzz_parsers.py``) parse bytes, where any seek
succeeds; the CLI parses files, where ``lseek`` past 2**44 fails on ext4 and a read past
the end returns short.  Here every input is written to a real file and handed to the same
functions the CLI calls on an extracted wheel member (split's ``process_library`` and
``build_kpack``, the native floor's ``read_library_facts`` (diff), audit's ``inspect_elf``);
every tenth input is also wrapped in a wheel (STORED, DEFLATED, bzip2 or LZMA members) and
run through ``wheel_size.cli.main.main`` for split, diff and audit.  A finding is any
exception other than a WheelSizeError (split) or any exception at all (diff and audit
record problems).

    python scripts/fuzz_files.py replay [--seed N] [--cases N] [--findings DIR]
    python scripts/fuzz_files.py atheris split|diff|audit [libFuzzer options]

``replay`` is deterministic (CI runs ``--seed 0 --cases 300``); ``atheris`` needs
``pip install atheris``.  The corpus: the clang/nvcc fixtures, the ELF-offset and
maximal-header CCOB libraries of ``make_hostile_binaries.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import random
import shutil
import struct
import sys
import tempfile
import traceback
import zipfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for extra in (REPO / "src", REPO / "scripts", REPO / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import make_hostile_binaries as hostile  # noqa: E402

from wheel_size.audit.gpu import hip_member_targets  # noqa: E402
from wheel_size.audit.native import inspect_elf  # noqa: E402
from wheel_size.cli.main import main as cli_main  # noqa: E402
from wheel_size.errors import WheelSizeError  # noqa: E402
from wheel_size.native import read_library_facts  # noqa: E402
from wheel_size.rocm.kpack_layout import plan_archives  # noqa: E402
from wheel_size.split.names import check_target_id, normalize_arch  # noqa: E402
from wheel_size.split.work import (  # noqa: E402
    CodeObjectRef,
    LibraryJob,
    kpack_result,
    process_library,
)

__all__ = ["corpus", "mutate", "replay", "run_audit", "run_diff", "run_split", "run_wheel"]

MEMBER = "torch/lib/libfuzz.so"
SOURCE = f"fuzz.whl:{MEMBER}"
INTERESTING = [
    0, 1, 7, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 1 << 32, 1 << 40, hostile.HUGE_OFFSET,
    1 << 62, (1 << 63) - 1, 1 << 63, (1 << 64) - 1,
]  # fmt: skip
COMPRESSIONS = [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]


def corpus() -> list[tuple[str, bytes]]:
    """(name, library bytes): real fixtures and the small hostile cases (the 1 GiB bombs
    are left to the reliability tests; one 64 MiB-object CCOB stands for them)."""
    items = [(p.name, p.read_bytes()) for p in sorted((REPO / "tests/data/hip").glob("*.so"))]
    cuda = REPO / "tests/data/cuda"
    items += [(n, (cuda / n).read_bytes()) for n in ("libk_v1.so", "libk_lz4.so")]
    items += [(n, build()) for n, build in hostile.CASES.items() if "1gib" not in n]
    items.append(("ccob-64mib-object", hostile.fat_library(hostile.ccob_bomb(64 << 20))))
    return items


def _put(data: bytearray, at: int, value: int, width: int) -> None:
    if at >= 0 and at + width <= len(data):
        data[at : at + width] = (value & ((1 << (8 * width)) - 1)).to_bytes(width, "little")


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One structure-aware mutation: an ELF header, section or program header field, a
    CCOB or offload-bundle field set to an interesting value, byte flips, or truncation."""
    out = bytearray(data)
    kind = rng.randrange(7)
    value = rng.choice(INTERESTING) if rng.random() < 0.8 else rng.getrandbits(64)
    if kind == 0 and len(out) >= 64:  # ELF header: e_phoff, e_shoff, counts, shstrndx
        at, width = rng.choice([(32, 8), (40, 8), (54, 2), (56, 2), (58, 2), (60, 2), (62, 2)])
        _put(out, at, value, width)
    elif kind in (1, 2) and len(out) >= 64:  # a section header (1) or program header (2)
        table, count, size = (40, 60, 64) if kind == 1 else (32, 56, 56)
        (start,) = struct.unpack_from("<Q", out, table)
        (entries,) = struct.unpack_from("<H", out, count)
        if entries:
            base = start + rng.randrange(entries) * size
            field = rng.choice([4, 24, 32, 40, 44, 56] if kind == 1 else [8, 16, 32, 40, 48])
            _put(out, base + field, value, 4 if field in (4, 40, 44) else 8)
    elif kind == 3 and (at := out.find(b"CCOB")) >= 0:  # CCOB total / uncompressed size
        _put(out, at + rng.choice([8, 12, 16]), value, rng.choice([4, 8]))
    elif kind == 4 and (at := out.find(b"__CLANG_OFFLOAD_BUNDLE__")) >= 0:
        _put(out, at + 24 + rng.choice([0, 8, 16, 24, 32, 40]), value, 8)
    elif kind == 5 and out:  # byte flips
        for _ in range(rng.randrange(1, 16)):
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    elif out:
        del out[rng.randrange(len(out)) :]
    return bytes(out)


def run_split(path: Path, work: Path) -> None:
    """What ``split`` does with one extracted library: detect, stage code objects in
    chunks, strip the host library, then stream the kpacks."""
    job = LibraryJob(
        number=0, source=SOURCE, rel="lib/libfuzz.so", raw=None, file=path, work=work,
        search_paths=("../.kpack/torch_@GFXARCH@.kpack",), deflate=False, deflate_level=1,
        zstd_level=1, check_hash=True,
    )  # fmt: skip
    result = process_library(job)
    # the archives as split/apply.py lays them out: targets checked, then one per processor
    objects: dict[str, dict[str, CodeObjectRef]] = {}
    for ref in sorted(result.code_objects, key=lambda c: c.index):
        arch = check_target_id(normalize_arch(ref.target), SOURCE)
        objects.setdefault(f"lib/libfuzz.so#{ref.index}", {}).setdefault(arch, ref)
    for archive in plan_archives({k: list(v) for k, v in sorted(objects.items())}):
        items = tuple(
            (key, objects[key][target], arches) for key, target, arches in archive.entries
        )
        kpack = kpack_result(
            arch=archive.name, group="torch", compression="zstd", items=items,
            arches=archive.arches,
        )  # fmt: skip
        # the bytes the device wheel's writer would stream into its member
        with (work / kpack.name).open("wb") as out:
            for chunk in kpack.stream.chunks():
                out.write(chunk)


def run_diff(path: Path) -> None:
    """What ``diff`` reads of one library; an unreadable one must claim nothing."""
    info = read_library_facts(path, source=SOURCE)
    if not info.readable:
        assert not info.sections and not info.gpu, "unreadable library with sizes"


def run_audit(path: Path) -> None:
    """What ``audit`` reads of one library."""
    info = inspect_elf(path, source=SOURCE, scanners=(hip_member_targets,))
    if info.unreadable:
        assert not info.gpu_archs and not info.needed, "unreadable library with facts"


def run_wheel(library: bytes, work: Path, compression: int) -> None:
    """split, diff and audit through ``cli.main`` on a wheel holding ``library``; every
    exit status but 0 and 2 (one-line error) is a finding."""
    from fatwheel import DIST_INFO, metadata, write_wheel

    meta = b"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n"
    name = "torch-2.10.0+rocm7.1-cp311-cp311-linux_x86_64.whl"
    files = [(MEMBER, library, 0o755), (f"{DIST_INFO}/METADATA", metadata(), 0o644),
             (f"{DIST_INFO}/WHEEL", meta, 0o644)]  # fmt: skip
    (work / "w").mkdir()
    whl = write_wheel(work / "w" / name, files, compression=compression)
    (work / "g").mkdir()
    good = write_wheel(work / "g" / name, [(MEMBER, b"\x7fELF", 0o755), *files[1:]])
    commands = [
        ["split", "--input", str(whl), "--output-dir", str(work / "out"), "-j", "1",
         "--device-package-prefix", "amd-torch-device", "--overlay-root", "torch/",
         "--wheel-type", "torch-fat"],
        ["diff", str(good), str(whl), "--format", "json"],
        ["audit", str(whl), "--format", "json"],
    ]  # fmt: skip
    for argv in commands:
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = cli_main(argv)
        lines = [ln for ln in err.getvalue().splitlines() if ln.startswith("wheel-size: error:")]
        if status not in (0, 2) or (status == 2 and len(lines) != 1):
            raise AssertionError(f"{argv[0]}: exit {status}: {err.getvalue()[-500:]}")


def _one(
    target: Callable[[], None], expected: tuple[type[BaseException], ...], tally: dict[str, int]
) -> str | None:
    try:
        target()
    except expected:
        tally["refused"] += 1
        return None
    except Exception:
        return traceback.format_exc(limit=6)
    tally["ok"] += 1
    return None


def replay(seed: int, cases: int, findings: Path | None = None) -> int:
    """Run ``cases`` deterministic mutations; print and keep findings; return their count."""
    items = corpus()
    found = 0
    tally = {"ok": 0, "refused": 0}
    with tempfile.TemporaryDirectory(prefix="fuzz-files-") as tmp:
        for case in range(cases):
            rng = random.Random(seed * 1_000_003 + case)
            name, base = items[case % len(items)]
            data = mutate(base, rng) if case >= len(items) else base
            work = Path(tmp) / f"c{case}"
            work.mkdir()
            path = work / "libfuzz.so"
            path.write_bytes(data)
            checks: list[tuple[str, Callable[[], None], tuple[type[BaseException], ...]]] = [
                ("split", functools.partial(run_split, path, work), (WheelSizeError,)),
                ("diff", functools.partial(run_diff, path), ()),
                ("audit", functools.partial(run_audit, path), ()),
            ]
            if case % 10 == 0:
                compression = COMPRESSIONS[(case // 10) % len(COMPRESSIONS)]
                checks.append(("wheel", functools.partial(run_wheel, data, work, compression), ()))
            for command, target, expected in checks:
                problem = _one(target, expected, tally)
                if problem is not None:
                    found += 1
                    print(f"FINDING case {case} ({name}) {command}:\n{problem}", flush=True)
                    if findings is not None:
                        findings.mkdir(parents=True, exist_ok=True)
                        (findings / f"case{case}-{command}.so").write_bytes(data)
            shutil.rmtree(work, ignore_errors=True)
    print(
        f"fuzz_files: seed {seed}, {cases} cases, {found} findings "
        f"({tally['ok']} runs succeeded, {tally['refused']} refused with one line)"
    )
    return found


def _atheris(target: str, argv: list[str]) -> None:
    import atheris

    work = Path(tempfile.mkdtemp(prefix=f"fuzz-files-{target}-"))
    path = work / "libfuzz.so"
    runs = {
        "split": (lambda: run_split(path, work), (WheelSizeError,)),
        "diff": (lambda: run_diff(path), ()),
        "audit": (lambda: run_audit(path), ()),
    }
    func, expected = runs[target]

    def one(data: bytes) -> None:
        path.write_bytes(data)
        with contextlib.suppress(*expected):
            func()
        for leftover in work.iterdir():
            if leftover != path:
                leftover.unlink() if leftover.is_file() else shutil.rmtree(leftover)

    if not any(not a.startswith("-") for a in argv):
        seeds = work / "corpus"
        seeds.mkdir()
        for name, data in corpus():
            (seeds / name).write_bytes(data)
        argv.append(str(seeds))
    atheris.Setup([sys.argv[0], *argv], one)
    atheris.Fuzz()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    rep = sub.add_parser("replay")
    rep.add_argument("--seed", type=int, default=0)
    rep.add_argument("--cases", type=int, default=300)
    rep.add_argument("--findings", type=Path)
    ath = sub.add_parser("atheris")
    ath.add_argument("target", choices=["split", "diff", "audit"])
    args, rest = parser.parse_known_args()
    if args.mode == "replay":
        return 1 if replay(args.seed, args.cases, args.findings) else 0
    _atheris(args.target, rest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The fatbin parser against real nvcc 13 libraries and the sizes nvcc handed to fatbinary."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from wheel_size.cuda.fatbin import parse_fatbin_bytes
from wheel_size.cuda.library import scan_cuda_sections

DATA = Path(__file__).resolve().parents[1] / "data" / "cuda"
REPO = Path(__file__).resolve().parents[2]
MANIFEST = json.loads((DATA / "manifest.json").read_text())
_KINDS = {"elf": "sass", "ptx": "ptx", "nvvm": "lto"}


def _round8(n: int) -> int:
    return (n + 7) // 8 * 8


def _expected(library: dict[str, object]) -> Counter[tuple[str, str, int]]:
    """(image, arch, bytes) as the compiler produced them, from the manifest."""
    want: Counter[tuple[str, str, int]] = Counter()
    for call in library["fatbinary"]:  # type: ignore[attr-defined]
        for image in call["images"]:
            size = image.get("embedded_bytes", image["bytes"])
            want[(_KINDS[image["kind"]], image["arch"], size)] += 1
    return want


def _observed(entries: Sequence[object]) -> Counter[tuple[str, str, int]]:
    got: Counter[tuple[str, str, int]] = Counter()
    for entry in entries:
        # An uncompressed payload is the compiler's file padded to 8 bytes; a compressed
        # entry records the exact decompressed size.
        size = entry.decompressed_size if entry.compression else entry.payload_size  # type: ignore[attr-defined]
        got[(entry.image, entry.arch, size)] += 1  # type: ignore[attr-defined]
    return got


def _check_library(path: Path, library: dict[str, object]) -> None:
    with path.open("rb") as stream:
        if path.suffix == ".fatbin":
            entries = [e for c in parse_fatbin_bytes(stream.read()) for e in c.entries]
        else:
            entries = [c.entry for c in scan_cuda_sections(stream, source=str(path))]
    want = _expected(library)
    compressed = {(e.image, e.arch) for e in entries if e.compression}
    # compare uncompressed entries with the padded compiler size
    want_adjusted: Counter[tuple[str, str, int]] = Counter()
    for (image, arch, size), count in want.items():
        key = (image, arch, size if (image, arch) in compressed else _round8(size))
        want_adjusted[key] += count
    assert _observed(entries) == want_adjusted


@pytest.mark.parametrize("name", sorted(MANIFEST["libraries"]))
def test_committed_fixture_matches_compiler_sizes(name: str) -> None:
    _check_library(DATA / name, MANIFEST["libraries"][name])


def test_compression_flags_follow_the_build_options() -> None:
    def scan(name: str) -> list[tuple[str, str, str | None]]:
        with (DATA / name).open("rb") as stream:
            return [
                (c.section, f"{c.entry.image}:{c.entry.arch}", c.entry.compression)
                for c in scan_cuda_sections(stream, source=name)
            ]

    # nvcc 13 default: SASS raw, PTX zstd
    assert {c for _, k, c in scan("libk_v1.so") if k.startswith("ptx")} == {"zstd"}
    assert {c for _, k, c in scan("libk_v1.so") if k.startswith("sass")} == {None}
    # -Xfatbin -compress-all: the module's SASS is zstd too
    assert ("sass:sm_100", "zstd") in {(k, c) for _, k, c in scan("libk_v2.so")}
    assert {c for _, _, c in scan("libk_nocompress.so")} == {None}
    assert {c for _, _, c in scan("libk_lz4.so")} == {"lz4"}
    assert ("ptx:sm_80", "lz4") in {(k, c) for _, k, c in scan("libk_lz4.so")}
    rdc = scan("libk_rdc_lto.so")
    assert ("__nv_relfatbin", "lto:sm_80", "zstd") in rdc
    assert {s for s, _, _ in rdc} == {".nv_fatbin", "__nv_relfatbin"}
    assert "sass:sm_90a" in {k for _, k, _ in scan("libk_nocompress.so")}


def test_identifier_is_read() -> None:
    containers = parse_fatbin_bytes((DATA / "k_ident.fatbin").read_bytes())
    assert {e.identifier for c in containers for e in c.entries} == {"kernels_v1"}


@pytest.mark.slow
def test_rebuild_with_nvcc_gives_the_same_structure(tmp_path: Path) -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not installed: cannot rebuild the CUDA fixtures")
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").is_file():
        pytest.skip(f"no Python.h in {include}: cannot rebuild the CUDA abi3 extension fixture")
    subprocess.run(
        [sys.executable, str(REPO / "scripts" / "build_cuda_fixtures.py"), str(tmp_path)],
        check=True,
        capture_output=True,
    )
    fresh = json.loads((tmp_path / "manifest.json").read_text())
    assert sorted(fresh["libraries"]) == sorted(MANIFEST["libraries"])
    for name, library in fresh["libraries"].items():
        _check_library(tmp_path / name, library)
        committed = MANIFEST["libraries"][name]
        assert {(i["kind"], i["arch"]) for c in library["fatbinary"] for i in c["images"]} == {
            (i["kind"], i["arch"]) for c in committed["fatbinary"] for i in c["images"]
        }

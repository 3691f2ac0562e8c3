"""Entry points that feed untrusted bytes through every ROCm parser, shared by the
hypothesis property tests and the atheris harness (scripts/fuzz_rocm.py).

Each returns normally or raises InvalidBundle / InvalidElf; any other exception is a bug.
"""

from __future__ import annotations

import io

from wheel_size.rocm.fatbin_library import read_library
from wheel_size.rocm.fatbin_section import iter_bundles, iter_entries
from wheel_size.rocm.host_rewrite import plan_strip
from wheel_size.rocm.kpack import parse_kpack

__all__ = ["TARGETS", "fuzz_elf", "fuzz_kpack", "fuzz_section"]


def fuzz_section(data: bytes) -> int:
    """A ``.hip_fatbin`` section: walk every bundle and read every code object."""
    count = 0
    for ref in iter_bundles(data, where="fuzz"):
        for _item in iter_entries(data, ref, where="fuzz"):
            count += 1
    return count


def fuzz_kpack(data: bytes) -> int:
    """A ``.kpack`` archive: validate it and decompress every kernel."""
    archive = parse_kpack(data, "fuzz.kpack")
    return sum(len(blob) for _k, _a, blob in archive.iter_kernels())


def fuzz_elf(data: bytes) -> int:
    """A host library: section walk, wrappers, code objects (e_flags checked), and the
    rewrite plan (nothing written)."""
    lib = read_library(io.BytesIO(data), "fuzz.so")
    count = sum(1 for _ in lib.iter_code_objects())
    lib.targets  # noqa: B018 - exercise the header-only path too
    plan_strip(lib, kernel_name="lib/fuzz.so", search_paths=[".kpack/t_@GFXARCH@.kpack"])
    return count


TARGETS = {"section": fuzz_section, "kpack": fuzz_kpack, "elf": fuzz_elf}

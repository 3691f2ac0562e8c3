"""Kernels per code object against the compilers' own code objects (the fixture manifest,
read with pyelftools from ``nvcc -keep`` / ``clang -save-temps``) and against c++filt."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from kernelfx import library, manifest
from wheel_size.kernels.demangle import available, demangle
from wheel_size.kernels.library import iter_code_objects
from wheel_size.rocm.elf_file import ElfImage
from wheel_size.rocm.elf_tables import iter_symbols


def _listed(name: str) -> dict[str, dict[str, list[int]]]:
    """arch -> mangled name -> [bytes, copies] as wheel_size lists them (PTX: names only)."""
    problems: list[str] = []
    table: dict[str, dict[str, list[int]]] = {}
    with library(name).open("rb") as stream:
        for code in iter_code_objects(stream, name, problems):
            assert not code.functions.problems
            assert code.functions.attributed + code.functions.unattributed == code.functions.size
            slot = table.setdefault(code.arch, {})
            for function in code.functions.functions:
                size = 0 if code.arch.startswith("compute_") else function.size
                entry = slot.setdefault(function.name, [0, 0])
                entry[0] += size
                entry[1] += 1
    assert problems == []
    return {arch: functions for arch, functions in table.items() if functions}


@pytest.mark.parametrize(
    "name",
    ["libkern_v1.so", "libkern_v2.so", "libkern_v2_lz4.so", "libhkern_v1.so", "libhkern_v2.so"],
)
def test_functions_are_the_compilers_code_objects(name: str) -> None:
    want = manifest()["libraries"].get(name, {}).get("functions")
    got = _listed(name)
    assert want is not None
    assert got == {arch: functions for arch, functions in want.items() if functions}


def test_lz4_and_zstd_entries_list_the_same_kernels() -> None:
    assert _listed("libkern_v2.so") == _listed("libkern_v2_lz4.so")


def test_helper_inside_a_kernel_is_not_counted_twice() -> None:
    listed = _listed("libkern_v1.so")
    for arch, functions in listed.items():
        assert not any(n.startswith("$") for n in functions), arch
        if arch.startswith("sm_"):
            assert "_Z11uses_helperPf" in functions  # its helper's bytes are inside it


def test_demangled_names_equal_cxxfilt() -> None:
    if shutil.which("c++filt") is None:
        pytest.skip("c++filt (binutils) is not installed")
    assert available(), "libstdc++ could not be loaded"
    names: set[str] = set()
    for name in manifest()["libraries"]:
        path = library(name)
        with path.open("rb") as stream:
            elf = ElfImage(stream, name)
            names.update(s.name for s in iter_symbols(elf) if s.name)
            for code in iter_code_objects(stream, name, [], elf):
                names.update(f.name for f in code.functions.functions)
    names = sorted(names)  # type: ignore[assignment]
    assert len(names) > 100
    reference = subprocess.run(
        ["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert [demangle(n).text for n in names] == reference

"""What strip would save (issue 34, point 3), checked against real ``strip`` and
``llvm-strip-19`` on libraries built by real compilers with debug information: the estimate
from the section table is within 2 % (or 512 bytes) of the bytes each tool really removes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from wheel_size.native import read_library_facts
from wheel_size.native.debuginfo import strip_savings


def _source(functions: int) -> str:
    body = ["#include <stdio.h>", "struct rec { int a; double b; const char *c; };"]
    for i in range(functions):
        body.append(
            f"double fn{i}(struct rec *r, int n) {{ double s = {i}; "
            f"for (int k = 0; k < n; k++) s += r[k].a * r[k].b + {i}; return s; }}"
        )
    body.append('void hello(void) { printf("hi\\n"); }')
    return "\n".join(body) + "\n"


def _compiler(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed: no library to strip")
    return found


@pytest.fixture(scope="module", params=["clang-19", "gcc"])
def library(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cc = _compiler(request.param)
    folder = tmp_path_factory.mktemp(request.param)
    (folder / "lib.c").write_text(_source(120))
    out = folder / "libdemo.so"
    subprocess.run(
        [cc, "-g", "-O1", "-fPIC", "-shared", "-o", str(out), str(folder / "lib.c")], check=True
    )
    return out


def _saved(tool: str, mode: str, library: Path, tmp_path: Path) -> int:
    exe = shutil.which(tool)
    if exe is None:
        pytest.skip(f"{tool} is not installed")
    copy = tmp_path / f"{tool}{mode}.so"
    shutil.copy(library, copy)
    subprocess.run([exe, mode, str(copy)], check=True)
    return library.stat().st_size - copy.stat().st_size


@pytest.mark.parametrize("tool", ["strip", "llvm-strip-19"])
def test_estimate_matches_what_strip_removes(library: Path, tool: str, tmp_path: Path) -> None:
    facts = read_library_facts(library, source=library.name)
    assert facts.readable
    found = strip_savings(facts.sections)
    assert found.debug_bytes > 10_000 and found.symbols > 0
    for mode, estimate in (
        ("--strip-debug", found.strip_debug),
        ("--strip-unneeded", found.strip_unneeded),
    ):
        real = _saved(tool, mode, library, tmp_path)
        assert abs(estimate - real) <= max(512, real // 50), (tool, mode, estimate, real)


def test_a_stripped_library_has_nothing_to_save(library: Path, tmp_path: Path) -> None:
    exe = shutil.which("strip")
    if exe is None:
        pytest.skip("strip is not installed")
    copy = tmp_path / "stripped.so"
    shutil.copy(library, copy)
    subprocess.run([exe, "--strip-unneeded", str(copy)], check=True)
    found = strip_savings(read_library_facts(copy, source="stripped.so").sections)
    assert found.stripped and found.debug == {}


def test_an_object_file_keeps_its_symbols() -> None:
    found = strip_savings({".text": 100, ".symtab": 400, ".strtab": 90}, linked=False)
    assert found.strip_unneeded == 0 and found.symbols == 0

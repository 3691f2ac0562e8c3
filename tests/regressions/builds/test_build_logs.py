"""Wheel sizes read from real-shaped build log lines (Actions timestamps, ls, du, pip, upload)."""

from __future__ import annotations

import pytest

from wheel_size.errors import InputError
from wheel_size.regressions.builds.logs import (
    LogSize,
    compile_log_pattern,
    find_wheel_size,
    variant_hints,
)

ART = "manywheel-py3_12-cuda12_8"
CU = "torch-2.10.0.dev20251011+cu128-cp312-cp312-manylinux_2_28_x86_64.whl"
CPU = "torch-2.10.0.dev20251011+cpu-cp312-cp312-manylinux_2_28_x86_64.whl"
TS = "2025-10-11T07:42:13.1234567Z "
MB = 1 << 20
GB = 1 << 30


def size(text: str, variant: str = "cuda12_8") -> LogSize | str:
    return find_wheel_size(text, variant=variant, artifact=ART)


@pytest.mark.parametrize(
    ("line", "expected", "resolution"),
    [
        (f"{TS}-rw-r--r-- 1 root root 912345678 Oct 11 07:42 /artifacts/{CU}", 912345678, 1),
        (f"-rw-r--r--. 1 ci ci 871M 2025-10-11 07:42 dist/{CU}", 871 * MB, MB),
        (
            f"-rw-r--r-- 1 root root 1.2G Oct 11 07:42 {CU}",
            round(1.2 * (1 << 30)),
            round((1 << 30) / 10),
        ),
        (f"871M\t/artifacts/{CU}", 871 * MB, MB),
        (f"  Created wheel for torch: filename={CU} size=912345678 sha256=ab", 912345678, 1),
        (f"{TS}Wheel size: 870.1 MB", round(870.1 * MB), round(MB / 10)),
        (f"size of {CU} is 912,345,678 bytes", 912345678, 1),
        ("\x1b[36;1mWheel size: 870 MiB\x1b[0m", 870 * MB, MB),
    ],
)
def test_common_size_lines(line: str, expected: int, resolution: int) -> None:
    found = size(f"{TS}building\n{line}\n{TS}done\n")
    assert isinstance(found, LogSize), found
    assert found.size_bytes == expected
    assert found.resolution_bytes == resolution


def test_upload_artifact_line_wins_and_is_an_artifact_size() -> None:
    log = (
        f"{TS}-rw-r--r-- 1 root root 912345678 Oct 11 07:42 {CU}\n"
        f"{TS}Artifact {ART} has been successfully uploaded! Final size is 905000000 bytes. "
        "Artifact ID is 4200000000\n"
    )
    found = size(log)
    assert isinstance(found, LogSize)
    assert (found.kind, found.size_bytes, found.name) == ("artifact", 905000000, ART)


def test_the_variants_wheel_among_several() -> None:
    log = (
        f"-rw-r--r-- 1 root root 175000000 Oct 11 07:42 {CPU}\n"
        f"-rw-r--r-- 1 root root 912345678 Oct 11 07:42 {CU}\n"
        "-rw-r--r-- 1 root root 166000000 Oct 11 07:42 triton-3.5.0-cp312-cp312-linux_x86_64.whl\n"
    )
    cuda, cpu = size(log), size(log, "cpu")
    assert isinstance(cuda, LogSize) and cuda.size_bytes == 912345678
    assert isinstance(cpu, LogSize) and cpu.size_bytes == 175000000


def test_last_line_of_the_same_wheel_wins() -> None:
    log = f"Wheel size: 860 MB\n-rw-r--r-- 1 r r 1 Oct 1 07:42 {CU}\n871M  {CU}\n"
    found = size(log)
    assert isinstance(found, LogSize) and found.size_bytes == 871 * MB


@pytest.mark.parametrize(
    ("log", "reason"),
    [
        ("", "the log has no wheel size line"),
        ("Compiling 4000 files\n" * 10, "the log has no wheel size line"),
        (f"123456\t{CU}\n", "the log has no wheel size line"),  # unit-less du: ambiguous
        (
            "-rw-r--r-- 1 r r 1 Oct 1 07:42 a-1-py3-none-any.whl\n"
            "-rw-r--r-- 1 r r 2 Oct 1 07:42 b-1-py3-none-any.whl\n",
            "several wheels, none named for cuda12_8",
        ),
        ("x" * 10_000 + " size: 5 MB\n", "the log has no wheel size line"),
    ],
)
def test_no_usable_line(log: str, reason: str) -> None:
    found = size(log)
    assert isinstance(found, str) and reason in found


def test_hints_and_custom_patterns() -> None:
    assert variant_hints("cuda12_8", ART) == ("cu128", "cp312")
    assert variant_hints("rocm6_4", "manywheel-py3_10-rocm6_4") == ("rocm6.4", "cp310")
    pattern = compile_log_pattern(r"wheel weighs (?P<size>\d+) (?P<unit>KiB)")
    found = find_wheel_size("wheel weighs 2048 KiB\n", variant="cpu", artifact=None,
                            patterns=(pattern,))  # fmt: skip
    assert isinstance(found, LogSize) and found.size_bytes == 2 * MB
    with pytest.raises(InputError, match="needs a"):
        compile_log_pattern(r"\d+")
    with pytest.raises(InputError, match="not a regex"):
        compile_log_pattern("(")

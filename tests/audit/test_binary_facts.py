"""The audit's platform-fact readers on hostile variants of real binaries: a problem naming
the member, or nothing, never an exception or an endless loop."""

from __future__ import annotations

import struct
from pathlib import Path

from elftools.elf.elffile import ELFFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO_ROOT
from wheel_size.audit.binary_facts import elf_facts, macho_facts, pe_facts
from wheel_size.audit.gpu import hip_member_targets, inspect_gpu_file, kpack_reference

HOST = REPO_ROOT / "tests" / "data" / "hip" / "libhost.so"
FAT = REPO_ROOT / "tests" / "data" / "hip" / "libplain19.so"


def test_endless_version_needs_are_cut_short(tmp_path: Path) -> None:
    """``.gnu.version_r`` claiming 2**31 entries whose ``vn_next`` is 0 (the same entry for
    ever): pyelftools would iterate it for hours; the reader stops at a bound."""
    data = bytearray(HOST.read_bytes())
    with HOST.open("rb") as stream:
        elf = ELFFile(stream)
        index = next(i for i, s in enumerate(elf.iter_sections()) if s.name == ".gnu.version_r")
        header = elf["e_shoff"] + index * elf["e_shentsize"]
        offset = elf.get_section(index)["sh_offset"]
    struct.pack_into("<I", data, header + 44, 0x7FFFFFFF)  # sh_info: number of entries
    struct.pack_into("<I", data, offset + 12, 0)  # vn_next of the first entry
    path = tmp_path / "loop.so"
    path.write_bytes(bytes(data))
    facts = elf_facts(path, "x.whl:lib/loop.so")
    assert facts.problems == ["x.whl:lib/loop.so: symbol versions unreadable (ValueError)"]


def test_real_library_facts() -> None:
    facts = elf_facts(HOST, "x.whl:lib/libhost.so")
    assert facts.problems == [] and facts.machines == ["x86_64"]
    assert facts.glibc and all(v[0] == 2 for v in facts.glibc)


def test_hostile_macho_and_pe_headers(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"\xca\xfe\xba\xbe" + struct.pack(">I", 52) + b"\0" * 64)  # a Java class
    assert macho_facts(path, "s").machines == []
    path.write_bytes(
        b"\xca\xfe\xba\xbe"
        + struct.pack(">I", 2)
        + struct.pack(">5I", 7, 3, 1 << 40 & 0xFFFFFFFF, 4, 0)
    )
    assert macho_facts(path, "s").machines == []  # slice offset past the end
    path.write_bytes(
        b"\xcf\xfa\xed\xfe" + struct.pack("<IiiII", 0x0100000C, 0, 6, 9999, 1 << 31) + b"\0" * 8
    )
    assert macho_facts(path, "s").machines == ["arm64"]  # load commands truncated
    path.write_bytes(b"MZ" + b"\0" * 58 + struct.pack("<I", 0xFFFFFFF0))
    assert pe_facts(path, "w.whl:a.dll").problems == [
        "w.whl:a.dll: starts with MZ but has no PE header"
    ]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cut=st.integers(min_value=0, max_value=20000),
    edits=st.lists(st.tuples(st.integers(0, 20000), st.integers(0, 255)), max_size=6),
)
def test_mutated_libraries_never_escape(
    tmp_path: Path, cut: int, edits: list[tuple[int, int]]
) -> None:
    """Truncated and byte-flipped copies of a clang-built fat library: every reader either
    answers or reports a problem that names the member, never the temporary path."""
    data = bytearray(FAT.read_bytes())
    for pos, value in edits:
        if pos < len(data):
            data[pos] = value
    data = data[: len(data) - cut] if cut < len(data) else data
    path = tmp_path / "copy.so"
    path.write_bytes(bytes(data))
    source = "w.whl:torch/lib/libplain19.so"
    facts = elf_facts(path, source)
    assert all(p.startswith(source) for p in facts.problems)
    for reader in (kpack_reference, hip_member_targets):
        try:
            reader(path, source)
        except ValueError as exc:  # every WheelSizeError input error is a ValueError
            assert str(exc).startswith(source) and str(tmp_path) not in str(exc)
    _item, problem = inspect_gpu_file(path, "torch/.kpack/t_gfx942.kpack", "kpack", 1, source)
    assert problem is not None and problem.startswith(source)

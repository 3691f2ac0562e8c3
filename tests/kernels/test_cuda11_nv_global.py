"""``.nv.global`` (uninitialised device globals) has no bytes in the file. CUDA 13 writes it
as SHT_NOBITS; CUDA 11.8 cubins (bitsandbytes 0.50.2's ``libbitsandbytes_cuda118.dll``)
write type 0x70000007, which cuobjdump calls CUDA_GLOBAL, and place it where the section
headers start: it must not read as a section "outside the file"."""

from __future__ import annotations

import struct

import pytest

from cubinfx import CUBIN
from wheel_size.kernels.functions import elf_functions, reference_functions
from wheel_size.rocm.elf_file import ElfImage

SHT_CUDA_GLOBAL = 0x70000007


def cuda11_style() -> bytes:
    """k_global_sm_80.cubin (nvcc 13, ``tests/data/cubin/k_global.cu``) with .nv.global's
    type set to 0x70000007 and moved to the end of the file, as CUDA 11.8 writes it."""
    data = bytearray((CUBIN / "k_global_sm_80.cubin").read_bytes())
    image = ElfImage(bytes(data), "k")
    (section,) = [s for s in image.sections if s.name == ".nv.global"]
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    header = shoff + 64 * section.index
    struct.pack_into("<I", data, header + 4, SHT_CUDA_GLOBAL)
    struct.pack_into("<Q", data, header + 24, len(data))  # sh_offset: the end of the file
    return bytes(data)


@pytest.mark.parametrize("read", [elf_functions, reference_functions])
def test_nv_global_of_cuda11_has_no_file_bytes(read: object) -> None:
    found = read(cuda11_style(), "k")  # type: ignore[operator]
    assert found.problems == []
    assert [f.name for f in found.functions] == ["use"]
    image = ElfImage(cuda11_style(), "k")
    assert {s.name: s.file_size for s in image.sections}[".nv.global"] == 0

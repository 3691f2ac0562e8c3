"""A wheel member that *is* GPU code: a standalone cubin or AMDGPU code object.

``flashinfer-cubin`` ships 15,558 ``.cubin`` files; Tensile and AOTriton ship ``.hsaco`` /
``.co`` files.  They are ELF files, but for a GPU (``e_machine`` EM_CUDA 190, EM_AMDGPU 224):
no glibc, no DT_NEEDED, no host machine to check.  Their architecture is in the ELF header,
so it is read from the first 64 bytes alone (no copy, no section walk):

* CUDA (NVIDIA's ELF ABI as LLVM ``ELF.h`` names it): ``EI_ABIVERSION`` 8 and later (CUDA
  12.8+, ``EI_OSABI`` 0x41) put the SM number in ``e_flags`` bits 8-15; version 7 and
  earlier in bits 0-7 (``EF_CUDA_SM``). An architecture-specific cubin (``sm_90a``,
  ``sm_103a``: it loads on that exact GPU only) sets ``EF_CUDA_ACCELERATORS``, 0x8 in the
  new layout and 0x800 (``EF_CUDA_ACCELERATORS_V1``) in the old. ``ptxas`` of CUDA 13.0
  (``nvcc -cubin -arch=sm_100a``) leaves that bit clear and marks the cubin in its
  ``.nv.compat`` section instead (attribute 9 set to 1; the records are ``.nv.info``'s:
  format byte, attribute byte, a 16-bit value or, for format 4, a 16-bit size and that many
  bytes); ``cuobjdump`` reads both, and so does :func:`standalone_code` when it is given the
  whole file. A family cubin (``sm_100f``) has neither mark and reads, as ``cuobjdump``
  shows it, as ``sm_100``;
* AMDGPU: ``e_flags & 0xff`` is the processor (``EF_AMDGPU_MACH``), the xnack / sramecc
  fields its features (:mod:`wheel_size.rocm.amdgpu_elf`).

A header whose flags name no architecture is a lying header: one problem naming the member.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from wheel_size.errors import InvalidBundle, InvalidElf
from wheel_size.rocm import amdgpu_elf

__all__ = [
    "EM_AMDGPU",
    "EM_CUDA",
    "STANDALONE_SECTION",
    "StandaloneCode",
    "gpu_machine",
    "standalone_code",
]

EM_CUDA = 190
EM_AMDGPU = amdgpu_elf.EM_AMDGPU
#: The "section" a standalone code object's GPU rows name: the whole file is the code.
STANDALONE_SECTION = "(code object file)"
_NEW_CUDA_ABI = 8  # EI_ABIVERSION from CUDA 12.8 on: SM in e_flags bits 8-15
_LOWEST_SM = 10  # sm_10 is the first NVIDIA architecture; 0-9 name none
_ACCELERATORS = 0x8  # EF_CUDA_ACCELERATORS, ABI version 8: the ``a`` suffix
_ACCELERATORS_V1 = 0x800  # EF_CUDA_ACCELERATORS_V1, ABI version 7 and earlier
_COMPAT_SECTION = b".nv.compat"
_COMPAT_ARCH_SPECIFIC = 9  # the .nv.compat attribute ptxas sets to 1 for an ``a`` target
_SIZED_RECORD = 4  # .nv.info's EIFMT_SVAL: a 16-bit size, then that many bytes


@dataclass(frozen=True)
class StandaloneCode:
    """What a standalone code object is built for: ``cuda``/``sass`` with ``sm_XY``, or
    ``hip``/``code_object`` with a gfx target ID."""

    kind: str
    arch: str
    image: str


def gpu_machine(head: bytes) -> int | None:
    """EM_CUDA or EM_AMDGPU when ``head`` starts an ELF file for a GPU, else None."""
    if len(head) < 20 or head[:4] != b"\x7fELF" or head[5] not in (1, 2):
        return None
    (machine,) = struct.unpack_from("<H" if head[5] == 1 else ">H", head, 18)
    return machine if machine in (EM_CUDA, EM_AMDGPU) else None


def _cuda_arch(head: bytes, where: str) -> str:
    if len(head) < 52:
        raise InvalidElf(f"{where}: truncated ELF header")
    offset = 48 if head[4] == 2 else 36  # e_flags: ELF64 / ELF32
    (flags,) = struct.unpack_from("<I" if head[5] == 1 else ">I", head, offset)
    new_abi = head[8] >= _NEW_CUDA_ABI
    sm = (flags >> 8) & 0xFF if new_abi else flags & 0xFF
    if sm < _LOWEST_SM:
        raise InvalidElf(
            f"{where}: cubin header e_flags 0x{flags:x} (ABI version {head[8]}) name no SM "
            "architecture"
        )
    specific = flags & (_ACCELERATORS if new_abi else _ACCELERATORS_V1)
    return f"sm_{sm}{'a' if specific else ''}"


def _compat_records(data: bytes) -> bytes | None:
    """The ``.nv.compat`` section of the little-endian ELF64 cubin ``data``, or None (no
    such section, or section headers that do not fit the file: the header alone decides)."""
    if len(data) < 64 or data[4] != 2 or data[5] != 1:
        return None
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shentsize < 64 or shnum == 0 or shstrndx >= shnum or shoff + shnum * shentsize > len(data):
        return None

    def header(index: int) -> tuple[int, int, int]:
        name, _type, _flags, _addr, offset, size = struct.unpack_from(
            "<IIQQQQ", data, shoff + index * shentsize
        )
        return name, offset, size

    _, names_at, names_size = header(shstrndx)
    if names_at + names_size > len(data):
        return None
    for index in range(shnum):
        name, offset, size = header(index)
        end = data.find(b"\0", names_at + name, names_at + names_size)
        if end >= 0 and data[names_at + name : end] == _COMPAT_SECTION:
            return data[offset : offset + size] if offset + size <= len(data) else None
    return None


def _compat_says_arch_specific(data: bytes) -> bool:
    """Whether the cubin's ``.nv.compat`` records mark an architecture-specific target."""
    records = _compat_records(data)
    at = 0
    while records is not None and at + 4 <= len(records):
        kind, attribute, value = records[at], records[at + 1], records[at + 2 : at + 4]
        if kind == _SIZED_RECORD:
            at += 4 + int.from_bytes(value, "little")
            continue
        if attribute == _COMPAT_ARCH_SPECIFIC:
            return int.from_bytes(value, "little") == 1
        at += 4
    return False


def _amdgpu_arch(head: bytes, where: str) -> str:
    try:
        header = amdgpu_elf.read_header(head[:64], where)
    except InvalidBundle as exc:
        raise InvalidElf(str(exc)) from None
    name = amdgpu_elf.MACH.get(header.mach)
    if name is None:
        raise InvalidElf(
            f"{where}: code object header e_flags 0x{header.flags:x} name no known AMDGPU "
            f"processor (mach 0x{header.mach:02x})"
        )
    features = []
    if header.abi_version >= 2:  # v4+: two-bit fields, on / off / any / unsupported
        for feature, shift in (("sramecc", 10), ("xnack", 8)):
            state = (header.flags >> shift) & 3
            if state in (2, 3):
                features.append(f"{feature}{'+' if state == 3 else '-'}")
    return ":".join([name, *features])


def standalone_code(head: bytes, where: str, whole: bytes | None = None) -> StandaloneCode | None:
    """The architecture of the GPU ELF file whose first bytes are ``head`` (at least 64),
    None for a host ELF file or anything else. ``whole``, the entire file when the caller
    has it, lets a cubin's ``.nv.compat`` add the ``a`` its header may leave out. Raises
    InvalidElf for a lying header."""
    machine = gpu_machine(head)
    if machine == EM_CUDA:
        arch = _cuda_arch(head, where)
        if whole is not None and not arch.endswith("a") and _compat_says_arch_specific(whole):
            arch += "a"
        return StandaloneCode("cuda", arch, "sass")
    if machine == EM_AMDGPU:
        return StandaloneCode("hip", _amdgpu_arch(head, where), "code_object")
    return None

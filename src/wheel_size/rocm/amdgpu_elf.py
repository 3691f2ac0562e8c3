"""Check that a code object is built for the target its bundle entry claims.

The AMDGPU ELF header says it all (spec section 4.1, LLVM ``ELF.h``): ``e_machine`` 224,
``EI_ABIVERSION`` the code object version, ``e_flags & 0xff`` the processor
(EF_AMDGPU_MACH) and the xnack / sramecc settings.  A mismatch means the bundle entry ID
lies about its contents, and a kpack keyed by that ID would hand the GPU the wrong code.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from wheel_size.errors import InvalidBundle
from wheel_size.rocm.target_id import TargetId

__all__ = ["MACH", "CodeObjectHeader", "code_object_version", "read_header", "verify_code_object"]

EM_AMDGPU = 224
ELFOSABI_AMDGPU_HSA = 64

# EF_AMDGPU_MACH -> processor.  0x40/0x4b (gfx940/gfx941) are reserved in newer LLVM but
# still appear in clang-15 output; 0x49/0x5a come from ROCm's header.
MACH: dict[int, str] = {
    0x20: "gfx600", 0x21: "gfx601", 0x22: "gfx700", 0x23: "gfx701", 0x24: "gfx702",
    0x25: "gfx703", 0x26: "gfx704", 0x28: "gfx801", 0x29: "gfx802", 0x2A: "gfx803",
    0x2B: "gfx810", 0x2C: "gfx900", 0x2D: "gfx902", 0x2E: "gfx904", 0x2F: "gfx906",
    0x30: "gfx908", 0x31: "gfx909", 0x32: "gfx90c", 0x33: "gfx1010", 0x34: "gfx1011",
    0x35: "gfx1012", 0x36: "gfx1030", 0x37: "gfx1031", 0x38: "gfx1032", 0x39: "gfx1033",
    0x3A: "gfx602", 0x3B: "gfx705", 0x3C: "gfx805", 0x3D: "gfx1035", 0x3E: "gfx1034",
    0x3F: "gfx90a", 0x40: "gfx940", 0x41: "gfx1100", 0x42: "gfx1013", 0x43: "gfx1150",
    0x44: "gfx1103", 0x45: "gfx1036", 0x46: "gfx1101", 0x47: "gfx1102", 0x48: "gfx1200",
    0x49: "gfx1250", 0x4A: "gfx1151", 0x4B: "gfx941", 0x4C: "gfx942", 0x4E: "gfx1201",
    0x4F: "gfx950", 0x51: "gfx9-generic", 0x52: "gfx10-1-generic", 0x53: "gfx10-3-generic",
    0x54: "gfx11-generic", 0x55: "gfx1152", 0x58: "gfx1153", 0x59: "gfx12-generic",
    0x5A: "gfx1251", 0x5F: "gfx9-4-generic",
}  # fmt: skip
_PROCESSOR_MACH = {name: mach for mach, name in MACH.items()}

# Code object v4+ (EI_ABIVERSION >= 2): two-bit fields.
_V4_FIELDS = {"xnack": (0x300, 8), "sramecc": (0xC00, 10)}
_V4_STATE = {0: "unsupported", 1: "any", 2: "off", 3: "on"}
# Code object v3 (EI_ABIVERSION 1): booleans.
_V3_BITS = {"xnack": 0x100, "sramecc": 0x200}


@dataclass(frozen=True)
class CodeObjectHeader:
    abi_version: int  # EI_ABIVERSION: 0=v2, 1=v3, 2=v4, 3=v5, 4=v6
    flags: int

    @property
    def mach(self) -> int:
        return self.flags & 0xFF

    @property
    def code_object_version(self) -> int:
        return self.abi_version + 2


def read_header(data: bytes, where: str) -> CodeObjectHeader:
    """Parse the first 64 bytes of an AMDGPU code object; InvalidBundle if it is not one."""
    if len(data) < 64 or data[:4] != b"\x7fELF":
        raise InvalidBundle(f"{where}: code object is not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise InvalidBundle(f"{where}: code object is not a 64-bit little-endian ELF")
    (machine,) = struct.unpack_from("<H", data, 18)
    if machine != EM_AMDGPU:
        raise InvalidBundle(f"{where}: code object has e_machine {machine}, not AMDGPU (224)")
    (flags,) = struct.unpack_from("<I", data, 48)
    return CodeObjectHeader(
        abi_version=data[8] if data[7] == ELFOSABI_AMDGPU_HSA else -1, flags=flags
    )


def code_object_version(data: bytes, where: str) -> int:
    """The HSA code object version (2..6), or InvalidBundle."""
    header = read_header(data, where)
    if header.abi_version < 0:
        raise InvalidBundle(f"{where}: code object is not for the AMDHSA OS ABI")
    return header.code_object_version


def verify_code_object(data: bytes, target: TargetId, where: str) -> CodeObjectHeader:
    """Raise InvalidBundle unless the ELF header of ``data`` matches ``target``.

    The processor must match EF_AMDGPU_MACH (an unknown processor is accepted only when
    the mach is unknown too: newer than our table).  Each ``:xnack±``/``:sramecc±`` must
    be on/off in e_flags; a target ID silent about a feature accepts "any" and
    "unsupported" (v4+) or either bit (v3).
    """
    header = read_header(data, where)
    if header.abi_version < 0:
        raise InvalidBundle(f"{where}: code object is not for the AMDHSA OS ABI")
    found = MACH.get(header.mach)
    wanted = _PROCESSOR_MACH.get(target.processor)
    if found != target.processor and (wanted is not None or found is not None):
        raise InvalidBundle(
            f"{where}: entry says {target.processor} but the code object's ELF e_flags "
            f"0x{header.flags:x} say {found or f'unknown mach 0x{header.mach:02x}'}"
        )
    for name, (mask, shift) in _V4_FIELDS.items():
        said = target.feature(name)
        if header.abi_version >= 2:
            state = _V4_STATE[(header.flags & mask) >> shift]
            ok = (said is None and state in ("any", "unsupported")) or (
                said is not None and state == ("on" if said else "off")
            )
        elif header.abi_version == 1:
            state = "on" if header.flags & _V3_BITS[name] else "off"
            ok = said is None or state == ("on" if said else "off")
        else:
            continue  # v2 has no reliable feature bits
        if not ok:
            claim = f"{name}{'+' if said else '-'}" if said is not None else f"no {name} setting"
            raise InvalidBundle(
                f"{where}: entry says {claim} but the code object's ELF e_flags "
                f"0x{header.flags:x} say {name} {state}"
            )
    return header

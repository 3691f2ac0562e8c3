"""Which native format a file is, from its first bytes (never from its name)."""

from __future__ import annotations

__all__ = ["ELF_MAGIC", "native_format"]

ELF_MAGIC = b"\x7fELF"
_MACHO = {
    b"\xfe\xed\xfa\xce",
    b"\xce\xfa\xed\xfe",
    b"\xfe\xed\xfa\xcf",
    b"\xcf\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",
}


def native_format(head: bytes) -> str | None:
    """``elf``, ``mach-o``, ``pe`` or ``None`` from a file's first bytes."""
    if head[:4] == ELF_MAGIC:
        return "elf"
    if head[:4] in _MACHO:
        return "mach-o"
    if head[:2] == b"MZ":
        return "pe"
    return None

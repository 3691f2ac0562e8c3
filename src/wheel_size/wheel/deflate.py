"""Raw deflate streams for zip members, through ISA-L when it is installed.

Inflating fat libraries and deflating rewritten ones is most of a split's CPU time. ISA-L
(``isal``) inflates about twice and deflates ten times faster than zlib, but even at its top
level it compresses host code 12-23 % worse than zlib's level 6 (amd-mori 1.2.4,
``docs/benchmarks.md``), so a wheel rewritten through ISA-L alone came out bigger than its
input. :func:`reference_compressobj` is therefore zlib at the level asked for: the size bound
every member we write must meet. :func:`compressobj` (ISA-L when installed) is the fast
candidate that :func:`wheel_size.wheel.writer.compress_file` keeps only where it meets that
bound. The output is a standard deflate stream either way.
"""

from __future__ import annotations

import importlib
import zlib
from typing import Any

__all__ = [
    "BACKEND",
    "ERRORS",
    "FAST_LEVEL",
    "HAS_FAST",
    "compressobj",
    "crc32",
    "decompressobj",
    "reference_compressobj",
]

_isal: Any
try:
    _isal = importlib.import_module("isal.isal_zlib")
except ImportError:  # pragma: no cover - isal is a dependency; zlib keeps odd platforms working
    _isal = None

BACKEND = "isal" if _isal is not None else "zlib"
HAS_FAST = _isal is not None  # a second, faster compressor to try against zlib
# What a decompressor raises on corrupt input (ISA-L's IsalError is not a zlib.error).
ERRORS: tuple[type[Exception], ...] = (
    (zlib.error, _isal.error) if _isal is not None else (zlib.error,)
)


# ISA-L's best level: still 4-10x faster than zlib 6, and the only one that comes near it.
FAST_LEVEL = 3


def compressobj(level: int = 6) -> Any:
    """The fast raw-deflate compressor: ISA-L at its best level (zlib ``level`` 0 stores and
    has no ISA-L counterpart, so it stays zlib), or zlib without ``isal``."""
    if _isal is not None and level > 0:
        return _isal.compressobj(FAST_LEVEL, _isal.DEFLATED, -15)
    return zlib.compressobj(level, zlib.DEFLATED, -15)


def reference_compressobj(level: int = 6) -> Any:
    """zlib at ``level`` 0-9: what ``zipfile`` and the wheel tools write, and the size every
    member we write must not exceed."""
    return zlib.compressobj(level, zlib.DEFLATED, -15)


def decompressobj() -> Any:
    """A raw-deflate decompressor."""
    if _isal is not None:
        return _isal.decompressobj(-15)
    return zlib.decompressobj(-15)


def crc32(data: bytes, value: int = 0) -> int:
    """CRC-32 as zip wants it (ISA-L's is several times faster)."""
    if _isal is not None:
        return int(_isal.crc32(data, value))
    return zlib.crc32(data, value)

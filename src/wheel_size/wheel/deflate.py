"""Raw deflate streams for zip members, through ISA-L when it is installed.

Inflating fat libraries and deflating rewritten ones is most of a split's CPU time. ISA-L
(``isal``) inflates about twice and deflates ten times faster than zlib, and its level 1 already
compresses GPU libraries as well as zlib's level 6. The output is a standard deflate stream
either way; without ``isal`` zlib is used.
"""

from __future__ import annotations

import importlib
import zlib
from typing import Any

__all__ = ["BACKEND", "ERRORS", "compressobj", "crc32", "decompressobj"]

_isal: Any
try:
    _isal = importlib.import_module("isal.isal_zlib")
except ImportError:  # pragma: no cover - isal is a dependency; zlib keeps odd platforms working
    _isal = None

BACKEND = "isal" if _isal is not None else "zlib"
# What a decompressor raises on corrupt input (ISA-L's IsalError is not a zlib.error).
ERRORS: tuple[type[Exception], ...] = (
    (zlib.error, _isal.error) if _isal is not None else (zlib.error,)
)


def compressobj(level: int = 6) -> Any:
    """A raw-deflate compressor; zlib ``level`` 0-9 (mapped onto ISA-L's 0-3)."""
    if _isal is not None:
        return _isal.compressobj(min(3, (level + 2) // 3), _isal.DEFLATED, -15)
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

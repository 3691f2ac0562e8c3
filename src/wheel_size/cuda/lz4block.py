"""LZ4 block decompression, for fatbin entries nvcc compressed with ``--compress-mode=speed``.

No LZ4 binding is a dependency of ours and only kernel listings need the bytes, so this is
the block format (lz4 ``doc/lz4_Block_format.md``) in a few lines; when the ``lz4`` package
is installed its C decoder is used instead (same checks on the result). Output is bounded
by the size the entry header claims: a block that would write past it, reads past its
input or copies from before the start is InvalidBundle, and so is one that comes up short.
"""

from __future__ import annotations

from collections.abc import Callable

from wheel_size.errors import InvalidBundle

__all__ = ["decompress_block"]


def _native() -> Callable[[bytes, int], bytes] | None:
    try:
        from lz4 import block  # type: ignore[import-not-found]
    except ImportError:
        return None

    def run(data: bytes, size: int) -> bytes:
        out: bytes = block.decompress(data, uncompressed_size=size)
        return out

    return run


_NATIVE = _native()


def decompress_block(data: bytes, size: int, where: str) -> bytes:
    """The ``size`` bytes the LZ4 block ``data`` decodes to (exactly that many)."""
    if _NATIVE is not None:
        try:
            out = _NATIVE(data, size)
        except Exception as exc:  # lz4.block raises LZ4BlockError (a RuntimeError)
            raise InvalidBundle(f"{where}: LZ4 block does not decompress ({exc})") from None
        if len(out) != size:
            raise InvalidBundle(f"{where}: LZ4 block decodes to {len(out)} bytes, not {size}")
        return out
    return _python(data, size, where)


def _python(data: bytes, size: int, where: str) -> bytes:
    out = bytearray()
    pos = 0
    end = len(data)
    while pos < end:
        token = data[pos]
        pos += 1
        literals = token >> 4
        if literals == 15:
            while True:
                if pos >= end:
                    raise InvalidBundle(f"{where}: LZ4 block ends inside a length")
                byte = data[pos]
                pos += 1
                literals += byte
                if byte != 255:
                    break
        if literals:
            if pos + literals > end or len(out) + literals > size:
                raise InvalidBundle(f"{where}: LZ4 literals run past the block or the claimed size")
            out += data[pos : pos + literals]
            pos += literals
        if pos >= end:
            break  # the last sequence has literals only
        if pos + 2 > end:
            raise InvalidBundle(f"{where}: LZ4 block ends inside an offset")
        offset = data[pos] | data[pos + 1] << 8
        pos += 2
        match = token & 15
        if match == 15:
            while True:
                if pos >= end:
                    raise InvalidBundle(f"{where}: LZ4 block ends inside a length")
                byte = data[pos]
                pos += 1
                match += byte
                if byte != 255:
                    break
        match += 4
        have = len(out)
        if offset == 0 or offset > have:
            raise InvalidBundle(f"{where}: LZ4 match offset {offset} points before the output")
        if have + match > size:
            raise InvalidBundle(f"{where}: LZ4 block decodes past the claimed {size} bytes")
        start = have - offset
        if offset >= match:
            out += out[start : start + match]
        else:  # overlapping copy: repeat the last ``offset`` bytes
            out += (out[start:] * (match // offset + 1))[:match]
    if len(out) != size:
        raise InvalidBundle(
            f"{where}: LZ4 block decodes to {len(out)} bytes, not the claimed {size}"
        )
    return bytes(out)

"""Just enough of a PNG decoder (zlib + the five row filters) to count pixels in a
screenshot; Chromium writes 8-bit RGB(A), non-interlaced."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable

_CHANNELS = {2: 3, 6: 4, 0: 1, 4: 2}


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """Return (width, height, channels, rows of raw unfiltered bytes)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, bytearray(), None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or interlace or color not in _CHANNELS:
        raise ValueError(f"unsupported PNG: depth {depth}, color {color}, interlace {interlace}")
    channels = _CHANNELS[color]
    stride = width * channels
    raw = zlib.decompress(bytes(idat))
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                line[i] = (line[i] + _paeth(left, up, up_left)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def count_pixels(data: bytes, predicate: Callable[[int, int, int], bool]) -> int:
    """Number of pixels whose (r, g, b) satisfies ``predicate``."""
    width, _, channels, rows = decode_png(data)
    total = 0
    for row in rows:
        for x in range(0, width * channels, channels):
            if channels >= 3:
                r, g, b = row[x], row[x + 1], row[x + 2]
            else:
                r = g = b = row[x]
            if predicate(r, g, b):
                total += 1
    return total

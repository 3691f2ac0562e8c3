"""Code objects of plain offload bundles taken out of a fat ELF library while it is inflated.

Why: a split inflates each fat library into a scratch file, parses it (an ELF file's
section headers, which say where ``.hip_fatbin`` lies, come last), then reads every code
object back to compress it into a kpack frame. The device code is most of a fat library,
so it went through memory three times: written into the scratch file, read back, then
compressed. Here the inflated stream is watched as it arrives: at each 4 KiB boundary (where
clang places every bundle and every code object in it: all 315 bundles and 1,614 plain code
objects of nine real ROCm wheels, ``benchmarks/bundle_alignment.py``) a plain bundle's header
is recognised, and the code objects it names are compressed into their frames on the way
past; only their first and last pages reach the scratch file, the rest is left a hole.

Nothing here is trusted: what was taken is a guess until the library has been parsed from
the scratch file. :func:`usable` accepts it only when every bundle it took is a bundle of the
planned ``.hip_fatbin``, every one of that bundle's code objects was taken with the offset,
size and target the plan gives, and every hole lies inside the byte range the host rewrite
cuts out (so no byte it copies is missing). Anything else, and the split inflates the
library again without holes and proceeds as if nothing had been taken.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from wheel_size.errors import InvalidBundle
from wheel_size.rocm.kpack import KernelFrameWriter
from wheel_size.rocm.offload_bundle import MAGIC, PlainBundleHeader, read_plain_header

if TYPE_CHECKING:
    from wheel_size.rocm.fatbin_section import BundleRef

__all__ = ["ALIGN", "BundleCapture", "CapturedBundle", "CapturedCode", "usable"]

ALIGN = 4096  # bundles and their code objects start on 4 KiB boundaries (module docstring)
_HEADER_CAP = 1 << 20  # a header still unparsed after this many bytes is not one we take
_HEAD = 64  # bytes of a code object kept for verify_code_object
_PT_LOAD = 1


@dataclass(frozen=True)
class CapturedCode:
    """One code object taken: where it lay in the library and where its frame was staged."""

    start: int
    size: int
    target: str
    entry_id: str
    staged: Path
    offset: int  # of its frame in ``staged``
    length: int
    head: bytes  # its first bytes (at most 64), for the check the apply phase makes


@dataclass(frozen=True)
class CapturedBundle:
    """A plain bundle at ``start`` of the library, all of whose device code objects were
    taken (in the header's file order), and the holes their interiors left."""

    start: int
    codes: tuple[CapturedCode, ...]
    holes: tuple[tuple[int, int], ...]


class _Reader:
    """Reads from a growing header buffer; ``_Short`` when it has not arrived yet."""

    def __init__(self, data: bytearray) -> None:
        self.data = data
        self.pos = 0

    def read(self, size: int) -> bytes:
        end = self.pos + size
        if end > len(self.data):
            raise _Short
        chunk = bytes(self.data[self.pos : end])
        self.pos = end
        return chunk


class _Short(Exception):
    """The header buffer ends before the header does."""


@dataclass
class _Code:
    """A code object still to arrive, or arriving."""

    start: int
    end: int
    target: str
    entry_id: str
    hole: tuple[int, int]
    frame: KernelFrameWriter | None = None
    offset: int = 0  # of its frame in the staging file
    head: bytes = b""  # its first bytes, for verify_code_object


@dataclass
class _Bundle:
    start: int
    codes: list[_Code]
    done: list[CapturedCode] = field(default_factory=list)


class BundleCapture:
    """A sink for a library's inflated bytes (:meth:`feed`, in order, then :meth:`close`):
    everything goes to ``out`` (the scratch file) except the interiors of the code objects
    of the plain bundles it recognises, which go to their frames in ``staging``'s files
    (one per target, as the apply phase names them) instead."""

    def __init__(
        self,
        out: IO[bytes] | None,
        staging: dict[str, tuple[Path, IO[bytes]]],
        stage: Path,
        level: int | None,
    ) -> None:
        self.out: Any = out  # the scratch file, set by the caller before the first feed
        self.staging = staging
        self.stage = stage  # staging files are ``<stage>-<k>.bin``
        self.level = level
        self.pos = 0  # library offset of the next byte fed
        self.page = 0  # the rewrite's page size; 0 until the program headers are read; -1: off
        self.head = b""  # the file's first bytes until then
        self.header: tuple[int, bytearray] | None = None  # a bundle header arriving
        self.skip = 0  # no bundle header is looked for before this offset
        self.bundle: _Bundle | None = None  # the bundle whose code objects are arriving
        self.taken: list[CapturedBundle] = []
        self.made_holes = False  # some bytes never reached the scratch file
        self.inflated = False  # set by the caller once the whole member has been fed
        # told the offset of the first bundle it takes: every byte before it is host code
        self.first_bundle: Callable[[int], None] | None = None

    # -- the stream ----------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        view = memoryview(data)
        if self.page == 0:  # the program headers, from the file's first bytes
            self.head += data[: ALIGN - len(self.head)]
            self.page = _page_size(self.head, final=len(self.head) >= ALIGN)
        i = 0
        while i < len(view):
            code = self._next_code()
            if code is not None and code.start <= self.pos:
                i += self._code_bytes(code, view[i:])
            elif self.header is not None:
                i += self._header_bytes(view[i:])
            else:
                stop = len(view) if code is None else min(len(view), i + code.start - self.pos)
                i += self._plain_bytes(view[i:stop])

    def close(self) -> list[CapturedBundle] | None:
        """The bundles taken, each whole; None when the stream ended inside a bundle's code
        objects (holes no plan can vouch for: the library must be inflated again)."""
        return None if self.bundle is not None else self.taken

    def _next_code(self) -> _Code | None:
        if self.bundle is None:
            return None
        index = len(self.bundle.done)
        return self.bundle.codes[index] if index < len(self.bundle.codes) else None

    def _write(self, piece: memoryview) -> int:
        self.out.write(piece)
        self.pos += len(piece)
        return len(piece)

    def _plain_bytes(self, piece: memoryview) -> int:
        """Bytes outside every code object: written up to the first 4 KiB boundary that may
        start a bundle header (then :meth:`_header_bytes` takes over); how many were."""
        if self.page <= 0 or self.bundle is not None:
            return self._write(piece)  # not an ELF file we take from, or inside a bundle
        first = -self.pos % ALIGN
        # the first byte at every 4 KiB boundary in the piece: a bundle starts with "_"
        marks = bytes(piece[first::ALIGN])
        at = marks.find(MAGIC[:1])
        while at >= 0:
            offset = first + at * ALIGN
            if self.pos + offset >= self.skip and MAGIC.startswith(
                bytes(piece[offset : offset + len(MAGIC)])
            ):
                self.header = (self.pos + offset, bytearray())
                return self._write(piece[:offset])
            at = marks.find(MAGIC[:1], at + 1)
        return self._write(piece)

    def _header_bytes(self, piece: memoryview) -> int:
        """Bytes of a possible bundle header: parsed with what has arrived; on success the
        header's own bytes are written and its code objects expected; how many were used."""
        assert self.header is not None
        start, buffered = self.header
        data = buffered + piece[: _HEADER_CAP - len(buffered)]
        if bytes(data[: len(MAGIC)]) != MAGIC[: len(data)]:
            return self._reject(start)
        try:
            reader = _Reader(data)
            plain = read_plain_header(reader.read, 1 << 62, "capture")
        except _Short:
            if len(data) >= _HEADER_CAP:
                return self._reject(start)
            buffered.extend(piece)
            return self._write(piece)
        except InvalidBundle:
            return self._reject(start)  # the plan's own parse says what is wrong, if it is ours
        self.header = None
        used = self._write(piece[: reader.pos - len(buffered)])
        self._expect(start, plain)
        return used

    def _reject(self, start: int) -> int:
        """Not a header we take: look for the next one past ``start``."""
        self.header = None
        self.skip = start + 1
        return 0

    def _expect(self, start: int, plain: PlainBundleHeader) -> None:
        """The bundle at ``start`` whose header is ``plain``: its code objects, unless one
        is already behind us, off the 4 KiB grid or a second one for a target."""
        codes = []
        for entry in plain.device_entries():
            target = entry.entry_id.target
            begin = start + entry.offset
            if target is None or begin < self.pos or begin % ALIGN:
                return
            end = begin + entry.size
            page = self.page
            hole = (_round_up(begin, page) + page, end // page * page - page)
            codes.append(_Code(begin, end, target.text, entry.entry_id.text, hole))
        targets = [c.target for c in codes]
        if not codes or len(set(targets)) != len(targets):
            return
        self.bundle = _Bundle(start, codes)
        if not self.taken and self.first_bundle is not None:
            self.first_bundle(start)
        self._finish_empty()

    def _code_bytes(self, code: _Code, view: memoryview) -> int:
        """Feed ``code`` what it takes of ``view``; how many bytes that was."""
        if code.frame is None:
            self._open(code)
        assert code.frame is not None
        take = min(len(view), code.end - self.pos)
        piece = view[:take]
        if len(code.head) < _HEAD:
            code.head += bytes(piece[: _HEAD - len(code.head)])
        code.frame.write(piece)
        self._scratch(piece, code.hole)
        self.pos += take
        if self.pos == code.end:
            self._finish(code)
            self._finish_empty()
        return take

    def _scratch(self, piece: memoryview, hole: tuple[int, int]) -> None:
        """Write ``piece`` (at ``self.pos``) to the scratch file, leaving ``hole`` unwritten."""
        start, end = self.pos, self.pos + len(piece)
        lo, hi = max(start, hole[0]), min(end, hole[1])
        if lo >= hi:
            self.out.write(piece)
            return
        self.out.write(piece[: lo - start])
        self.out.seek(hi - lo, 1)
        self.made_holes = True
        self.out.write(piece[hi - start :])

    def _finish(self, code: _Code) -> None:
        assert self.bundle is not None and code.frame is not None
        path = self.staging[code.target][0]
        frame, code.frame = code.frame, None  # its compressor's context is freed now
        length = frame.close()
        size = code.end - code.start
        self.bundle.done.append(
            CapturedCode(
                code.start,
                size,
                code.target,
                code.entry_id,
                path,
                code.offset,
                length,
                code.head,
            )
        )

    def _finish_empty(self) -> None:
        """Close code objects of no bytes at once, and the bundle once all have arrived."""
        bundle = self.bundle
        assert bundle is not None
        while len(bundle.done) < len(bundle.codes):
            code = bundle.codes[len(bundle.done)]
            if code.end != code.start:
                return
            self._open(code)
            self._finish(code)
        holes = tuple(c.hole for c in bundle.codes if c.hole[0] < c.hole[1])
        self.taken.append(CapturedBundle(bundle.start, tuple(bundle.done), holes))
        self.bundle = None

    def _open(self, code: _Code) -> None:
        """Start ``code``'s frame at the end of its target's staging file."""
        if code.target not in self.staging:
            path = self.stage.with_name(f"{self.stage.name}-{len(self.staging)}.bin")
            self.staging[code.target] = (path, path.open("wb"))
        out = self.staging[code.target][1]
        code.offset = out.tell()
        code.frame = KernelFrameWriter(out, code.end - code.start, self.level)


def _round_up(value: int, align: int) -> int:
    return -(-value // align) * align


def _page_size(data: bytes, final: bool) -> int:
    """The page size the host rewrite cuts at (its ``_page_size``: the largest PT_LOAD
    alignment, at least 4 KiB) from a 64-bit little-endian ELF file's program headers in its
    first bytes; 0 while they may still arrive (unless ``final``), -1 (take nothing) for
    anything else."""
    if len(data) < 64:
        return 0 if not final and b"\x7fELF\x02\x01".startswith(data[:6]) else -1
    if data[:6] != b"\x7fELF\x02\x01":
        return -1
    (phoff,) = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    if phentsize < 56 or phoff + phentsize * phnum > ALIGN:
        return -1
    if phoff + phentsize * phnum > len(data):
        return 0 if not final else -1
    page = 4096
    for index in range(phnum):
        at = phoff + index * phentsize
        (kind,) = struct.unpack_from("<I", data, at)
        (align,) = struct.unpack_from("<Q", data, at + 48)
        if kind == _PT_LOAD and align > 1:
            page = max(page, align)
    return page if page & (page - 1) == 0 and page <= 1 << 21 else -1


def usable(
    taken: Sequence[CapturedBundle],
    section_offset: int,
    bundles: Sequence[BundleRef],
    cut: tuple[int, int],
) -> dict[int, tuple[CapturedCode, ...]] | None:
    """The taken code objects by bundle ordinal when the plan confirms every guess (module
    docstring), else None. ``bundles`` are the plan's; ``cut`` the byte range the host
    rewrite removes."""
    by_start = {section_offset + ref.offset: ref for ref in bundles if ref.plain is not None}
    out: dict[int, tuple[CapturedCode, ...]] = {}
    for bundle in taken:
        ref = by_start.get(bundle.start)
        if ref is None or ref.plain is None:
            return None
        entries = ref.plain.device_entries()
        if len(entries) != len(bundle.codes):
            return None
        for entry, code in zip(entries, bundle.codes, strict=True):
            target = entry.entry_id.target
            if (
                target is None
                or code.start != bundle.start + entry.offset
                or code.size != entry.size
                or code.target != target.text
                or code.entry_id != entry.entry_id.text
            ):
                return None
        if any(lo < cut[0] or hi > cut[1] for lo, hi in bundle.holes):
            return None
        out[ref.ordinal] = bundle.codes
    return out

"""A wheel member inflated to a file for the kernel readers, without its machine code.

``diff --by kernel|family`` inflates each changed library to a temporary file (its section
headers come last: the device sections are found only once all of it is out) and reads
its device sections from there. Writing it was ~17 % of a torch diff's CPU time (the
kernel's copy into new page-cache pages), and a host library's machine code is bytes no
kernel reader looks at: libtorch_cpu.so's executable segment is 274 of its 437 MB.

So the executable ``PT_LOAD`` segments a host ELF file names in its program headers
(which come first) are left as holes of a sparse file, and once the section headers are
there, :func:`holes_unread` checks that every section overlapping a hole is machine code
(``SHF_EXECINSTR``): a linker that put read-only data in the executable segment gets the
member inflated again, whole. A code segment that starts in the file's first page (the
classic text segment, headers and read-only data with the code) is written, device code
objects (a standalone cubin or HSA code object) and anything that is not a 64-bit
little-endian host ELF file too.
"""

from __future__ import annotations

import itertools
import os
import struct
from collections.abc import Callable
from pathlib import Path
from typing import IO

from wheel_size.errors import WheelSizeError
from wheel_size.kernels.library import STRAY_ERRORS
from wheel_size.rocm.elf_file import ElfImage

__all__ = ["code_holes", "holes_unread", "inflate_member"]

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_PHDR = struct.Struct("<IIQQQQQQ")
_PT_LOAD = 1
_PF_X = 1
_SHF_EXECINSTR = 0x4
_PAGE = 4096
_DEVICE_MACHINES = frozenset({190, 224})  # EM_CUDA, EM_AMDGPU: read whole
_STEP = 1 << 20
_HEAD = 4096  # program headers past the first page are not looked for (none seen there)


def code_holes(head: bytes, size: int) -> list[tuple[int, int]]:
    """The ``[start, end)`` file ranges of the executable load segments of the host ELF
    file whose first bytes are ``head`` (``size`` bytes in all), whole pages inside each,
    clear of the ELF and program headers; none when ``head`` is not such a file."""
    if len(head) < _EHDR.size or head[:6] != b"\x7fELF\x02\x01":
        return []
    fields = _EHDR.unpack_from(head)
    machine, phoff, shoff = fields[2], fields[5], fields[6]
    phentsize, phnum = fields[9], fields[10]
    if machine in _DEVICE_MACHINES or phentsize != _PHDR.size:
        return []
    end = phoff + phnum * phentsize
    if not phnum or end > len(head):
        return []
    floor = max(end, _EHDR.size)
    holes: list[tuple[int, int]] = []
    for kind, flags, offset, _vaddr, _paddr, filesz, _memsz, _align in _PHDR.iter_unpack(
        head[phoff:end]
    ):
        if kind != _PT_LOAD or not flags & _PF_X or offset < _PAGE:
            # a code segment from the file's first page is the classic text segment
            # (no ``-z separate-code``): its read-only data would fail the check and
            # cost a second inflate, so it is written
            continue
        start = max(-(-offset // _PAGE) * _PAGE, -(-floor // _PAGE) * _PAGE)
        stop = min((offset + filesz) // _PAGE * _PAGE, size)
        if shoff < stop and shoff + 1 > start:
            continue  # the section headers inside machine code: write it all
        if start < stop:
            holes.append((start, stop))
    holes.sort()
    if any(a[1] > b[0] for a, b in itertools.pairwise(holes)):
        return []  # overlapping segments: a file that lies, written whole
    return holes


def inflate_member(
    open_member: Callable[[], IO[bytes]], fd: int, size: int, *, whole: bool = False
) -> list[tuple[int, int]]:
    """Write the member (``size`` bytes) to ``fd`` from offset 0, skipping the bytes of
    its machine code (:func:`code_holes`) unless ``whole``; returns the holes left."""
    with open_member() as src:
        head = src.read(_HEAD)
        _pwrite(fd, head, 0)
        at = len(head)
        found = [] if whole else code_holes(head, size)
        holes = [(max(a, at), b) for a, b in found if b > at]
        pending = list(holes)
        while True:
            block = src.read(_STEP)
            if not block:
                break
            _write_around(fd, block, at, pending)
            at += len(block)
    os.ftruncate(fd, at)
    return holes


def _pwrite(fd: int, data: bytes | memoryview, at: int) -> None:
    view = memoryview(data)
    while view:
        done = os.pwrite(fd, view, at)
        view, at = view[done:], at + done


def _write_around(fd: int, block: bytes, at: int, holes: list[tuple[int, int]]) -> None:
    """Write ``block`` (file offset ``at``) except where it meets ``holes`` (sorted; the
    ones already behind are dropped)."""
    end = at + len(block)
    view = memoryview(block)
    cursor = at
    while holes and holes[0][1] <= cursor:
        holes.pop(0)
    for start, stop in holes:
        if start >= end:
            break
        if start > cursor:
            _pwrite(fd, view[cursor - at : start - at], cursor)
        cursor = max(cursor, min(stop, end))
    if cursor < end:
        _pwrite(fd, view[cursor - at :], cursor)


def holes_unread(path: Path, holes: list[tuple[int, int]], source: str) -> bool:
    """Whether every section of the ELF file at ``path`` that overlaps one of ``holes``
    is machine code, and its ELF header and section headers are outside them (so no
    kernel reader meets a byte that was not written)."""
    if not holes:
        return True
    try:
        with path.open("rb") as stream:
            elf = ElfImage(stream, source)
    except (WheelSizeError, OSError, *STRAY_ERRORS):
        return False
    for section in elf.sections:
        if not section.file_size or section.flags & _SHF_EXECINSTR:
            continue
        lo, hi = section.offset, section.offset + section.file_size
        if any(lo < stop and start < hi for start, stop in holes):
            return False
    return True

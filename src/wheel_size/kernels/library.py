"""Every code object of one host library with its functions, one at a time.

CUDA: each SASS cubin and PTX text of the fatbin sections (:mod:`wheel_size.cuda.images`,
LZ4 and zstd entries inflated to their claimed size). HIP: each code object of the
``.hip_fatbin`` offload bundles, plain or CCOB (:mod:`wheel_size.rocm.fatbin_library`), and
each kernel of a split's ``.kpack`` archive (:func:`kpack_code_objects`: a device wheel's
code). Only one code object's bytes are held at a time. A device section that cannot be read is
one problem naming the library, and its code objects are not listed.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

from wheel_size.cuda.fatbin import FatbinEntry
from wheel_size.cuda.images import iter_images
from wheel_size.errors import WheelSizeError
from wheel_size.kernels.functions import CodeObjectFunctions, elf_functions, ptx_functions
from wheel_size.native.pe import (
    FATBIN_MAGIC,
    is_pe_head,
    iter_fatbin_images,
    iter_pe_code_objects,
    iter_pe_cuda_images,
)
from wheel_size.native.standalone import standalone_code
from wheel_size.rocm.elf_file import ElfImage
from wheel_size.rocm.fatbin_library import FATBIN_SECTION, read_library
from wheel_size.rocm.kpack import MAGIC as KPACK_MAGIC
from wheel_size.rocm.kpack import parse_kpack
from wheel_size.rocm.source import as_source

__all__ = [
    "STRAY_ERRORS",
    "CodeObjectReport",
    "fatbin_code_objects",
    "hip_code_objects",
    "is_fatbin_stream",
    "is_kpack_stream",
    "is_pe_stream",
    "iter_code_objects",
    "kpack_code_objects",
    "one_problem",
    "pe_code_objects",
    "standalone_code_objects",
]

# What a parser can raise from below on bytes that lie, besides WheelSizeError.
STRAY_ERRORS = (ValueError, struct.error, IndexError, KeyError, EOFError, OverflowError)


@dataclass(frozen=True)
class CodeObjectReport:
    """One code object: ``cuda`` or ``hip``, its architecture (``sm_90``, ``compute_90``
    for PTX, a gfx target ID) and its functions."""

    kind: str
    arch: str
    functions: CodeObjectFunctions


def _cuda_report(
    entry: FatbinEntry, data: bytes | memoryview, where: str, digests: bool
) -> CodeObjectReport:
    """One fatbin image as a code object: SASS by its ``sm_XY``, embedded PTX as
    ``compute_XY`` (what ``cuobjdump -lelf`` / ``-lptx`` keep apart)."""
    if entry.image == "ptx":
        found = ptx_functions(bytes(data), where, digests=digests)
        return CodeObjectReport("cuda", entry.arch.replace("sm_", "compute_", 1), found)
    return CodeObjectReport("cuda", entry.arch, elf_functions(data, where, digests=digests))


def _cuda(
    stream: IO[bytes], elf: ElfImage, source: str, digests: bool
) -> Iterator[CodeObjectReport]:
    images = iter_images(stream, elf, source, frozenset({"sass", "ptx"}), reuse=True)
    for number, image in enumerate(images):
        entry = image.entry
        where = f"{source}: {image.section} {entry.image} {entry.arch} #{number}"
        yield _cuda_report(entry, image.data, where, digests)


def hip_code_objects(
    stream: IO[bytes], elf: ElfImage, source: str, digests: bool = False
) -> Iterator[CodeObjectReport]:
    """The code objects of the library's ``.hip_fatbin`` offload bundles, in file order."""
    section = elf.section(FATBIN_SECTION)
    if section is None or not section.file_size or not (elf.is64 and elf.little_endian):
        return
    library = read_library(stream, source)
    for code in library.iter_code_objects():
        where = f"{source}: {FATBIN_SECTION} bundle {code.bundle} {code.target}"
        found = elf_functions(code.data, where, digests=digests)
        yield CodeObjectReport("hip", code.target, found)


def standalone_code_objects(
    stream: IO[bytes], elf: ElfImage, source: str, digests: bool = False
) -> Iterator[CodeObjectReport]:
    """A standalone cubin or AMDGPU code object (a ``.cubin`` / ``.hsaco`` member): the
    whole file is one code object, of the architecture its ELF header names; a host ELF
    file gives nothing. Raises InvalidElf for a header that names no architecture."""
    head = elf.source.pread(0, 64)
    code = standalone_code(head, source)
    if code is None:
        return
    data = elf.source.pread(0, elf.source.size)
    if code.kind == "cuda":
        code = standalone_code(head, source, data) or code
    yield CodeObjectReport(code.kind, code.arch, elf_functions(data, source, digests=digests))


def is_pe_stream(stream: IO[bytes]) -> bool:
    """Whether ``stream`` (at its start) holds a PE image (a Windows DLL); left at 0."""
    head = stream.read(2)
    stream.seek(0)
    return is_pe_head(head)


def pe_code_objects(
    stream: IO[bytes], source: str, digests: bool = False
) -> Iterator[CodeObjectReport]:
    """The code objects of a DLL: its CUDA fatbin entries (``.nv_fatb``, ``__nv_rel``),
    then its HIP ``.hip_fat`` bundles, each in file order."""
    for number, (entry, image) in enumerate(iter_pe_cuda_images(stream, source)):
        where = f"{source}: {entry.image} {entry.arch} #{number}"
        yield _cuda_report(entry, image, where, digests)
    stream.seek(0)
    for target, data in iter_pe_code_objects(stream, source):
        where = f"{source}: .hip_fat {target}"
        yield CodeObjectReport("hip", target, elf_functions(data, where, digests=digests))


def is_fatbin_stream(stream: IO[bytes]) -> bool:
    """Whether ``stream`` (at its start) holds a standalone ``.fatbin``; left at 0."""
    head = stream.read(4)
    stream.seek(0)
    return head == FATBIN_MAGIC


def fatbin_code_objects(
    stream: IO[bytes], source: str, digests: bool = False
) -> Iterator[CodeObjectReport]:
    """The SASS and PTX images of a standalone ``.fatbin`` file, in file order."""
    stream.seek(0, 2)
    size = stream.tell()
    data = as_source(stream)
    images = iter_fatbin_images(stream, data, source, "fatbin", 0, size)
    for number, (entry, image) in enumerate(images):
        where = f"{source}: {entry.image} {entry.arch} #{number}"
        yield _cuda_report(entry, image, where, digests)


def is_kpack_stream(stream: IO[bytes]) -> bool:
    """Whether ``stream`` (at its start) holds a ``.kpack`` archive; it is left at 0."""
    head = stream.read(len(KPACK_MAGIC))
    stream.seek(0)
    return head == KPACK_MAGIC


def kpack_code_objects(
    stream: IO[bytes], source: str, digests: bool = False
) -> Iterator[CodeObjectReport]:
    """Each distinct kernel of the archive in ``stream`` (feature-qualified aliases of one
    stored kernel are one code object), under the archive's processor (``gfx942``)."""
    archive = parse_kpack(stream, source)
    seen: set[int] = set()
    for (key, arch), entry in sorted(archive.entries.items(), key=lambda item: item[1].ordinal):
        if entry.ordinal in seen:
            continue
        seen.add(entry.ordinal)
        where = f"{source}: kpack kernel {key}"
        found = elf_functions(archive.get(key, arch), where, digests=digests)
        yield CodeObjectReport("hip", archive.gfx_arch_family, found)


ContainerReader = Callable[[IO[bytes], str, bool], Iterator[CodeObjectReport]]


def container_reader(stream: IO[bytes]) -> ContainerReader | None:
    """The reader of a file that is not an ELF library but holds code objects: a device
    wheel's ``.kpack``, a Windows DLL (``.hip_fat`` / ``.nv_fatb``) or a standalone
    ``.fatbin``; None for anything else (an ELF is read by its sections). ``stream`` is left
    at its start."""
    if is_kpack_stream(stream):
        return kpack_code_objects
    if is_pe_stream(stream):
        return pe_code_objects
    if is_fatbin_stream(stream):
        return fatbin_code_objects
    return None


def iter_code_objects(
    stream: IO[bytes],
    source: str,
    problems: list[str],
    elf: ElfImage | None = None,
    *,
    digests: bool = True,
) -> Iterator[CodeObjectReport]:
    """The code objects of the ELF library (or ``.kpack`` archive) in ``stream``; reasons it
    could not be read go to ``problems`` (the code objects before the fault have been handed
    out). ``digests`` hashes every function's bytes (duplicates need it, a diff does not)."""
    reader = container_reader(stream) if elf is None else None
    if reader is not None:
        try:
            yield from reader(stream, source, digests)
        except (WheelSizeError, *STRAY_ERRORS) as exc:
            problems.append(f"{exc}; its kernels are not listed")
        return
    try:
        elf = elf if elf is not None else ElfImage(stream, source)
    except (WheelSizeError, *STRAY_ERRORS) as exc:
        problems.append(f"{exc}; its kernels are not listed")
        return
    for scan in (standalone_code_objects, _cuda, hip_code_objects):
        try:
            yield from scan(stream, elf, source, digests)
        except (WheelSizeError, *STRAY_ERRORS) as exc:
            problems.append(f"{exc}; its kernels are not listed")


def one_problem(problems: list[str], source: str) -> list[str]:
    """The code objects' problems of one library as at most one line: the first, and how
    many more (a hostile library of thousands of code objects is one warning)."""
    if len(problems) <= 1:
        return problems
    return [f"{problems[0]} (and {len(problems) - 1} more problems in {source})"]

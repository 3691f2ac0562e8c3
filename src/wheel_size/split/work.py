"""The units of work the split spreads over ``--jobs`` processes.

Each job takes and returns small picklable descriptions; bulk data moves through files in the
work directory, never through the process pool's pipes, and never sits whole in memory: code
objects are staged and copied into kpacks in chunks of ``limits.CHUNK`` bytes, so a worker's
peak memory does not depend on what size a (compressed) code object claims.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wheel_size.errors import WheelSizeError
from wheel_size.wheel.archive import RawData
from wheel_size.wheel.writer import (
    WheelEntry,
    WrittenWheel,
    compress_file,
    iter_raw_content,
    store_file,
    write_tree,
    write_wheel,
)

__all__ = [
    "CodeObjectRef",
    "KpackJob",
    "KpackResult",
    "LibraryJob",
    "LibraryResult",
    "WheelJob",
    "build_kpack",
    "process_library",
    "write_output",
]


@dataclass(frozen=True)
class CodeObjectRef:
    """A code object staged on disk: ``size`` bytes at ``offset`` of ``path``, a zstd frame
    of ``original_size`` bytes when ``compressed`` (done in the library job, so the kpack job
    only concatenates)."""

    target: str
    index: int
    path: Path
    offset: int
    size: int
    original_size: int
    compressed: bool = False


@dataclass(frozen=True)
class LibraryJob:
    """One ELF candidate: where its bytes are and what the rewrite must write into it."""

    number: int
    source: str  # for messages: "<wheel>:<member>"
    rel: str  # overlay-relative path, the kpack kernel name
    raw: RawData | None  # zip member, or
    file: Path | None  # a file of an unpacked wheel
    work: Path
    search_paths: tuple[str, ...]
    deflate: bool
    deflate_level: int
    zstd_level: int | None = None  # compress code objects while staging them
    check_hash: bool = False  # MD5 of compressed bundles (clang checks it only when verbose)


@dataclass
class LibraryResult:
    """What came out of one candidate; ``fat`` is False for ELF files without device code."""

    number: int
    rel: str
    fat: bool
    original_size: int = 0
    stripped_size: int = 0
    stripped: Path | None = None
    stripped_raw: RawData | None = None
    stripped_hash: str | None = None
    targets: tuple[str, ...] = ()
    code_objects: list[CodeObjectRef] = field(default_factory=list)
    warning: str | None = None  # why a library with device code was left unchanged
    seconds: float = 0.0  # worker time: extraction and host rewrite (set by split.apply)


def _renamed(exc: WheelSizeError, temp: Path, source: str) -> WheelSizeError:
    """The same error, naming the wheel member instead of our temporary copy."""
    message = str(exc).replace(str(temp), source)
    if source not in message:
        message = f"{source}: {message}"
    return type(exc)(message)


def _format_handlers(path: Path) -> tuple[Any, Any, Any, str, str]:
    """(detect, scan, strip, fatbin section, wrapper section) for an ELF library or a
    Windows DLL (PE/COFF, told by its ``MZ`` magic); both have the same API."""
    with path.open("rb") as fh:
        magic = fh.read(2)
    if magic == b"MZ":
        from wheel_size.rocm import pe_library as pe
        from wheel_size.rocm.pe_rewrite import strip_dll

        return pe.has_hip_fat, pe.scan_dll, strip_dll, pe.FATBIN_SECTION, pe.WRAPPER_SECTION
    from wheel_size.rocm import fatbin_library as elf
    from wheel_size.rocm.host_rewrite import strip_library

    return elf.has_hip_fatbin, elf.scan_library, strip_library, ".hip_fatbin", ".hipFatBinSegment"


def process_library(job: LibraryJob) -> LibraryResult:
    """Extract, detect, stage code objects, strip the host library, deflate the result."""
    from wheel_size.rocm.kpack import write_kernel_frame

    work = job.work
    temp = work / f"lib{job.number}.so"
    if job.raw is not None:
        with temp.open("wb") as out:
            for chunk in iter_raw_content(job.raw):
                out.write(chunk)
        src = temp
    else:
        assert job.file is not None
        src = job.file
    try:
        has_hip_fatbin, scan_library, strip_library, fatbin_name, wrapper_name = _format_handlers(
            src
        )
        if not has_hip_fatbin(src, job.source):
            return LibraryResult(job.number, job.rel, fat=False)
        staged = work / f"co{job.number}.bin"
        refs: list[CodeObjectRef] = []
        with scan_library(src, job.source) as library:
            if not library.wrappers:
                # Nothing registers this device code through __hipRegisterFatBinary, so the
                # runtime could not follow a kpack reference to it; the library may load it by
                # other means (a symbol into the section). Stripping it would break that.
                return LibraryResult(
                    job.number,
                    job.rel,
                    fat=False,
                    warning=(
                        f"{job.source}: {fatbin_name} is not registered by any "
                        f"{wrapper_name} wrapper; left in the host wheel unchanged"
                    ),
                )
            targets = tuple(library.targets)
            with staged.open("wb") as out:
                for code in library.iter_code_object_streams(check_hash=job.check_hash):
                    start = out.tell()
                    if job.zstd_level is not None:
                        write_kernel_frame(out, code.chunks, code.size, job.zstd_level)
                    else:
                        for chunk in code.chunks:
                            out.write(chunk)
                    ref = CodeObjectRef(
                        code.target,
                        code.index,
                        staged,
                        start,
                        out.tell() - start,
                        code.size,
                        job.zstd_level is not None,
                    )
                    refs.append(ref)
        stripped = work / f"stripped{job.number}.so"
        result = strip_library(
            src, stripped, kernel_name=job.rel, search_paths=list(job.search_paths)
        )
        stripped.chmod(0o755)
        out_result = LibraryResult(
            job.number,
            job.rel,
            fat=True,
            original_size=result.bytes_before,
            stripped_size=result.bytes_after,
            stripped=stripped,
            targets=targets,
            code_objects=refs,
        )
        if job.deflate:
            raw, digest = compress_file(
                stripped, work / f"stripped{job.number}.deflate", level=job.deflate_level
            )
            out_result.stripped_raw, out_result.stripped_hash = raw, digest
        return out_result
    except WheelSizeError as exc:
        raise _renamed(exc, src, job.source) from None
    finally:
        if src == temp:
            temp.unlink(missing_ok=True)


@dataclass(frozen=True)
class KpackJob:
    """One kpack archive (``arch`` is the processor in its name, ``arches`` its
    ``gfx_arches``): each staged code object stored once, under its TOC key and the arch
    strings the layout lists it for (:mod:`wheel_size.rocm.kpack_layout`)."""

    arch: str
    group: str
    path: Path
    compression: str
    level: int
    items: tuple[tuple[str, CodeObjectRef, tuple[str, ...]], ...]  # (toc key, code, arches)
    arches: tuple[str, ...] = ()
    deflate_level: int = 6
    zip_ready: bool = True  # also prepare the zip member (hash, CRC, deflate) in this worker


@dataclass(frozen=True)
class KpackResult:
    """A finished archive, with its zip-ready bytes (stored, or deflated when not zstd)."""

    arch: str
    path: Path
    size: int
    kernels: int
    raw: RawData | None = None
    record_hash: str | None = None


def _staged_chunks(fd: int, offset: int, size: int) -> Iterator[bytes]:
    """``size`` bytes at ``offset`` of a staged file, in chunks of ``limits.CHUNK``."""
    from wheel_size.rocm.limits import CHUNK

    end = offset + size
    while offset < end:
        data = os.pread(fd, min(CHUNK, end - offset), offset)
        if not data:
            raise WheelSizeError(f"staged code objects shrank at offset {offset}")
        offset += len(data)
        yield data


def build_kpack(job: KpackJob) -> KpackResult:
    """Write one ``<group>_<arch>.kpack`` from staged code objects."""
    # ``kernels`` in the result counts stored code objects, not their TOC aliases.
    from wheel_size.rocm.kpack import KpackWriter

    job.path.parent.mkdir(parents=True, exist_ok=True)
    handles: dict[Path, int] = {}
    try:
        with KpackWriter(
            job.path,
            arch=job.arch,
            arches=job.arches or None,
            group=job.group,
            compression=job.compression,
            level=job.level,
        ) as writer:
            for key, ref, arches in job.items:
                fd = handles.get(ref.path)
                if fd is None:
                    fd = handles[ref.path] = os.open(ref.path, os.O_RDONLY)
                chunks = _staged_chunks(fd, ref.offset, ref.size)
                if ref.compressed:
                    writer.add_frame_chunks(
                        key=key,
                        chunks=chunks,
                        frame_size=ref.size,
                        original_size=ref.original_size,
                        arches=arches or None,
                    )
                else:
                    writer.add_chunks(key=key, chunks=chunks, size=ref.size, arches=arches or None)
    finally:
        for fd in handles.values():
            os.close(fd)
    size = job.path.stat().st_size
    if not job.zip_ready:
        return KpackResult(job.arch, job.path, size, len(job.items))
    if job.compression == "none":
        raw, digest = compress_file(
            job.path, job.path.with_suffix(".deflate"), level=job.deflate_level
        )
    else:  # zstd frames do not deflate: store, hashing here in the worker
        raw, digest = store_file(job.path)
    return KpackResult(job.arch, job.path, size, len(job.items), raw, digest)


@dataclass(frozen=True)
class WheelJob:
    """One output wheel (or unpacked tree) to write."""

    dest: Path
    dist_info: str
    entries: tuple[WheelEntry, ...]
    directory: bool
    deflate_level: int


def write_output(job: WheelJob) -> WrittenWheel:
    """Write one output wheel or tree."""
    if job.directory:
        return write_tree(job.dest, job.entries, dist_info=job.dist_info)
    return write_wheel(job.dest, job.entries, dist_info=job.dist_info, level=job.deflate_level)

"""``.kpack`` archives: the per-architecture kernel files AMD's runtime loads in place of
the fat binary (spec section 2.5, KP-OLD ``kpack.py`` / ``runtime/src/toc_parser.cpp``).

::

    0   "KPAK"            4   u32 version = 1     8   u64 TOC offset (absolute)
    16  zero padding to 64 (the blob alignment)
    64  blobs             "none": kernels back to back
                          "zstd-per-kernel": u32 count, then per kernel u32 length + one zstd frame
    TOC MessagePack map to EOF: format_version, group_name, gfx_arch_family, gfx_arches,
        compression_scheme, toc {"<path>#<i>": {"<arch>": {type, ordinal, original_size}}},
        and blobs [{offset, size}] (none) or zstd_offset / zstd_size (zstd).

An archive may list several architecture strings in ``gfx_arches`` and file one stored
kernel under several of them (TOC entries sharing an ordinal, which the runtime allows):
that is how a split serves every agent ISA without storing a kernel twice
(:mod:`wheel_size.rocm.kpack_layout`).  The writer streams kernels to disk in chunks
(:meth:`KpackWriter.add_chunks`, :func:`write_kernel_frame`), so a kernel is never held
whole; the reader checks every offset, size and count before using it, so a hostile
archive gives InvalidBundle, not a crash or a huge allocation.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any, TypedDict

import msgpack
import zstandard

from wheel_size.errors import InvalidBundle
from wheel_size.rocm.limits import MAX_CODE_OBJECT
from wheel_size.rocm.source import ByteSource, SourceLike, as_source

__all__ = [
    "BLOB_ALIGNMENT",
    "MAGIC",
    "KernelFrameWriter",
    "KpackArchive",
    "KpackBlob",
    "KpackEntry",
    "KpackWriter",
    "StreamedKpack",
    "compress_kernel",
    "kpack_file_name",
    "parse_kpack",
    "read_kpack",
    "write_kernel_frame",
]

MAGIC = b"KPAK"
VERSION = 1
BLOB_ALIGNMENT = 64
SCHEMES = {"none": "none", "zstd": "zstd-per-kernel"}
# The runtime reads the TOC whole; anything this large is not an archive we wrote.
MAX_TOC = 256 << 20


def kpack_file_name(group: str, arch: str) -> str:
    """``<group>_<arch>.kpack``; a split names archives by processor (``torch_gfx90a.kpack``)."""
    return f"{group}_{arch}.kpack"


def compress_kernel(data: bytes, level: int = 3) -> bytes:
    """One independent zstd frame at ``level`` with the content size recorded (what the
    runtime expects). No second compressor is tried beside it: a zlib 6 bound with zstd
    levels 6, 12 and 19 after it saved 0-0.23 % of the device bytes of five real ROCm wheels
    (at most 47 KB) for 3-8x zstd 3's CPU, far under the 1 % and 64 KiB a pass must buy
    (``split.deflate_probe.worth_a_pass``; docs/split.md, "Kernels"). Usable in worker
    processes."""
    frame: bytes = zstandard.ZstdCompressor(level=level, write_content_size=True).compress(data)
    return frame


def write_kernel_frame(out: IO[bytes], chunks: Iterable[bytes], size: int, level: int = 3) -> int:
    """Compress ``size`` bytes arriving as ``chunks`` into one zstd frame (content size
    recorded, as :func:`compress_kernel` does) written to ``out``; returns the frame's length.
    Memory is the compressor's window (a kernel of at most ``limits.CHUNK`` bytes is held
    whole and goes through :func:`compress_kernel`), whatever ``size`` is.  ValueError when
    the chunks do not add up to ``size``."""
    frame = KernelFrameWriter(out, size, level)
    for chunk in chunks:
        frame.write(chunk)
    return frame.close()


class KernelFrameWriter:
    """One kernel's frame written to ``out`` as its ``size`` bytes are handed over, in
    pieces of any size (:meth:`write`, then :meth:`close`): :func:`write_kernel_frame` for a
    caller that is given the bytes rather than asking for them (``split.capture``). A kernel
    of at most ``limits.CHUNK`` bytes is held whole and goes through :func:`compress_kernel`;
    a larger one streams, and zstd's stream does not depend on how its input is cut, so the
    frame is the same however the pieces fall. ``level`` None writes the bytes as they are."""

    def __init__(self, out: IO[bytes], size: int, level: int | None) -> None:
        from wheel_size.rocm.limits import CHUNK

        self._out, self._size, self._level = out, size, level
        self._got = 0
        self._parts: list[bytes] | None = None
        self._writer: Any = None  # zstandard's stream writer
        self._start = 0
        if level is not None and size <= CHUNK:
            self._parts = []
        elif level is not None:
            self._start = out.tell()
            cctx = zstandard.ZstdCompressor(level=level, write_content_size=True)
            self._writer = cctx.stream_writer(out, size=size, closefd=False)

    def write(self, piece: bytes | memoryview) -> None:
        self._got += len(piece)
        if self._parts is not None:
            self._parts.append(bytes(piece))
        elif self._writer is not None:
            self._writer.write(piece)
        else:
            self._out.write(piece)

    def close(self) -> int:
        """Finish the frame and free the compressor's context; the frame's length.
        ValueError when the pieces did not add up to ``size``."""
        parts, writer, self._parts, self._writer = self._parts, self._writer, None, None
        if self._got != self._size:
            raise ValueError(f"kernel of {self._got} bytes, {self._size} were announced")
        if parts is not None:
            assert self._level is not None
            frame = compress_kernel(b"".join(parts), self._level)
            self._out.write(frame)
            return len(frame)
        if writer is not None:
            writer.close()
            return self._out.tell() - self._start
        return self._got


class KpackWriter:
    """Write one ``.kpack``, kernel by kernel.

    ``with KpackWriter(path, arch="gfx942", compression="zstd", level=3, group="torch") as w:
    w.add(key="lib/libtorch_hip.so#0", data=code_object)``.  The file appears at ``path``
    only when the block exits cleanly (written to ``path.tmp`` and renamed).  ``group``
    defaults to the file-name part before ``_<arch>.kpack``.  ``arch`` is the
    ``gfx_arch_family``; ``arches`` the ``gfx_arches`` (default ``[arch]``); each ``add*``
    files its kernel under ``arches=`` of its own (default ``[arch]``), one stored copy.
    """

    def __init__(
        self,
        path: Path,
        *,
        arch: str,
        compression: str = "zstd",
        level: int = 3,
        group: str | None = None,
        arches: Sequence[str] | None = None,
    ) -> None:
        if compression not in SCHEMES:
            raise ValueError(f"kpack compression {compression!r} is not 'zstd' or 'none'")
        self.path = Path(path)
        self.arch = arch
        self.arches = list(arches) if arches is not None else [arch]
        self.scheme = SCHEMES[compression]
        self.level = level
        suffix = f"_{arch}.kpack"
        if group is None:
            name = self.path.name
            group = name[: -len(suffix)] if name.endswith(suffix) else name.removesuffix(".kpack")
        self.group = group
        self._tmp = self.path.with_name(self.path.name + ".tmp")
        self._file: IO[bytes] | None = self._tmp.open("wb")
        self._file.write(MAGIC + struct.pack("<IQ", VERSION, 0) + bytes(BLOB_ALIGNMENT - 16))
        if self.scheme == "zstd-per-kernel":
            self._file.write(struct.pack("<I", 0))  # kernel count, patched on close
        self._pos = self._file.tell()
        self._toc: dict[str, dict[str, TocKernel]] = {}
        self._blobs: list[TocBlob] = []
        self._count = 0
        self.bytes_in = 0

    def _entry(self, key: str, original_size: int, arches: Sequence[str] | None) -> None:
        per_arch = self._toc.setdefault(key, {})
        names = list(arches) if arches is not None else [self.arch]
        if not names or any(a in per_arch for a in names) or len(set(names)) != len(names):
            raise ValueError(f"kpack {self.path.name}: key {key!r} added twice for an arch")
        for arch in names:
            per_arch[arch] = {
                "type": "hsaco",
                "ordinal": self._count,
                "original_size": original_size,
            }
        self._count += 1
        self.bytes_in += original_size

    def add(self, *, key: str, data: bytes, arches: Sequence[str] | None = None) -> None:
        """Append one kernel under TOC key ``<overlay-relative path>#<index>``."""
        if self.scheme == "zstd-per-kernel":
            frame = compress_kernel(data, self.level)
            self.add_frame(key=key, frame=frame, original_size=len(data), arches=arches)
            return
        assert self._file is not None
        self._entry(key, len(data), arches)
        self._blobs.append({"offset": self._pos, "size": len(data)})
        self._file.write(data)
        self._pos += len(data)

    def add_chunks(
        self,
        *,
        key: str,
        chunks: Iterable[bytes],
        size: int,
        arches: Sequence[str] | None = None,
    ) -> None:
        """Append one kernel of ``size`` bytes arriving as ``chunks`` (compressed on the
        way in for the zstd scheme); memory stays at one chunk."""
        assert self._file is not None
        if self.scheme == "zstd-per-kernel":
            at = self._file.tell()
            self._file.write(bytes(4))  # frame length, patched below
            frame = write_kernel_frame(self._file, chunks, size, self.level)
            end = self._file.tell()
            self._file.seek(at)
            self._file.write(struct.pack("<I", frame))
            self._file.seek(end)
            self._entry(key, size, arches)
            self._pos = end
            return
        got = 0
        for chunk in chunks:
            got += len(chunk)
            self._file.write(chunk)
        if got != size:
            raise ValueError(f"kpack {self.path.name}: kernel {key!r} is {got} bytes, not {size}")
        self._entry(key, size, arches)
        self._blobs.append({"offset": self._pos, "size": size})
        self._pos += size

    def add_frame_chunks(
        self,
        *,
        key: str,
        chunks: Iterable[bytes],
        frame_size: int,
        original_size: int,
        arches: Sequence[str] | None = None,
    ) -> None:
        """Append a zstd frame (from :func:`write_kernel_frame`) arriving as ``chunks``."""
        if self.scheme != "zstd-per-kernel":
            raise ValueError("add_frame_chunks needs the zstd scheme")
        assert self._file is not None
        self._file.write(struct.pack("<I", frame_size))
        got = 0
        for chunk in chunks:
            got += len(chunk)
            self._file.write(chunk)
        if got != frame_size:
            raise ValueError(f"kpack {self.path.name}: frame of {key!r} is {got} bytes")
        self._entry(key, original_size, arches)
        self._pos += 4 + frame_size

    def add_frame(
        self, *, key: str, frame: bytes, original_size: int, arches: Sequence[str] | None = None
    ) -> None:
        """Append a kernel already compressed by :func:`compress_kernel` (zstd scheme only)."""
        if self.scheme != "zstd-per-kernel":
            raise ValueError("add_frame needs the zstd scheme")
        assert self._file is not None
        self._entry(key, original_size, arches)
        self._file.write(struct.pack("<I", len(frame)))
        self._file.write(frame)
        self._pos += 4 + len(frame)

    def close(self) -> None:
        """Write the TOC, patch the header, move the archive into place."""
        if self._file is None:
            return
        toc_offset = self._pos
        self._file.write(
            _pack_toc(
                group=self.group,
                family=self.arch,
                arches=self.arches,
                scheme=self.scheme,
                toc=self._toc,
                blobs=self._blobs,
                end=self._pos,
            )
        )
        self._file.seek(8)
        self._file.write(struct.pack("<Q", toc_offset))
        if self.scheme == "zstd-per-kernel":
            self._file.seek(BLOB_ALIGNMENT)
            self._file.write(struct.pack("<I", self._count))
        self._file.close()
        self._file = None
        self._tmp.replace(self.path)

    def abort(self) -> None:
        """Drop the partial archive."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> KpackWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


@dataclass(frozen=True)
class KpackBlob:
    """One stored kernel of a :class:`StreamedKpack`: ``size`` bytes at ``offset`` of the
    staged file ``path`` (a zstd frame of ``original_size`` bytes for the zstd scheme, the
    code object itself for "none"), filed under ``key`` for each of ``arches``."""

    key: str
    arches: tuple[str, ...]
    path: Path
    offset: int
    size: int
    original_size: int


@dataclass(frozen=True)
class StreamedKpack:
    """A ``.kpack`` laid out from the sizes of its staged blobs before its first byte is
    written, so it streams straight into its destination (a wheel's zip member) in one
    sequential pass: :attr:`size` is known up front, :meth:`chunks` yields the archive.

    Byte for byte what :class:`KpackWriter` writes for the same kernels added in the same
    order (the tests compare them). Picklable: worker processes stream it.
    """

    arch: str
    group: str
    scheme: str  # "zstd-per-kernel" or "none"
    blobs: tuple[KpackBlob, ...]
    arches: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES.values():
            raise ValueError(f"kpack scheme {self.scheme!r} is not one of {sorted(SCHEMES)}")
        seen: set[tuple[str, str]] = set()
        for blob in self.blobs:
            pairs = {(blob.key, a) for a in blob.arches}
            if not blob.arches or pairs & seen or len(pairs) != len(blob.arches):
                raise ValueError(f"kpack {self.arch}: key {blob.key!r} added twice for an arch")
            if self.scheme == "none" and blob.size != blob.original_size:
                raise ValueError(f"kpack {self.arch}: {blob.key!r} is not stored as it is")
            seen |= pairs

    def _blob_start(self) -> int:
        return BLOB_ALIGNMENT + (4 if self.scheme == "zstd-per-kernel" else 0)

    def _toc_offset(self) -> int:
        framing = 4 if self.scheme == "zstd-per-kernel" else 0
        return self._blob_start() + sum(framing + b.size for b in self.blobs)

    def toc(self) -> bytes:
        """The MessagePack TOC, as :meth:`KpackWriter.close` writes it."""
        entries: dict[str, dict[str, TocKernel]] = {}
        blobs: list[TocBlob] = []
        pos = self._blob_start()
        for ordinal, blob in enumerate(self.blobs):
            per_arch = entries.setdefault(blob.key, {})
            for arch in blob.arches:
                per_arch[arch] = {
                    "type": "hsaco",
                    "ordinal": ordinal,
                    "original_size": blob.original_size,
                }
            blobs.append({"offset": pos, "size": blob.size})
            pos += blob.size + (4 if self.scheme == "zstd-per-kernel" else 0)
        return _pack_toc(
            group=self.group,
            family=self.arch,
            arches=list(self.arches or (self.arch,)),
            scheme=self.scheme,
            toc=entries,
            blobs=blobs,
            end=self._toc_offset(),
        )

    @property
    def size(self) -> int:
        """The archive's length in bytes."""
        return self._toc_offset() + len(self.toc())

    def _head(self) -> bytes:
        head = MAGIC + struct.pack("<IQ", VERSION, self._toc_offset())
        head += bytes(BLOB_ALIGNMENT - len(head))
        zstd = self.scheme == "zstd-per-kernel"
        return head + (struct.pack("<I", len(self.blobs)) if zstd else b"")

    def regions(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """(offset, length) of the two parts that compress differently: header and blobs
        (kernels, zstd frames for the zstd scheme), then the MessagePack TOC."""
        toc_offset = self._toc_offset()
        return (0, toc_offset), (toc_offset, len(self.toc()))

    def read(self, offset: int, length: int) -> bytes:
        """``length`` bytes of the archive from ``offset`` (fewer past its end), read from
        the staged blobs without streaming what comes before them: a sample of a large
        archive costs what is sampled (``split.deflate_probe``)."""
        import os

        end = min(offset + length, self.size)
        parts: list[bytes] = []
        zstd = self.scheme == "zstd-per-kernel"

        def take(at: int, data: bytes) -> None:
            lo, hi = max(offset, at), min(end, at + len(data))
            if lo < hi:
                parts.append(data[lo - at : hi - at])

        head = self._head()
        take(0, head)
        pos = len(head)
        for blob in self.blobs:
            if pos >= end:
                break
            if zstd:
                take(pos, struct.pack("<I", blob.size))
                pos += 4
            lo, hi = max(offset, pos), min(end, pos + blob.size)
            if lo < hi:
                fd = os.open(blob.path, os.O_RDONLY)
                try:
                    data = os.pread(fd, hi - lo, blob.offset + lo - pos)
                finally:
                    os.close(fd)
                if len(data) != hi - lo:
                    raise InvalidBundle(f"{blob.path}: staged kernel {blob.key} shrank")
                parts.append(data)
            pos += blob.size
        if pos < end:
            take(pos, self.toc())
        return b"".join(parts)

    def chunks(self, done: Callable[[Path], None] | None = None) -> Iterator[bytes]:
        """The archive, front to back, in chunks of at most ``limits.CHUNK`` bytes plus
        small framing; the staged blobs are read with ``pread`` (no file position shared).
        ``done(path)`` is called once the last blob this archive reads from a staged file
        has been taken and the file closed (the consumer has written that chunk when it
        asks for the next): a caller can delete the file there, so that its pages are free
        again for the next blob's writes (``split.work.WheelJob.release``)."""
        import os

        from wheel_size.rocm.limits import CHUNK

        zstd = self.scheme == "zstd-per-kernel"
        last = {blob.path: i for i, blob in enumerate(self.blobs)}
        yield self._head()
        handles: dict[Path, int] = {}
        finished: Path | None = None
        try:
            for index, blob in enumerate(self.blobs):
                if finished is not None and done is not None:
                    done(finished)
                finished = None
                if zstd:
                    yield struct.pack("<I", blob.size)
                fd = handles.get(blob.path)
                if fd is None:
                    fd = handles[blob.path] = os.open(blob.path, os.O_RDONLY)
                at, end = blob.offset, blob.offset + blob.size
                while at < end:
                    data = os.pread(fd, min(CHUNK, end - at), at)
                    if not data:
                        raise InvalidBundle(f"{blob.path}: staged kernel {blob.key} shrank")
                    at += len(data)
                    yield data
                if last[blob.path] == index:
                    os.close(handles.pop(blob.path))
                    finished = blob.path
        finally:
            for fd in handles.values():
                os.close(fd)
        if finished is not None and done is not None:
            done(finished)
        yield self.toc()


class TocKernel(TypedDict):
    """One ``toc[key][arch]`` value."""

    type: str
    ordinal: int
    original_size: int


class TocBlob(TypedDict):
    """One ``blobs[]`` value of the "none" scheme."""

    offset: int
    size: int


def _pack_toc(
    *,
    group: str,
    family: str,
    arches: list[str],
    scheme: str,
    toc: dict[str, dict[str, TocKernel]],
    blobs: list[TocBlob],
    end: int,
) -> bytes:
    """The TOC map in the key order the runtime's reader and AMD's writer use."""
    fields: dict[str, object] = {
        "format_version": VERSION,
        "group_name": group,
        "gfx_arch_family": family,
        "gfx_arches": arches,
        "compression_scheme": scheme,
        "toc": toc,
    }
    if scheme == "none":
        fields["blobs"] = blobs
    else:
        fields["zstd_offset"] = BLOB_ALIGNMENT
        fields["zstd_size"] = end - BLOB_ALIGNMENT
    packed: bytes = msgpack.packb(fields, use_bin_type=True)
    return packed


@dataclass(frozen=True)
class KpackEntry:
    key: str
    arch: str
    ordinal: int
    original_size: int
    offset: int  # absolute offset of the blob (none) or of the zstd frame
    size: int  # stored bytes


def _fail(where: str, problem: str) -> InvalidBundle:
    return InvalidBundle(f"{where}: {problem}")


def _want(value: object, kind: type | tuple[type, ...], where: str, what: str) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise _fail(where, f"kpack TOC field {what} has the wrong type")
    return value


class KpackArchive:
    """A validated archive: header, TOC and the location of every kernel."""

    def __init__(self, data: SourceLike, where: str) -> None:
        self.where = where
        self.source: ByteSource = as_source(data)
        size = self.source.size
        head = self.source.pread(0, BLOB_ALIGNMENT)
        if len(head) < 16 or head[:4] != MAGIC:
            raise _fail(where, "not a kpack archive (bad magic or truncated header)")
        version, toc_offset = struct.unpack_from("<IQ", head, 4)
        if version != VERSION:
            raise _fail(where, f"kpack version {version} is not supported (only 1)")
        if not BLOB_ALIGNMENT <= toc_offset < size or size - toc_offset > MAX_TOC:
            raise _fail(where, f"kpack TOC offset {toc_offset} is outside the file ({size} bytes)")
        raw = self.source.pread(toc_offset, size - toc_offset)
        try:
            toc = msgpack.unpackb(raw, raw=False, strict_map_key=True)
        except (
            ValueError,
            TypeError,
            msgpack.ExtraData,
            msgpack.FormatError,
            msgpack.StackError,
        ) as exc:
            raise _fail(
                where, f"kpack TOC is not valid MessagePack ({type(exc).__name__})"
            ) from None
        toc = _want(toc, dict, where, "(root)")
        if toc.get("format_version") != VERSION:
            raise _fail(where, "kpack TOC format_version is not 1")
        self.group_name: str = _want(toc.get("group_name"), str, where, "group_name")
        self.gfx_arch_family: str = _want(toc.get("gfx_arch_family"), str, where, "gfx_arch_family")
        arches = _want(toc.get("gfx_arches"), list, where, "gfx_arches")
        self.gfx_arches: list[str] = [_want(a, str, where, "gfx_arches[]") for a in arches]
        self.compression_scheme: str = _want(
            toc.get("compression_scheme"), str, where, "compression_scheme"
        )
        if self.compression_scheme not in SCHEMES.values():
            raise _fail(where, f"kpack compression scheme {self.compression_scheme!r} is unknown")
        locations = self._locations(toc, toc_offset)
        self.entries: dict[tuple[str, str], KpackEntry] = {}
        sizes: dict[int, int] = {}  # ordinal -> original size (entries may share an ordinal)
        for key, per_arch in _want(toc.get("toc"), dict, where, "toc").items():
            _want(key, str, where, "toc key")
            for arch, info in _want(per_arch, dict, where, f"toc[{key!r}]").items():
                _want(arch, str, where, f"toc[{key!r}] arch")
                info = _want(info, dict, where, f"toc[{key!r}][{arch!r}]")
                ordinal = _want(info.get("ordinal"), int, where, "ordinal")
                original = _want(info.get("original_size"), int, where, "original_size")
                if info.get("type") != "hsaco":
                    raise _fail(where, f"kpack kernel {key} has type {info.get('type')!r}")
                if not 0 <= ordinal < len(locations) or sizes.get(ordinal, original) != original:
                    raise _fail(
                        where,
                        f"kpack kernel {key} has ordinal {ordinal} (bad, or shared with "
                        "a different size)",
                    )
                if not 0 <= original <= MAX_CODE_OBJECT:
                    raise _fail(where, f"kpack kernel {key} has size {original} (0..1 GiB allowed)")
                sizes[ordinal] = original
                offset, stored = locations[ordinal]
                if self.compression_scheme == "none" and stored != original:
                    raise _fail(
                        where, f"kpack kernel {key} stores {stored} bytes, TOC says {original}"
                    )
                self.entries[(key, arch)] = KpackEntry(key, arch, ordinal, original, offset, stored)

    def _locations(self, toc: dict[str, object], toc_offset: int) -> list[tuple[int, int]]:
        where = self.where
        if self.compression_scheme == "none":
            blobs = _want(toc.get("blobs"), list, where, "blobs")
            out = []
            for blob in blobs:
                blob = _want(blob, dict, where, "blobs[]")
                offset = _want(blob.get("offset"), int, where, "blobs[].offset")
                size = _want(blob.get("size"), int, where, "blobs[].size")
                if offset < BLOB_ALIGNMENT or size < 0 or offset + size > toc_offset:
                    raise _fail(
                        where, f"kpack blob at {offset} of {size} bytes lies outside the blob area"
                    )
                out.append((offset, size))
            return out
        start = _want(toc.get("zstd_offset"), int, where, "zstd_offset")
        length = _want(toc.get("zstd_size"), int, where, "zstd_size")
        if start < BLOB_ALIGNMENT or length < 4 or start + length > toc_offset:
            raise _fail(where, f"kpack zstd area {start}+{length} lies outside the blob area")
        end = start + length
        (count,) = struct.unpack("<I", self.source.pread(start, 4))
        if count > (length - 4) // 4:
            raise _fail(where, f"kpack claims {count} kernels, more than its zstd area can hold")
        out = []
        pos = start + 4
        for i in range(count):
            raw = self.source.pread(pos, 4)
            if len(raw) < 4 or pos + 4 > end:
                raise _fail(where, f"kpack kernel {i} frame header is truncated")
            (frame,) = struct.unpack("<I", raw)
            pos += 4
            if frame > end - pos:
                raise _fail(
                    where, f"kpack kernel {i} frame of {frame} bytes runs past the zstd area"
                )
            out.append((pos, frame))
            pos += frame
        return out

    def keys(self) -> list[tuple[str, str]]:
        """(key, arch) pairs in ordinal order (aliases of one kernel next to each other)."""
        return [k for k, _ in sorted(self.entries.items(), key=lambda item: item[1].ordinal)]

    def get(self, key: str, arch: str | None = None) -> bytes:
        """The kernel stored under ``key`` for ``arch`` (default: the archive's family, or
        the key's only arch)."""
        if arch is None:
            listed = [a for k, a in self.entries if k == key]
            arch = listed[0] if len(listed) == 1 else self.gfx_arch_family
        try:
            entry = self.entries[(key, arch)]
        except KeyError:
            raise _fail(self.where, f"kpack has no kernel {key!r} for {arch}") from None
        stored = self.source.pread(entry.offset, entry.size)
        if self.compression_scheme == "none":
            return stored
        try:
            params = zstandard.get_frame_parameters(stored)
            if params.content_size not in (entry.original_size, zstandard.CONTENTSIZE_UNKNOWN):
                raise _fail(self.where, f"kpack kernel {key} frame size does not match the TOC")
            dctx = zstandard.ZstdDecompressor(max_window_size=1 << 27)
            reader = dctx.stream_reader(stored, read_across_frames=False)
            parts, got = [], 0
            while got <= entry.original_size:  # read one byte past the end to catch excess
                chunk = reader.read(entry.original_size + 1 - got)
                if not chunk:
                    break
                parts.append(chunk)
                got += len(chunk)
            data = b"".join(parts)
        except zstandard.ZstdError as exc:
            raise _fail(self.where, f"kpack kernel {key} does not decompress: {exc}") from None
        if len(data) != entry.original_size:
            raise _fail(
                self.where,
                f"kpack kernel {key} decompresses to {len(data)} bytes, "
                f"TOC says {entry.original_size}",
            )
        return data

    def iter_kernels(self) -> Iterator[tuple[str, str, bytes]]:
        """(key, arch, code object) in ordinal order."""
        for key, arch in self.keys():
            yield key, arch, self.get(key, arch)

    _file: IO[bytes] | None = None

    def close(self) -> None:
        """Close the file :func:`read_kpack` opened."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> KpackArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parse_kpack(data: SourceLike, where: str = "kpack") -> KpackArchive:
    """Validate an archive held in bytes or an open binary file."""
    return KpackArchive(data, where)


def read_kpack(path: Path) -> KpackArchive:
    """Open and validate ``path``; kernels are read on demand (use as a context manager)."""
    fh = Path(path).open("rb")  # noqa: SIM115 - owned by the archive
    try:
        archive = KpackArchive(fh, str(path))
    except BaseException:
        fh.close()
        raise
    archive._file = fh
    return archive

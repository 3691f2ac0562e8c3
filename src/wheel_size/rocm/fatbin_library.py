"""A host shared library's HIP device code: its ``.hip_fatbin`` bundles, the
``.hipFatBinSegment`` wrappers that register them, and the code objects per target.

Pinned API (used by the splitter and the wheel diff)::

    has_hip_fatbin(path) -> bool             # header-only
    lib = open_fat_library(path)                 # InvalidElf / InvalidBundle
    lib.targets                              # ["gfx1100", "gfx942:sramecc+:xnack-", ...]
    lib.iter_code_objects()                  # CodeObject one at a time, file order
    lib.iter_code_object_streams()           # the same, bytes in chunks (the splitter)
    lib.fatbin_size, lib.bytes_per_target()

Wrappers are mapped to bundles through the relocation of their pointer (RELATIVE addend,
or symbol + addend for the ``R_X86_64_64 __hip_fatbin_<hash>`` of -fgpu-rdc links), which
also shows when several wrappers share one bundle (spec sections 2.3 and 2.4).
"""

from __future__ import annotations

import contextlib
import itertools
import struct
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TypeVar

from wheel_size.errors import InvalidBundle
from wheel_size.rocm import offload_bundle
from wheel_size.rocm.amdgpu_elf import verify_code_object
from wheel_size.rocm.elf_file import ElfImage, Relocation, Section
from wheel_size.rocm.fatbin_section import BundleRef, iter_bundles, iter_entry_streams
from wheel_size.rocm.offload_bundle import BundleEntry
from wheel_size.rocm.source import ByteSource

__all__ = [
    "FATBIN_SECTION",
    "HIPF",
    "HIPK",
    "WRAPPER_SECTION",
    "CodeObject",
    "CodeObjectStream",
    "FatLibrary",
    "OwnsFile",
    "Wrapper",
    "has_hip_fatbin",
    "has_hip_fatbin_data",
    "open_fat_library",
    "probe_library",
    "read_library",
    "stream_code_objects",
]

FATBIN_SECTION = ".hip_fatbin"
WRAPPER_SECTION = ".hipFatBinSegment"
HIPF = 0x48495046
HIPK = 0x4B504948
WRAPPER_SIZE = 24


@dataclass(frozen=True)
class CodeObject:
    """One device code object.

    ``index`` is the key suffix the runtime asks for (``kernel_name#index``): the ordinal
    of its bundle in ``.hip_fatbin``, which the host rewrite writes into the wrappers that
    point at that bundle.  When every bundle holds every target (what clang produces for
    one build) it is the per-target running index AMD's splitter uses; it differs only
    when some bundle lacks a target, where the running index would name a key the runtime
    never asks for.
    """

    target: str
    index: int
    size: int
    data: bytes
    bundle: int = 0
    entry_id: str = ""


@dataclass(frozen=True)
class CodeObjectStream:
    """A :class:`CodeObject` whose ``size`` bytes come as ``chunks`` (at most 1 MiB each),
    so one code object never sits whole in memory; consume them before the next one."""

    target: str
    index: int
    size: int
    chunks: Iterable[bytes]
    bundle: int = 0
    entry_id: str = ""


@dataclass(frozen=True)
class Wrapper:
    """One ``__hip_fatbin_wrapper``: its address, its file offset, the bundle it points to,
    and the relocation that sets its pointer (None in a non-PIC executable)."""

    index: int
    vaddr: int
    file_offset: int
    bundle: int
    relocation: Relocation | None
    magic: int


_Owner = TypeVar("_Owner", bound="OwnsFile")


class OwnsFile:
    """A fat library that may own the file it reads: ``close`` (or ``with``) closes a file
    the scanner opened and leaves a caller's own file alone."""

    _file: IO[bytes] | None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self: _Owner) -> _Owner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class FatLibrary(OwnsFile):
    name: str
    elf: ElfImage
    fatbin: Section
    bundles: list[BundleRef]
    wrappers: list[Wrapper]
    _entries: dict[int, list[BundleEntry]] = field(default_factory=dict, repr=False)
    _file: IO[bytes] | None = field(default=None, repr=False)

    @property
    def fatbin_size(self) -> int:
        """Bytes of the ``.hip_fatbin`` section."""
        return self.fatbin.size

    def bundle_entries(self, ordinal: int) -> list[BundleEntry]:
        """Device entries of one bundle (for a compressed one only its header is inflated)."""
        if ordinal not in self._entries:
            ref = self.bundles[ordinal]
            if ref.plain is not None:
                entries = ref.plain.device_entries()
            else:
                assert ref.ccob is not None
                from wheel_size.rocm import ccob  # compressed bundles only

                where = f"{self.name}: {FATBIN_SECTION} bundle {ordinal}"
                base = self.fatbin.offset + ref.offset
                stream = ccob.open_payload(
                    self.elf.source, base, base + ref.length, ref.ccob, where
                )
                header = offload_bundle.read_plain_header(
                    stream.read_exact, ref.ccob.uncompressed_size, f"{where} (decompressed)"
                )
                entries = header.device_entries()
            seen: set[str] = set()
            for entry in entries:
                assert entry.entry_id.target is not None
                text = entry.entry_id.target.text
                if text in seen:
                    raise InvalidBundle(
                        f"{self.name}: {FATBIN_SECTION} bundle {ordinal} holds two code objects "
                        f"for {text}"
                    )
                seen.add(text)
            self._entries[ordinal] = entries
        return self._entries[ordinal]

    @property
    def targets(self) -> list[str]:
        """Every target ID with device code, exact strings, sorted."""
        found = {
            e.entry_id.target.text
            for b in range(len(self.bundles))
            for e in self.bundle_entries(b)
            if e.entry_id.target is not None
        }
        return sorted(found)

    def bytes_per_target(self) -> dict[str, int]:
        """Uncompressed code-object bytes per target ID (sizes from the bundle headers)."""
        totals: dict[str, int] = {}
        for b in range(len(self.bundles)):
            for e in self.bundle_entries(b):
                assert e.entry_id.target is not None
                totals[e.entry_id.target.text] = totals.get(e.entry_id.target.text, 0) + e.size
        return dict(sorted(totals.items()))

    def compressed_code_digests(self) -> dict[str, str]:
        """SHA-256 of each target's decompressed code objects (in file order), for the
        targets of compressed (CCOB) bundles only: the stored bytes of a compressed bundle
        are shared out over its targets, so whether a target's code changed is known only
        from what it decompresses to."""
        import hashlib

        compressed = [ref for ref in self.bundles if ref.plain is None]
        if not compressed:
            return {}
        digests: dict[str, hashlib._Hash] = {}
        codes = stream_code_objects(
            self.elf.source, self.name, self.fatbin.offset, compressed, False, False
        )
        for code in codes:
            digest = digests.setdefault(code.target, hashlib.sha256())
            digest.update(code.size.to_bytes(8, "little"))
            for chunk in code.chunks:
                digest.update(chunk)
        return {target: d.hexdigest() for target, d in sorted(digests.items())}

    def stored_bytes_per_target(self) -> dict[str, int]:
        """Section bytes attributed to each target: a plain entry's own size; a compressed
        bundle's stored length shared out in proportion to its entries' uncompressed sizes.
        Headers and padding are not attributed, so the sum is at most ``fatbin_size``."""
        totals: dict[str, float] = {}
        for b, ref in enumerate(self.bundles):
            entries = self.bundle_entries(b)
            whole = sum(e.size for e in entries) or 1
            for e in entries:
                assert e.entry_id.target is not None
                share = e.size if ref.plain is not None else ref.length * e.size / whole
                totals[e.entry_id.target.text] = totals.get(e.entry_id.target.text, 0) + share
        return {t: int(v) for t, v in sorted(totals.items())}

    def iter_code_object_streams(
        self, verify: bool = True, check_hash: bool = True
    ) -> Iterator[CodeObjectStream]:
        """Code objects one at a time in file order, as chunks; each is checked against its
        ELF e_flags (InvalidBundle naming the library and entry on a mismatch) before it is
        handed out, and each compressed bundle against its size and (``check_hash``) MD5
        once fully read."""
        return stream_code_objects(
            self.elf.source, self.name, self.fatbin.offset, self.bundles, verify, check_hash
        )

    def iter_code_objects(
        self, verify: bool = True, check_hash: bool = True
    ) -> Iterator[CodeObject]:
        """Code objects whole (at most ``MAX_CODE_OBJECT`` each), for tests and tools; the
        splitter uses :meth:`iter_code_object_streams`."""
        for code in self.iter_code_object_streams(verify, check_hash):
            data = b"".join(code.chunks)
            yield CodeObject(code.target, code.index, len(data), data, code.bundle, code.entry_id)


def stream_code_objects(
    source: ByteSource,
    name: str,
    section_offset: int,
    bundles: Sequence[BundleRef],
    verify: bool = True,
    check_hash: bool = True,
    section: str = FATBIN_SECTION,
    gate: Callable[[BundleRef], AbstractContextManager[object]] | None = None,
) -> Iterator[CodeObjectStream]:
    """The code objects of already delimited ``bundles`` (of a section at ``section_offset``
    of ``source``), as :meth:`FatLibrary.iter_code_object_streams` hands them out: the
    split's apply phase streams them from its plan without parsing the library again.
    ``gate(bundle)`` is held while a bundle is decoded (the split's memory gate)."""
    for ref in bundles:
        with gate(ref) if gate is not None else contextlib.nullcontext():
            yield from _bundle_code_objects(
                source, name, section_offset, ref, verify, check_hash, section
            )


def _bundle_code_objects(
    source: ByteSource,
    name: str,
    section_offset: int,
    ref: BundleRef,
    verify: bool,
    check_hash: bool,
    section: str,
) -> Iterator[CodeObjectStream]:
    """One bundle's code objects (:func:`stream_code_objects`)."""
    where = f"{name}: {section}"
    targets_seen: set[str] = set()
    for item in iter_entry_streams(source, ref, section_offset, where, check_hash):
        target = item.entry.entry_id.target
        assert target is not None
        if target.text in targets_seen:
            raise InvalidBundle(
                f"{where} bundle {ref.ordinal} holds two code objects for {target.text}"
            )
        targets_seen.add(target.text)
        chunks = iter(item.chunks)
        first = next(chunks, b"")
        if verify and target.processor.startswith("gfx"):
            verify_code_object(
                first[:64],
                target,
                f"{where} bundle {ref.ordinal} entry {item.entry.entry_id.text}",
            )
        yield CodeObjectStream(
            target=target.text,
            index=ref.ordinal,
            size=item.entry.size,
            chunks=itertools.chain([first] if first else [], chunks),
            bundle=ref.ordinal,
            entry_id=item.entry.entry_id.text,
        )


def _fat_image(data: IO[bytes], name: str) -> ElfImage | None:
    """The headers of ``data`` when it is a 64-bit little-endian ELF file with a
    ``.hip_fatbin`` section (HIP host code is), else None."""
    data.seek(0)
    ident = data.read(6)
    if ident[:4] != b"\x7fELF" or len(ident) < 6:
        return None
    if ident[4:6] != b"\x02\x01":
        return None
    elf = ElfImage(data, name)
    return elf if elf.section(FATBIN_SECTION) is not None else None


def has_hip_fatbin_data(data: IO[bytes], name: str = "library") -> bool:
    """True when ``data`` is an ELF file with a ``.hip_fatbin`` section (headers only)."""
    return _fat_image(data, name) is not None


def probe_library(data: IO[bytes], name: str) -> FatLibrary | None:
    """:func:`read_library` when ``data`` has a ``.hip_fatbin`` section, None when it has
    not (or is not 64-bit little-endian ELF): the test and the parse share one read of the
    headers, so the split's scan parses each library once."""
    elf = _fat_image(data, name)
    return None if elf is None else _library(elf, name)


def has_hip_fatbin(path: Path, name: str | None = None) -> bool:
    """Cheap test for device code: reads the ELF and section headers only.  Non-ELF files
    and 32-bit or big-endian ELF files give False; a truncated or malformed 64-bit ELF
    raises InvalidElf.  ``name`` is what messages call the file (default: ``path``)."""
    with Path(path).open("rb") as fh:
        return has_hip_fatbin_data(fh, name or str(path))


def _wrapper_target(
    elf: ElfImage, wrapper_vaddr: int, relocs: dict[int, Relocation], raw_ptr: int
) -> tuple[int, Relocation | None]:
    relative, absolute = elf.reloc_types
    rel = relocs.get(wrapper_vaddr + 8)
    if rel is None:
        return raw_ptr, None
    if rel.type == relative:
        return (raw_ptr if rel.entry_offset < 0 else rel.addend), rel
    if rel.type == absolute:
        symtab = elf.sections[rel.section].link
        _name, value, shndx = elf.symbol_value(symtab, rel.symbol)
        if shndx == 0:
            raise InvalidBundle(
                f"{elf.name}: wrapper pointer at {wrapper_vaddr + 8:#x} relocates against an "
                f"undefined symbol"
            )
        return value + rel.addend, rel
    raise InvalidBundle(
        f"{elf.name}: wrapper pointer at {wrapper_vaddr + 8:#x} has relocation type {rel.type}"
    )


def read_library(data: IO[bytes], name: str) -> FatLibrary:
    """Parse an open library: bundles delimited, wrappers mapped to bundles.

    Code objects are not read here; ``iter_code_objects`` streams them.
    """
    return _library(ElfImage(data, name), name)


def _library(elf: ElfImage, name: str) -> FatLibrary:
    elf.require_64le()
    fatbin = elf.section(FATBIN_SECTION)
    if fatbin is None:
        raise InvalidBundle(f"{name}: has no {FATBIN_SECTION} section")
    if fatbin.file_size == 0:
        raise InvalidBundle(f"{name}: {FATBIN_SECTION} holds no data (already split?)")
    where = f"{name}: {FATBIN_SECTION}"
    bundles = list(iter_bundles(elf.source, fatbin.offset, fatbin.size, where))
    if not bundles:
        raise InvalidBundle(f"{where} holds no offload bundle")
    starts = {fatbin.addr + ref.offset: ref.ordinal for ref in bundles}

    seg = elf.section(WRAPPER_SECTION)
    wrappers: list[Wrapper] = []
    if seg is not None:
        if seg.size % WRAPPER_SIZE or seg.file_size == 0:
            raise InvalidBundle(
                f"{name}: {WRAPPER_SECTION} is {seg.size} bytes, not a multiple of {WRAPPER_SIZE}"
            )
        raw = elf.read(seg)
        lo, hi = seg.addr, seg.addr + seg.size
        relocs = {r.offset: r for r in elf.dynamic_relocations((lo, hi))}
        for i in range(seg.size // WRAPPER_SIZE):
            magic, version, ptr, _reserved = struct.unpack_from("<IIQQ", raw, i * WRAPPER_SIZE)
            vaddr = seg.addr + i * WRAPPER_SIZE
            if magic == HIPK:
                raise InvalidBundle(f"{name}: wrapper {i} is already redirected to a kpack (HIPK)")
            if magic != HIPF or version != 1:
                raise InvalidBundle(
                    f"{name}: wrapper {i} in {WRAPPER_SECTION} has magic {magic:#x} version "
                    f"{version}, not HIPF version 1"
                )
            target, rel = _wrapper_target(elf, vaddr, relocs, ptr)
            if target not in starts:
                raise InvalidBundle(
                    f"{name}: wrapper {i} points to {target:#x}, which is not the start of a "
                    f"bundle in {FATBIN_SECTION}"
                )
            wrappers.append(
                Wrapper(i, vaddr, seg.offset + i * WRAPPER_SIZE, starts[target], rel, magic)
            )
    return FatLibrary(name=name, elf=elf, fatbin=fatbin, bundles=bundles, wrappers=wrappers)


def open_fat_library(path: Path, name: str | None = None) -> FatLibrary:
    """Open and parse ``path`` (kept open by the returned object for streaming reads).

    Raises InvalidElf for a truncated or malformed ELF, InvalidBundle for corrupt device
    code; ``name`` is what messages call the file (default: ``path``).
    """
    fh = Path(path).open("rb")  # noqa: SIM115 - owned by the FatLibrary's source
    try:
        lib = read_library(fh, name or str(path))
    except BaseException:
        fh.close()
        raise
    lib._file = fh
    return lib

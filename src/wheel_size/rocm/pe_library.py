"""A Windows HIP DLL's device code: its ``.hip_fat`` bundles, the ``.hipFatB`` wrappers that
register them, and the code objects per target -- the PE/COFF twin of
:mod:`wheel_size.rocm.fatbin_library`, with the same API where the splitter uses it.

Images keep only 8-character section names, so the linker writes clang's ``.hip_fatbin``
and ``.hipFatBinSegment`` as ``.hip_fat`` and ``.hipFatB`` (the names AMD's
``rocm_kpack.coff`` looks for; a MinGW-style image keeping the long names through its COFF
string table is read too).  The bundles are the same plain / CCOB bundles as on Linux and
are parsed by the same code (:mod:`wheel_size.rocm.fatbin_section`).

A wrapper's pointer (+8) is an absolute virtual address, ImageBase + RVA, fixed up at load
time by an ``IMAGE_REL_BASED_DIR64`` base relocation at that address; the wrapper maps to the
bundle whose start the pointer names (several wrappers share one bundle in ``-fgpu-rdc``
links).

Stricter than the ELF path on purpose: a device entry must be an AMDGPU (``amdgcn-amd-amdhsa``)
code object for a processor LLVM knows, since the kpack runtime can load nothing else.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from wheel_size.errors import InvalidBundle, InvalidPe
from wheel_size.rocm import ccob, offload_bundle
from wheel_size.rocm.amdgpu_elf import MACH
from wheel_size.rocm.fatbin_library import (
    HIPF,
    HIPK,
    WRAPPER_SIZE,
    CodeObject,
    CodeObjectStream,
    OwnsFile,
    stream_code_objects,
)
from wheel_size.rocm.fatbin_section import BundleRef, iter_bundles
from wheel_size.rocm.offload_bundle import BundleEntry
from wheel_size.rocm.pe_file import MACHINE_AMD64, REL_DIR64, PeImage, PeSection, is_pe

__all__ = [
    "FATBIN_NAMES",
    "FATBIN_SECTION",
    "PE_SUFFIXES",
    "REF_SECTION",
    "WRAPPER_NAMES",
    "WRAPPER_SECTION",
    "PeFatLibrary",
    "PeWrapper",
    "has_hip_fat",
    "probe_pe",
    "read_dll",
    "scan_dll",
]

FATBIN_SECTION = ".hip_fat"
WRAPPER_SECTION = ".hipFatB"
REF_SECTION = ".kpackrf"  # AMD's name for .rocm_kpack_ref in 8 characters
FATBIN_NAMES = (FATBIN_SECTION, ".hip_fatbin")
WRAPPER_NAMES = (WRAPPER_SECTION, ".hipFatBinSegment")
# Member names that must be PE images when they start with MZ (others may be data).
PE_SUFFIXES = (".dll", ".pyd", ".exe")
_DLL_SUFFIXES = (".dll", ".pyd")
_KNOWN_PROCESSORS = frozenset(MACH.values())
_AMDGPU_TRIPLE = "amdgcn-amd-amdhsa"


@dataclass(frozen=True)
class PeWrapper:
    """One ``__hip_fatbin_wrapper``: its RVA and file offset, the bundle it points to,
    and whether a DIR64 base relocation fixes its pointer up."""

    index: int
    rva: int
    file_offset: int
    bundle: int
    relocated: bool


@dataclass
class PeFatLibrary(OwnsFile):
    """A parsed HIP DLL (see the module docstring); kept open for streaming reads."""

    name: str
    image: PeImage
    fatbin: PeSection
    wrapper_section: PeSection | None
    bundles: list[BundleRef]
    wrappers: list[PeWrapper]
    fatbin_name: str = FATBIN_SECTION
    wrapper_name: str = WRAPPER_SECTION
    _entries: dict[int, list[BundleEntry]] = field(default_factory=dict, repr=False)
    _file: IO[bytes] | None = field(default=None, repr=False)

    @property
    def fatbin_size(self) -> int:
        """Bytes of the ``.hip_fat`` section's data."""
        return self.fatbin.file_size

    def _where(self, ordinal: int) -> str:
        return f"{self.name}: {FATBIN_SECTION} bundle {ordinal}"

    def _check_entry(self, entry: BundleEntry, ordinal: int) -> None:
        """Only AMDGPU code objects for processors LLVM knows can go into a kpack."""
        target = entry.entry_id.target
        assert target is not None
        if not entry.entry_id.triple.startswith(_AMDGPU_TRIPLE):
            raise InvalidBundle(
                f"{self._where(ordinal)}: entry {entry.entry_id.text!r} is for "
                f"{entry.entry_id.triple!r}, not an AMDGPU target ({_AMDGPU_TRIPLE})"
            )
        if target.processor not in _KNOWN_PROCESSORS:
            raise InvalidBundle(
                f"{self._where(ordinal)}: entry {entry.entry_id.text!r} names unknown GPU "
                f"target {target.processor!r}"
            )

    def bundle_entries(self, ordinal: int) -> list[BundleEntry]:
        """Device entries of one bundle (for a compressed one only its header is inflated)."""
        if ordinal not in self._entries:
            ref = self.bundles[ordinal]
            if ref.plain is not None:
                entries = ref.plain.device_entries()
            else:
                assert ref.ccob is not None
                base = self.fatbin.raw_offset + ref.offset
                where = self._where(ordinal)
                stream = ccob.open_payload(
                    self.image.source, base, base + ref.length, ref.ccob, where
                )
                entries = offload_bundle.read_plain_header(
                    stream.read_exact, ref.ccob.uncompressed_size, f"{where} (decompressed)"
                ).device_entries()
            seen: set[str] = set()
            for entry in entries:
                self._check_entry(entry, ordinal)
                text = entry.entry_id.target.text  # type: ignore[union-attr]
                if text in seen:
                    raise InvalidBundle(f"{self._where(ordinal)} holds two code objects for {text}")
                seen.add(text)
            self._entries[ordinal] = entries
        return self._entries[ordinal]

    @property
    def targets(self) -> list[str]:
        """Every target ID with device code, exact strings, sorted."""
        return sorted(
            {
                e.entry_id.target.text
                for b in range(len(self.bundles))
                for e in self.bundle_entries(b)
                if e.entry_id.target is not None
            }
        )

    def bytes_per_target(self) -> dict[str, int]:
        """Uncompressed code-object bytes per target ID (sizes from the bundle headers)."""
        totals: dict[str, int] = {}
        for b in range(len(self.bundles)):
            for e in self.bundle_entries(b):
                assert e.entry_id.target is not None
                totals[e.entry_id.target.text] = totals.get(e.entry_id.target.text, 0) + e.size
        return dict(sorted(totals.items()))

    def iter_code_object_streams(
        self, verify: bool = True, check_hash: bool = True
    ) -> Iterator[CodeObjectStream]:
        """Code objects one at a time in file order, as chunks, each checked against its
        ELF e_flags before it is handed out (the ELF reader's own streaming)."""
        for ref in self.bundles:
            self.bundle_entries(ref.ordinal)  # the target rules, before any byte is staged
        yield from stream_code_objects(
            self.image.source,
            self.name,
            self.fatbin.raw_offset,
            self.bundles,
            verify,
            check_hash,
            section=FATBIN_SECTION,
        )

    def iter_code_objects(
        self, verify: bool = True, check_hash: bool = True
    ) -> Iterator[CodeObject]:
        """Code objects whole, for tests and tools."""
        for code in self.iter_code_object_streams(verify, check_hash):
            data = b"".join(code.chunks)
            yield CodeObject(code.target, code.index, len(data), data, code.bundle, code.entry_id)


class _StreamSource:
    """A ByteSource over a stream whose size is known (a zip member): finding the size of a
    compressed member by seeking to its end would inflate all of it, and the headers sit at
    the start."""

    def __init__(self, stream: IO[bytes], size: int) -> None:
        self._stream = stream
        self._size = size

    @property
    def size(self) -> int:
        return self._size

    def pread(self, offset: int, size: int) -> bytes:
        size = max(0, min(size, self._size - offset))
        if not size:
            return b""
        self._stream.seek(offset)
        return self._stream.read(size)


def probe_pe(
    data: IO[bytes], name: str, member: str | None = None, size: int | None = None
) -> bool:
    """True when ``data`` is a PE image with HIP device code (``.hip_fat``), headers only
    (``size``, when known, spares finding the end of a compressed stream).

    A file that merely starts with ``MZ`` is not a PE image unless its name says it is one
    (``member`` ends in .dll/.pyd/.exe): then a broken header is InvalidPe.  A HIP image that
    is not a DLL, and a .dll/.pyd that is not a DLL, are InvalidPe too.
    """
    data.seek(0)
    if not is_pe(data.read(2)):
        return False
    lower = (member or name).lower()
    try:
        image = PeImage(data if size is None else _StreamSource(data, size), name)
    except InvalidPe:
        if lower.endswith(PE_SUFFIXES):
            raise
        return False
    if lower.endswith(_DLL_SUFFIXES) and not image.is_dll:
        raise InvalidPe(f"{name}: is a PE executable, not a DLL (IMAGE_FILE_DLL is not set)")
    fat = image.section(*FATBIN_NAMES) is not None
    if fat and not image.is_dll:
        raise InvalidPe(
            f"{name}: has HIP device code ({FATBIN_SECTION}) but is a PE executable, not a DLL; "
            "only DLLs can be split"
        )
    return fat


def has_hip_fat(path: Path, name: str | None = None) -> bool:
    """:func:`probe_pe` on a file."""
    with Path(path).open("rb") as fh:
        return probe_pe(fh, name or str(path))


def _wrappers(
    image: PeImage, seg: PeSection, fatbin: PeSection, starts: dict[int, int]
) -> list[PeWrapper]:
    name = image.name
    if seg.virtual_size % WRAPPER_SIZE or not seg.virtual_size:
        raise InvalidBundle(
            f"{name}: {WRAPPER_SECTION} is {seg.virtual_size} bytes, not a multiple of "
            f"{WRAPPER_SIZE}"
        )
    if seg.file_size < seg.virtual_size:
        raise InvalidPe(
            f"{name}: {WRAPPER_SECTION} has {seg.file_size} bytes of data for "
            f"{seg.virtual_size} bytes of wrappers"
        )
    raw = image.read_section(seg)
    relocs = image.relocations(seg.rva, seg.rva + seg.virtual_size)
    wrappers = []
    for i in range(seg.virtual_size // WRAPPER_SIZE):
        rva = seg.rva + i * WRAPPER_SIZE
        magic, version, ptr, _reserved = struct.unpack_from("<IIQQ", raw, i * WRAPPER_SIZE)
        if magic == HIPK:
            raise InvalidBundle(f"{name}: wrapper {i} is already redirected to a kpack (HIPK)")
        if magic != HIPF or version != 1:
            raise InvalidBundle(
                f"{name}: wrapper {i} in {WRAPPER_SECTION} has magic {magic:#x} version "
                f"{version}, not HIPF version 1"
            )
        for at in range(rva, rva + WRAPPER_SIZE):
            kind = relocs.get(at)
            if kind is None:
                continue
            if at != rva + 8 or kind != REL_DIR64:
                raise InvalidBundle(
                    f"{name}: wrapper {i} has a base relocation of type {kind} at +{at - rva}, "
                    "not one DIR64 at its pointer (+8)"
                )
        target = ptr - image.image_base
        if target not in starts:
            raise InvalidBundle(
                f"{name}: wrapper {i} points to {ptr:#x}, which is not the start of a bundle "
                f"in {FATBIN_SECTION} (RVA {fatbin.rva:#x}, ImageBase {image.image_base:#x})"
            )
        wrappers.append(
            PeWrapper(
                i, rva, seg.raw_offset + i * WRAPPER_SIZE, starts[target], (rva + 8) in relocs
            )
        )
    return wrappers


def read_dll(data: IO[bytes], name: str) -> PeFatLibrary:
    """Parse an open HIP DLL: bundles delimited, wrappers mapped to bundles.

    Raises InvalidPe for a malformed image (or one that is not an x86-64 PE32+ DLL) and
    InvalidBundle for corrupt device code; code objects are streamed later.
    """
    image = PeImage(data, name)
    if not image.is_dll:
        raise InvalidPe(
            f"{name}: has HIP device code but is a PE executable, not a DLL; only DLLs can be split"
        )
    if not image.is_pe32plus or image.machine != MACHINE_AMD64:
        raise InvalidPe(
            f"{name}: is not an x86-64 PE32+ image (machine {image.machine:#x}, optional header "
            f"{image.magic:#x}); HIP DLLs are"
        )
    fatbin = image.section(*FATBIN_NAMES)
    if fatbin is None:
        raise InvalidBundle(f"{name}: has no {FATBIN_SECTION} section")
    if fatbin.file_size == 0:
        raise InvalidBundle(f"{name}: {FATBIN_SECTION} holds no data (already split?)")
    where = f"{name}: {FATBIN_SECTION}"
    bundles = list(iter_bundles(image.source, fatbin.raw_offset, fatbin.file_size, where))
    if not bundles:
        raise InvalidBundle(f"{where} holds no offload bundle")
    starts = {fatbin.rva + ref.offset: ref.ordinal for ref in bundles}
    seg = image.section(*WRAPPER_NAMES)
    wrappers = _wrappers(image, seg, fatbin, starts) if seg is not None else []
    return PeFatLibrary(name, image, fatbin, seg, bundles, wrappers)


def scan_dll(path: Path, name: str | None = None) -> PeFatLibrary:
    """Open and parse ``path`` (kept open by the returned object for streaming reads)."""
    fh = Path(path).open("rb")  # noqa: SIM115 - owned by the PeFatLibrary
    try:
        lib = read_dll(fh, name or str(path))
    except BaseException:
        fh.close()
        raise
    lib._file = fh
    return lib

"""Walk the bundles of a ``.hip_fatbin`` section: one per translation unit, plain or
compressed, back to back with zero padding between them (spec sections 2.1–2.3).

The section is addressed through a ByteSource and a byte range, so a multi-GB library is
never read whole: plain bundles are read entry by entry, compressed ones are streamed, and
code objects are handed out in chunks (:func:`iter_entry_streams`).  What compressed bundles
claim is held to the per-library budget of :mod:`wheel_size.rocm.limits` before anything
is decompressed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wheel_size.errors import InvalidBundle
from wheel_size.rocm import offload_bundle
from wheel_size.rocm.limits import CHUNK, inflation_budget
from wheel_size.rocm.offload_bundle import BundleEntry, PlainBundleHeader
from wheel_size.rocm.source import ByteSource, RangeReader, SourceLike, as_source

if TYPE_CHECKING:
    from wheel_size.rocm import ccob

__all__ = [
    "BundleRef",
    "EntryData",
    "EntryStream",
    "iter_bundles",
    "iter_entries",
    "iter_entry_sizes",
    "iter_entry_streams",
]

_ZERO_CHUNK = 1 << 16
# What tells a bundle's kind: its first bytes, as many as the longest header it may start
# with (``ccob.MAX_HEADER``, CCOB v3's), and a compressed bundle's magic (``ccob.MAGIC``).
# The CCOB reader itself is imported only for a section that holds compressed bundles.
_HEAD = 32
_CCOB_MAGIC = b"CCOB"


@dataclass(frozen=True)
class BundleRef:
    """One bundle of a section: ``offset``/``length`` relative to the section start
    (length excludes padding), ``ordinal`` its position among the section's bundles."""

    ordinal: int
    offset: int
    length: int
    format: str  # "plain" or "ccob"
    plain: PlainBundleHeader | None = None
    ccob: ccob.CcobHeader | None = None


@dataclass(frozen=True)
class EntryData:
    bundle: BundleRef
    entry: BundleEntry
    data: bytes


@dataclass(frozen=True)
class EntryStream:
    """One entry whose ``entry.size`` bytes come as ``chunks`` (each at most ``CHUNK``);
    consume them before asking for the next entry."""

    bundle: BundleRef
    entry: BundleEntry
    chunks: Iterable[bytes]


def _skip_zeros(source: ByteSource, pos: int, end: int) -> int:
    """First non-zero byte at or after ``pos`` (or ``end``)."""
    while pos < end:
        chunk = source.pread(pos, min(_ZERO_CHUNK, end - pos))
        if not chunk:
            return end
        stripped = len(chunk) - len(chunk.lstrip(b"\0"))
        pos += stripped
        if stripped < len(chunk):
            return pos
    return end


def iter_bundles(
    data: SourceLike, start: int = 0, size: int | None = None, where: str = ".hip_fatbin"
) -> Iterator[BundleRef]:
    """Bundles in ``[start, start + size)`` of ``data`` (bytes, a binary file or a source).

    Raises InvalidBundle for an unknown magic, a truncated header, or sizes beyond the
    section.  Compressed v2/v3 bundles are delimited without decompressing them.
    """
    source = as_source(data)
    end = source.size if size is None else start + size
    if end > source.size:
        raise InvalidBundle(f"{where}: section runs past the end of the file")
    pos = _skip_zeros(source, start, end)
    ordinal = 0
    claimed = 0
    budget, rule = inflation_budget(end - start)
    while pos < end:
        here = f"{where} bundle {ordinal} at offset {pos - start:#x}"
        head = source.pread(pos, _HEAD)
        if head[:4] == offload_bundle.MAGIC[:4]:
            reader = RangeReader(source, pos, end)
            plain = offload_bundle.read_plain_header(reader.read, end - pos, here)
            length = plain.end
            yield BundleRef(ordinal, pos - start, length, "plain", plain=plain)
        elif head[:4] == _CCOB_MAGIC:
            from wheel_size.rocm import ccob

            header = ccob.parse_ccob_header(head, end - pos, here)
            claimed += header.uncompressed_size
            if claimed > budget:
                raise InvalidBundle(
                    f"{here}: compressed bundles claim {claimed} bytes uncompressed, over "
                    f"the {budget}-byte budget of a {end - start}-byte section ({rule})"
                )
            stop = ccob.payload_end(source, pos, end, header, here)
            length = stop - pos
            yield BundleRef(ordinal, pos - start, length, "ccob", ccob=header)
        else:
            raise InvalidBundle(f"{here}: unknown magic {head[:8]!r} (not an offload bundle)")
        ordinal += 1
        pos = _skip_zeros(source, pos + length, end)


def _plain_chunks(source: ByteSource, at: int, size: int, where: str) -> Iterator[bytes]:
    end = at + size
    while at < end:
        data = source.pread(at, min(CHUNK, end - at))
        if not data:
            raise InvalidBundle(f"{where}: code object is truncated")
        at += len(data)
        yield data


def iter_entry_streams(
    data: SourceLike,
    ref: BundleRef,
    start: int = 0,
    where: str = ".hip_fatbin",
    check_hash: bool = True,
) -> Iterator[EntryStream]:
    """The device entries of one bundle in file order, each as a stream of chunks.

    ``start`` is the section's offset in ``data``.  A compressed bundle is decompressed as
    a stream; its size and hash are checked once its last entry has been read.
    """
    source = as_source(data)
    here = f"{where} bundle {ref.ordinal} at offset {ref.offset:#x}"
    base = start + ref.offset
    if ref.plain is not None:
        for entry in ref.plain.device_entries():
            if base + entry.offset + entry.size > source.size:
                raise InvalidBundle(f"{here}: code object {entry.entry_id.text} is truncated")
            what = f"{here}: code object {entry.entry_id.text}"
            yield EntryStream(
                ref, entry, _plain_chunks(source, base + entry.offset, entry.size, what)
            )
        return
    assert ref.ccob is not None
    from wheel_size.rocm import ccob

    stream = ccob.open_payload(source, base, base + ref.length, ref.ccob, here, check_hash)
    plain = offload_bundle.read_plain_header(
        stream.read_exact, ref.ccob.uncompressed_size, f"{here} (decompressed)"
    )
    for entry, chunks in offload_bundle.iter_entry_chunks(
        stream.read_exact, plain, f"{here} (decompressed)"
    ):
        yield EntryStream(ref, entry, chunks)
    stream.finish()


def iter_entries(
    data: SourceLike,
    ref: BundleRef,
    start: int = 0,
    where: str = ".hip_fatbin",
    check_hash: bool = True,
) -> Iterator[EntryData]:
    """The device entries of one bundle with their bytes, whole (at most
    ``MAX_CODE_OBJECT`` each); the splitter streams with :func:`iter_entry_streams`."""
    for item in iter_entry_streams(data, ref, start, where, check_hash):
        yield EntryData(item.bundle, item.entry, b"".join(item.chunks))


def iter_entry_sizes(
    data: SourceLike, ref: BundleRef, start: int = 0, where: str = ".hip_fatbin"
) -> Iterator[tuple[BundleEntry, int]]:
    """Device entries and their uncompressed sizes; plain bundles need no data reads."""
    if ref.plain is not None:
        for entry in ref.plain.device_entries():
            yield entry, entry.size
        return
    for item in iter_entries(data, ref, start, where):
        yield item.entry, len(item.data)

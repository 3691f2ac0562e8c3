"""The RECORD file of a wheel (PEP 376 / PEP 427 / binary distribution format spec).

Hashes are ``sha256=`` followed by the urlsafe base64 digest *without* ``=`` padding;
AMD's splitter writes hex, which pip rejects, so we are strict about the format.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO

from wheel_size.errors import InvalidWheel

__all__ = [
    "RecordEntry",
    "StreamingHash",
    "encode_digest",
    "format_record",
    "hash_bytes",
    "parse_record",
]

_CHUNK = 1 << 20


def encode_digest(digest: bytes) -> str:
    """Encode a raw digest the way RECORD wants it."""
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def hash_bytes(data: bytes) -> str:
    """``sha256=…`` of ``data``."""
    return "sha256=" + encode_digest(hashlib.sha256(data).digest())


class StreamingHash:
    """Hash and count bytes as they stream past, so large members are never held in memory."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256()
        self.size = 0

    def update(self, chunk: bytes) -> None:
        self._sha.update(chunk)
        self.size += len(chunk)

    def feed(self, stream: IO[bytes]) -> StreamingHash:
        """Read ``stream`` to its end."""
        while chunk := stream.read(_CHUNK):
            self.update(chunk)
        return self

    @property
    def value(self) -> str:
        return "sha256=" + encode_digest(self._sha.digest())


@dataclass(frozen=True)
class RecordEntry:
    """One row of RECORD. ``hash`` and ``size`` are ``None`` for RECORD itself (and signatures)."""

    path: str
    hash: str | None
    size: int | None

    def to_row(self) -> tuple[str, str, str]:
        return (self.path, self.hash or "", "" if self.size is None else str(self.size))


def parse_record(text: str, *, source: str = "RECORD") -> list[RecordEntry]:
    """Parse RECORD text; ``source`` names the file in error messages."""
    entries: list[RecordEntry] = []
    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        numbered = list(enumerate(rows, start=1))
    except csv.Error as exc:  # e.g. a bare CR inside an unquoted field
        raise InvalidWheel(f"{source}: line {rows.line_num}: not valid CSV ({exc})") from None
    for line_no, row in numbered:
        if not row:
            continue
        if len(row) != 3:
            raise InvalidWheel(f"{source}: line {line_no}: expected 3 fields, got {len(row)}")
        path, hash_, size = row
        if not path:
            raise InvalidWheel(f"{source}: line {line_no}: empty path")
        if hash_ and "=" not in hash_:
            raise InvalidWheel(f"{source}: line {line_no}: malformed hash {hash_!r}")
        try:
            size_value = int(size) if size else None
        except ValueError:
            raise InvalidWheel(f"{source}: line {line_no}: size {size!r} is not a number") from None
        if size_value is not None and size_value < 0:
            raise InvalidWheel(f"{source}: line {line_no}: negative size {size_value}")
        entries.append(RecordEntry(path, hash_ or None, size_value))
    return entries


def format_record(entries: Iterable[RecordEntry]) -> str:
    """Serialise entries as RECORD text (CSV, ``\\n`` line ends)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for entry in entries:
        writer.writerow(entry.to_row())
    return buffer.getvalue()


def iter_chunks(stream: IO[bytes]) -> Iterator[bytes]:
    """Yield ``stream`` in 1 MiB chunks."""
    while chunk := stream.read(_CHUNK):
        yield chunk

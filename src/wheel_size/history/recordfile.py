"""Reading record files that may be hostile, and reporting the stored ones we had to skip.

The data branch is written by every nightly but anyone who can push to it can plant a file
there, and the same reader runs on every later night. So a record file is read with a size
cap, only as a regular file (no FIFO, device or symbolic link: those block or read forever),
decoded as strict UTF-8 and parsed with nesting errors caught. A *stored* record that fails
is skipped and named (:func:`note_skipped`), never fatal: one planted file must not stop
every later nightly. A record file the user names on the command line (``--records``) is
input: the same checks raise a one-line :class:`HistoryError` and nothing is stored.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from wheel_size.errors import HistoryError
from wheel_size.oneline import one_line

__all__ = [
    "MAX_BUNDLE_BYTES",
    "MAX_RECORD_BYTES",
    "SkippedRecord",
    "drain_skipped",
    "load_json",
    "note_skipped",
    "read_capped",
    "shown",
]

# One stored run: its fields and one line per artifact (~250 bytes); real ones are a few KB,
# a run with 4,000 artifacts stays under this.
MAX_RECORD_BYTES = 1 << 20
# A record file from `collect --out`: ~3 KB a run, so ~20,000 runs. json.loads needs about
# ten times the text in memory, so the cap is what keeps a planted file from exhausting it.
MAX_BUNDLE_BYTES = 64 << 20


def shown(text: object, limit: int = 200) -> str:
    """``text`` (a path, a value from the file) fit for a one-line message."""
    return one_line(text, limit)


def read_capped(path: Path, limit: int, where: str, *, follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file ``path``, refused past ``limit`` bytes.

    Opened non-blocking, so a FIFO is refused at once instead of waiting for a writer.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise HistoryError(f"{where}: is a symbolic link; not followed") from None
        raise HistoryError(f"{where}: cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise HistoryError(f"{where}: not a regular file")
        if info.st_size > limit:
            raise HistoryError(
                f"{where}: {info.st_size:,} bytes, more than the {limit:,} bytes a record file "
                "may have"
            )
        chunks = []
        size = 0
        while size <= limit:  # the file may grow while we read it
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise HistoryError(f"{where}: more than the {limit:,} bytes a record file may have")
        return b"".join(chunks)
    except OSError as exc:
        raise HistoryError(f"{where}: cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def load_json(raw: bytes, where: str) -> object:
    """Parse a record file's bytes: strict UTF-8 (no other encodings guessed, no BOM), JSON
    nested no deeper than the interpreter allows (a RecursionError becomes the message)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HistoryError(f"{where}: not UTF-8 text (byte {exc.start:,})") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise HistoryError(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, or an integer past the digit limit
        raise HistoryError(f"{where}: not valid JSON: {shown(exc, 120)}") from None


@dataclass(frozen=True)
class SkippedRecord:
    """A stored record that could not be used: where it is in the store (``runs/…``) and
    what is wrong with it (one line, starting with where it was read)."""

    path: str
    message: str


_skipped: dict[str, SkippedRecord] = {}
_lock = threading.Lock()


def note_skipped(path: str, message: str) -> None:
    """Remember a stored record that was skipped, by its ``path`` in the store: each file
    once, however often it is read (a nightly reads the same stretch of history several
    times, from the data branch and from the scratch tree a write builds)."""
    with _lock:
        _skipped.setdefault(path, SkippedRecord(shown(path, 300), shown(message, 400)))


def drain_skipped() -> list[SkippedRecord]:
    """The records skipped since the last call, in the order they were met; clears the list.
    The CLI and the Action report them as warnings when the command ends."""
    with _lock:
        out = list(_skipped.values())
        _skipped.clear()
    return out

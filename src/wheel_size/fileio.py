"""Whole-file writes that never leave half a file: write a temporary file, move it into place.

Every report, run record and page goes through here, so a reader (or a crash) never sees a
truncated file and a failure keeps the old contents. Streamed writers (wheels, kpack archives,
downloads) keep their own temporary file because they write as they go.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write", "atomic_write_text"]


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a synced temporary file next to it (mode 0644)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.chmod(0o644)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """:func:`atomic_write` for text, UTF-8 encoded."""
    atomic_write(path, text.encode("utf-8"))

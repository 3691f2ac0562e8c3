"""The size of each resolved file: a local file's from the file system, a remote one's from a
``HEAD`` request (``Content-Length``), cached by pin: a released file never changes, so a
(file name, URL) measured once is not asked again."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import unquote, urlsplit

from wheel_size.deps.resolve import ResolvedFile
from wheel_size.errors import WheelSizeError

__all__ = ["SizeCache", "file_size"]


class SizeUnknown(WheelSizeError):
    """A resolved file whose size the index does not say."""


class SizeCache:
    """``{"<filename> <url>": bytes}`` in a JSON file (None: in memory only)."""

    def __init__(self, path: Path | None = None):
        self.path = path
        self.sizes: dict[str, int] = {}
        if path is not None and path.is_file():
            try:
                data = json.loads(path.read_text())
            except ValueError:
                data = {}
            if isinstance(data, dict):
                self.sizes = {k: v for k, v in data.items() if isinstance(v, int) and v >= 0}
        self.asked = 0

    def save(self) -> None:
        if self.path is not None:
            from wheel_size.fileio import atomic_write_text

            atomic_write_text(self.path, json.dumps(self.sizes, indent=1, sort_keys=True) + "\n")


def file_size(f: ResolvedFile, cache: SizeCache, timeout: float = 60.0) -> int:
    key = f"{f.filename} {f.url}"
    if key in cache.sizes:
        return cache.sizes[key]
    parts = urlsplit(f.url)
    if parts.scheme == "file":
        size = Path(unquote(parts.path)).stat().st_size
    else:
        cache.asked += 1
        request = urllib.request.Request(f.url, method="HEAD")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                length = answer.headers.get("Content-Length")
        except (urllib.error.URLError, OSError) as exc:
            raise SizeUnknown(f"{f.filename}: {getattr(exc, 'reason', exc)}") from None
        if not (length or "").isdigit():
            raise SizeUnknown(f"{f.filename}: the index sends no Content-Length")
        size = int(length)
    cache.sizes[key] = size
    return size

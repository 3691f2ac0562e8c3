"""At most one large decompression window at a time across the split's workers.

A compressed offload bundle (CCOB) is decoded as a stream, and a zstd decoder holds a buffer
as large as the frame's window or its content, whichever is smaller. LLVM compresses offload
bundles with long-distance matching, whose window is 128 MiB, so a bundle of 100 MB of code
objects (jax-rocm7-pjrt 0.12.0 has 30 of 70-110 MB) costs its worker about that much memory
while it is decoded. Two workers decoding two such bundles at once held 336 MiB on the
benchmark's CCOB wheel, over the split's 256 MB budget. A bundle that claims at least
``BIG_WINDOW`` bytes uncompressed therefore takes an exclusive lock on a file in the work
directory for as long as it is decoded; plain bundles and small ones never wait, and the
other worker keeps inflating, rewriting and deflating meanwhile. Where ``fcntl`` does not
exist (Windows) there is no gate.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

from wheel_size.rocm.fatbin_section import BundleRef

__all__ = ["BIG_WINDOW", "WindowGate"]

BIG_WINDOW = 32 << 20

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no gate
    fcntl = None  # type: ignore[assignment]


class WindowGate:
    """Called with a bundle, a context to decode it in: the work directory's lock for a
    compressed bundle of at least ``BIG_WINDOW`` bytes, nothing for any other."""

    def __init__(self, lock: Path, big: int = BIG_WINDOW) -> None:
        self.lock = lock
        self.big = big

    def needs_lock(self, bundle: BundleRef) -> bool:
        return bundle.ccob is not None and bundle.ccob.uncompressed_size >= self.big

    def __call__(self, bundle: BundleRef) -> AbstractContextManager[object]:
        if fcntl is None or not self.needs_lock(bundle):
            return contextlib.nullcontext()
        return self._held()

    @contextlib.contextmanager
    def _held(self) -> Iterator[None]:
        fd = os.open(self.lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

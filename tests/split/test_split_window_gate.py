"""The memory gate of compressed bundles: one large decompression window at a time."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from wheel_size.rocm.fatbin_library import read_library, stream_code_objects
from wheel_size.rocm.source import as_source
from wheel_size.split.window_gate import BIG_WINDOW, WindowGate

DATA = Path(__file__).resolve().parents[1] / "data" / "hip"


def _other_holder_blocked(lock: Path) -> bool:
    """Whether a second open of ``lock`` (another worker, as flock sees it) must wait."""
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_a_large_compressed_bundle_is_decoded_under_the_lock(tmp_path: Path) -> None:
    lock = tmp_path / "ccob-window.lock"
    with (DATA / "libccob19.so").open("rb") as fh:
        library = read_library(fh, "libccob19.so")
        assert all(b.ccob is not None for b in library.bundles)
        smallest = min(b.ccob.uncompressed_size for b in library.bundles if b.ccob)
        gate = WindowGate(lock, big=smallest)  # every bundle of the fixture counts as large
        seen = []
        for code in stream_code_objects(
            as_source(fh), "libccob19.so", library.fatbin.offset, library.bundles, gate=gate
        ):
            seen.append(_other_holder_blocked(lock))
            for _ in code.chunks:
                pass
        assert seen and all(seen)
        assert not _other_holder_blocked(lock)  # released once the last bundle is read


@pytest.mark.parametrize("fixture", ["libplain19.so", "libccob19.so"])
def test_plain_and_small_bundles_never_wait(tmp_path: Path, fixture: str) -> None:
    lock = tmp_path / "ccob-window.lock"
    gate = WindowGate(lock)
    with (DATA / fixture).open("rb") as fh:
        library = read_library(fh, fixture)
        assert not any(gate.needs_lock(b) for b in library.bundles)  # all under BIG_WINDOW
        blocked = []
        for code in stream_code_objects(
            as_source(fh), fixture, library.fatbin.offset, library.bundles, gate=gate
        ):
            blocked.append(_other_holder_blocked(lock))
            for _ in code.chunks:
                pass
        assert blocked and not any(blocked)
    assert BIG_WINDOW == 32 << 20

"""Per-gfx-target sizes of ``.hip_fatbin`` for the diff, through the ROCm bundle reader."""

from __future__ import annotations

from wheel_size.diff.elfinfo import HipScanner

__all__ = ["hip_scanners"]


def hip_scanners() -> tuple[HipScanner, ...]:
    """The HIP scanner, once the ROCm fatbin library reader is available."""
    return ()

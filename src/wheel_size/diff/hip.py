"""Per-gfx-target sizes of ``.hip_fatbin`` for the diff and the audit, through the ROCm reader."""

from __future__ import annotations

from wheel_size.audit.native import ArchScanner
from wheel_size.diff.elfinfo import HipScanner

__all__ = ["hip_arch_scanners", "hip_scanners"]


def hip_scanners() -> tuple[HipScanner, ...]:
    """Size scanners for the diff (added once the ROCm fatbin library reader has landed)."""
    return ()


def hip_arch_scanners() -> tuple[ArchScanner, ...]:
    """Architecture scanners for the audit."""
    return ()

"""Kept for callers of the old hook API: ``.hip_fatbin`` is read by the native floor now.

:func:`wheel_size.native.read_library_facts` reads the HIP offload bundles together with
the CUDA fatbin sections from one parse of the library, so the diff needs no extra scanner.
"""

from __future__ import annotations

from wheel_size.diff.elfinfo import HipScanner

__all__ = ["hip_scanners"]


def hip_scanners() -> tuple[HipScanner, ...]:
    """No extra scanner is needed (HIP is part of every library's facts)."""
    return ()

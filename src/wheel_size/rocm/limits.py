"""How much device code a fat binary may claim, and how much of it is held at once.

A compressed offload bundle (CCOB) states its uncompressed size; zstd turns 32 KB into a
GiB of zeros, so a claim is only a claim.  Three rules keep a hostile library from costing
more than its size says:

* **streaming**: code objects are copied to the kpack in chunks of ``CHUNK`` bytes, so peak
  memory per worker does not depend on any claimed size;
* **per code object**: at most ``MAX_CODE_OBJECT`` (1 GiB; real AMDGPU code objects are
  tens of MB) and at most ``MAX_BUNDLE_ENTRIES`` entries with IDs of at most
  ``MAX_ENTRY_ID`` bytes per bundle;
* **per library**: the compressed bundles of one ``.hip_fatbin`` may together claim at most
  ``ratio`` times the section's size plus ``floor`` bytes of uncompressed data (defaults
  1024x and 64 MiB; clang's zstd bundles inflate 5-20x).  This bounds the disk and time a
  split spends on one library.  Set ``WHEEL_SIZE_CCOB_RATIO`` / ``WHEEL_SIZE_CCOB_FLOOR_MB``
  to change them.

What actually comes out of the decompressor is checked against the claim (more or less is
InvalidBundle), so the budget is enforced on real bytes, not only on headers.
"""

from __future__ import annotations

import os

from wheel_size.errors import InputError

__all__ = [
    "CHUNK",
    "MAX_BUNDLE_ENTRIES",
    "MAX_CODE_OBJECT",
    "MAX_ENTRY_ID",
    "inflation_budget",
]

CHUNK = 1 << 20
MAX_CODE_OBJECT = 1 << 30
MAX_BUNDLE_ENTRIES = 4096
MAX_ENTRY_ID = 4096
DEFAULT_RATIO = 1024
DEFAULT_FLOOR_MB = 64


def _setting(name: str, default: int) -> int:
    text = os.environ.get(name)
    if text is None or not text.strip():
        return default
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 1:
        raise InputError(f"{name}={text!r}: must be a positive whole number")
    return value


def inflation_budget(section_size: int) -> tuple[int, str]:
    """(bytes, how it was computed) the compressed bundles of a ``section_size``-byte
    ``.hip_fatbin`` may claim uncompressed, all together."""
    ratio = _setting("WHEEL_SIZE_CCOB_RATIO", DEFAULT_RATIO)
    floor = _setting("WHEEL_SIZE_CCOB_FLOOR_MB", DEFAULT_FLOOR_MB)
    rule = f"{ratio}x the section + {floor} MiB; WHEEL_SIZE_CCOB_RATIO / _FLOOR_MB change it"
    return ratio * section_size + (floor << 20), rule

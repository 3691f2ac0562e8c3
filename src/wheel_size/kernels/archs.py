"""The natural order of GPU architecture names: sm_75 < sm_80 < sm_100, gfx90a < gfx942."""

from __future__ import annotations

import re

__all__ = ["arch_key"]


def arch_key(arch: str) -> tuple[str, int, str]:
    """Sort key: the letters before the number, the number, what follows (``a``, features)."""
    match = re.match(r"([a-z_]*?)(\d+)(.*)", arch)
    if not match:
        return (arch, 0, "")
    return (match.group(1), int(match.group(2)), match.group(3))
